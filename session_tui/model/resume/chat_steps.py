"""OpenAI Chat Completions ``messages`` (what Qwen Code, opencode and
Copilot CLI's BYOK mode send, and session-tui's context of their files)
reduced to the fields of steps (``steps.Step``: role, text, thinking, call
ids, result ids, is_error), and such a request without what the client adds
for the new turn: its system message, the ``<system-reminder>`` blocks it
puts at the head of the first user message and with the prompt, and the
prompt itself."""

from __future__ import annotations

import json
import re
from typing import Any

#: a step's fields: role, text, thinking, call ids, result ids, is_error
Fields = tuple[str, str, str, list[object], list[object], bool]

REMINDER = "<system-reminder>"
#: the date Copilot CLI puts before every prompt it sends
DATED = re.compile(r"\A\s*<current_datetime>[^<]*</current_datetime>\s*")


def content_text(content: Any) -> str:
    """A Chat Completions ``content``: a string, null, or a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for part in content:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, dict) and part.get("type") == "text":
                out.append(str(part.get("text") or ""))
            elif isinstance(part, dict) and part.get("type") in ("image_url", "input_image"):
                out.append("[image]")
            else:
                out.append(json.dumps(part, sort_keys=True))
        return "\n".join(out)
    return json.dumps(content, sort_keys=True)


def chat_fields(messages: list[Any]) -> list[Fields]:
    out: list[Fields] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "assistant":
            calls = message.get("tool_calls")
            ids: list[object] = [c.get("id") for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
            think = message.get("reasoning_content") or message.get("reasoning") or ""
            out.append(("assistant", content_text(message.get("content")), str(think), ids, [], False))
        elif role == "tool":
            out.append(("tool", content_text(message.get("content")), "", [], [message.get("tool_call_id")], False))
        elif role in ("system", "developer"):
            out.append(("system", content_text(message.get("content")), "", [], [], False))
        else:
            out.append((str(role), content_text(message.get("content")), "", [], [], False))
    return out


def _without_reminders(message: dict[str, Any], prompt: str | None) -> dict[str, Any] | None:
    """``message`` without the client's reminder blocks (and the block that
    is ``prompt``); None when nothing else is left."""
    content = message.get("content")
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    kept = [
        p
        for p in parts
        if not (
            isinstance(p, dict)
            and p.get("type") == "text"
            and (
                str(p.get("text") or "").lstrip().startswith(REMINDER)
                or (prompt is not None and DATED.sub("", str(p.get("text") or "")).strip() == prompt)
            )
        )
    ]
    return {**message, "content": kept} if kept else None


def chat_without_turn(messages: list[Any], prompt: str) -> list[Any]:
    """A client's ``messages`` without its system messages before the
    conversation, its reminders at the head of the first user message and
    the prompt turn at the end."""
    items = [dict(m) if isinstance(m, dict) else m for m in messages]
    while items and isinstance(items[0], dict) and items[0].get("role") in ("system", "developer"):
        items.pop(0)
    if items and isinstance(items[-1], dict) and items[-1].get("role") == "user":
        last = _without_reminders(items[-1], prompt)
        if last is None:
            items.pop()
        else:
            items[-1] = last
    for i, item in enumerate(items):
        if isinstance(item, dict) and item.get("role") == "user":
            first = _without_reminders(item, None)
            if first is None:
                items.pop(i)
            else:
                items[i] = first
            break
    return items
