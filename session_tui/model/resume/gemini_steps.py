"""Gemini ``contents`` (what Gemini CLI sends, and session-tui's gemini
context) reduced to the fields of steps (``steps.Step``: role, text,
thinking, call ids, result ids, is_error), and a Gemini CLI request
without what it adds for the new turn: its own ``<session_context>`` block
at the head of the first user turn and the prompt at the end."""

from __future__ import annotations

import json
from typing import Any

#: a step's fields: role, text, thinking, call ids, result ids, is_error
Fields = tuple[str, str, str, list[object], list[object], bool]

SESSION_CONTEXT = "<session_context>"


def _parts(content: Any) -> list[dict[str, Any]]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def response_text(response: Any) -> tuple[str, bool]:
    """A function response's text and whether it reports an error."""
    if isinstance(response, dict):
        if isinstance(response.get("output"), str) and len(response) == 1:
            return response["output"], False
        return json.dumps(response, sort_keys=True), "error" in response
    return json.dumps(response, sort_keys=True), False


def gemini_fields(contents: list[Any]) -> list[Fields]:
    out: list[Fields] = []
    for content in contents:
        role = content.get("role") if isinstance(content, dict) else None
        if role == "model":
            text: list[str] = []
            think: list[str] = []
            calls: list[object] = []
            for part in _parts(content):
                if isinstance(part.get("functionCall"), dict):
                    calls.append(part["functionCall"].get("id"))
                elif part.get("thought"):
                    think.append(str(part.get("text") or ""))
                elif isinstance(part.get("text"), str):
                    text.append(part["text"])
                else:
                    text.append(json.dumps(part, sort_keys=True))
            out.append(("assistant", "\n".join(text), "\n".join(think), calls, [], False))
        elif role == "user":
            pending: list[str] = []
            for part in _parts(content):
                inner = part.get("functionResponse")
                if isinstance(inner, dict):
                    if pending:
                        out.append(("user", "\n".join(pending), "", [], [], False))
                        pending = []
                    said, failed = response_text(inner.get("response"))
                    out.append(("tool", said, "", [], [inner.get("id")], failed))
                elif isinstance(part.get("text"), str):
                    pending.append(part["text"])
                else:
                    pending.append(json.dumps(part, sort_keys=True))
            if pending:
                out.append(("user", "\n".join(pending), "", [], [], False))
    return out


def gemini_without_turn(contents: list[Any], prompt: str) -> list[Any]:
    """``contents`` without Gemini CLI's fresh ``<session_context>`` part and the prompt turn."""
    items = [dict(c) if isinstance(c, dict) else c for c in contents]
    if items and isinstance(items[-1], dict) and items[-1].get("role") == "user":
        kept = [p for p in _parts(items[-1]) if (p.get("text") or "").strip() != prompt]
        if kept:
            items[-1]["parts"] = kept
        else:
            items.pop()
    if items and isinstance(items[0], dict) and items[0].get("role") == "user":
        kept = [p for p in _parts(items[0]) if not str(p.get("text") or "").lstrip().startswith(SESSION_CONTEXT)]
        if kept:
            items[0]["parts"] = kept
        else:
            items.pop(0)
    return items
