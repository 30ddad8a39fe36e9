"""`qwen`: Qwen Code 0.24 chat recordings (docs/formats.md, "Qwen Code").

``~/.qwen/projects/<cwd, non-alphanumerics as ->/chats/<sessionId>.jsonl``:
one record a line, each with ``uuid``, ``parentUuid``, ``sessionId``,
``timestamp``, ``type``, ``cwd`` and ``version``, chained by ``parentUuid``
like Claude Code's, but Qwen's own: ``user`` and ``assistant`` records hold
a Gemini-style ``message`` (``role`` user / model, ``parts`` with ``text``,
``thought``, ``functionCall{id, name, args}``), ``tool_result`` records a
user message of ``functionResponse{id, name, response{output|error}}`` parts
and a ``toolCallResult`` (``status``), ``system`` records (telemetry,
attribution snapshots) that the model never sees. Usage is the assistant
record's ``usageMetadata`` (Gemini's counts).

Qwen Code resumes the chain that ends at the file's last record and sends
it to its model as OpenAI Chat Completions: a user message of text blocks,
an assistant message (``content``, ``reasoning_content`` from thought
parts, ``tool_calls``), one ``tool`` message per function response. A call
without a response gets one on resume (``repairOrphanedToolUseTurns``):
an error "Tool execution result was not recorded …" right after the
responses it has. The context here is in that form.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from ...entries.tokens import Response
from ...entries.view import EntryView, ToolCall
from ...errors import check_stop
from ...reading.segment import LineKind, Segment, Shape
from ..base import Format, Sent, Session
from ..openai_messages import SentMessages
from .client import CLIENT

#: what Qwen Code sends on resume for a call whose result is not in the file
NOT_RECORDED = (
    "Tool execution result was not recorded \u2014 likely interrupted by network failure, abort, "
    "or process exit. Treat as failure and retry if needed."
)
CHAIN_TYPES = ("user", "assistant", "tool_result", "system")
PROVENANCE = ("real_user", "assistant_output", "tool_result", "system")


def _parts(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def is_qwen(obj: dict[str, Any]) -> bool:
    """A Qwen Code record: the chain's three ids and Qwen's own marks (a
    ``provenance``, a Gemini-style message of ``parts``, a ``tool_result``)."""
    if not ("uuid" in obj and "parentUuid" in obj and "sessionId" in obj):
        return False
    message = obj.get("message")
    return (
        obj.get("provenance") in PROVENANCE
        or obj.get("type") == "tool_result"
        or (isinstance(message, dict) and isinstance(message.get("parts"), list) and "content" not in message)
    )


def response_text(response: object) -> str:
    """What a ``functionResponse.response`` sends as the tool message's text."""
    if isinstance(response, dict):
        for key in ("output", "error"):
            value = response.get(key)
            if isinstance(value, str):
                return value
        return json.dumps(response, ensure_ascii=False)
    return response if isinstance(response, str) else json.dumps(response, ensure_ascii=False)


def _calls(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p["functionCall"] for p in parts if isinstance(p.get("functionCall"), dict)]


def _responses(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p["functionResponse"] for p in parts if isinstance(p.get("functionResponse"), dict)]


def chat_messages(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The Chat Completions messages Qwen Code makes of one record."""
    kind = record.get("type")
    parts = _parts(record)
    if kind == "assistant":
        texts = [p["text"] for p in parts if isinstance(p.get("text"), str) and p.get("thought") is not True]
        thoughts = [p["text"] for p in parts if isinstance(p.get("text"), str) and p.get("thought") is True]
        message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
        calls = [
            {
                "id": str(call.get("id") or ""),
                "type": "function",
                "function": {"name": str(call.get("name") or ""), "arguments": json.dumps(call.get("args") or {})},
            }
            for call in _calls(parts)
        ]
        if calls:
            message["tool_calls"] = calls
        if thoughts:
            message["reasoning_content"] = "".join(thoughts)
        return [message]
    if kind in ("user", "tool_result"):
        out: list[dict[str, Any]] = [
            {
                "role": "tool",
                "tool_call_id": str(response.get("id") or ""),
                "content": [{"type": "text", "text": response_text(response.get("response"))}],
            }
            for response in _responses(parts)
        ]
        texts = [{"type": "text", "text": p["text"]} for p in parts if isinstance(p.get("text"), str)]
        if texts:
            out.append({"role": "user", "content": texts})
        return out
    return []


class QwenFormat(SentMessages, Format):  # (its own resume: Qwen answers a call in its own words)
    name = "qwen"
    parent_key = "parentUuid"
    marks_errors = True
    client = CLIENT
    fills_dangling = f'Qwen Code will send an error result for it on resume ("{NOT_RECORDED[:40]}…")'
    torn_tail = ("warning", "Qwen Code skips it on resume")

    def sniff(self, objs: list[dict[str, Any]], path: str | None = None) -> bool:
        return any(is_qwen(obj) for obj in objs[:20])

    def classify(self, obj: dict[str, Any], line: int, seg: Segment) -> int:
        uid = obj.get("uuid")
        kind = obj.get("type")
        if kind not in CHAIN_TYPES or not isinstance(uid, str) or not uid:
            return LineKind.META if isinstance(kind, str) else LineKind.UNKNOWN
        parent = obj.get("parentUuid")
        parts = _parts(obj)
        if kind == "assistant":
            shape = Shape.ASSISTANT | (Shape.CALLS if _calls(parts) else 0)
        elif kind == "tool_result" or _responses(parts):
            shape = Shape.TOOL | Shape.RESULT
        elif kind == "user":
            shape = Shape.USER
        else:
            shape = Shape.SYSTEM | Shape.QUIET
        seg.add_entry(line, uid, parent if isinstance(parent, str) else None, shape)
        return LineKind.ENTRY

    def entry_id(self, record: dict[str, Any]) -> str | None:
        found = record.get("uuid")
        return found if isinstance(found, str) else None

    def active_leaf(self, session: Session) -> int:
        """Where Qwen Code resumes: the chain ending at the file's last record."""
        return session.tree.count - 1

    def context(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
    ) -> list[tuple[int, dict[str, Any]]]:
        out: list[tuple[int, dict[str, Any]]] = []
        if leaf < 0:
            return out
        tree = session.tree
        for n, entry in enumerate(tree.path_to(leaf)):
            check_stop(should_stop, n)
            if tree.shape[entry] & Shape.QUIET:
                continue
            out.extend((entry, message) for message in chat_messages(session.record(entry)))
        return out

    def context_tail(self, session: Session, entries: list[int]) -> list[tuple[int, dict[str, Any]]] | None:
        out: list[tuple[int, dict[str, Any]]] = []
        for entry in entries:
            if not session.tree.shape[entry] & Shape.QUIET:
                out.extend((entry, message) for message in chat_messages(session.record(entry)))
        return out

    def resume(self, session: Session, items: list[tuple[int, dict[str, Any]]]) -> list[Sent]:
        """The file's messages with a ``tool`` message of ``NOT_RECORDED``
        for each call left without one, after the responses that follow it."""
        out: list[Sent] = []
        pending: list[tuple[int, str]] = []  # the last assistant message's calls not answered yet

        def close() -> None:
            for entry, call_id in pending:
                text = [{"type": "text", "text": NOT_RECORDED}]
                message = {"role": "tool", "tool_call_id": call_id, "content": text}
                out.append(Sent(entry, message, CLIENT.title))
            pending.clear()

        for entry, message in items:
            role = message.get("role")
            if role == "tool":
                answered = message.get("tool_call_id")
                pending[:] = [p for p in pending if p[1] != answered]
            else:
                close()
                if role == "assistant":
                    pending.extend((entry, call_id) for call_id in self.tool_call_ids(message))
            out.append(Sent(entry, message))
        close()
        return out

    def view(self, record: dict[str, Any]) -> EntryView:
        kind = record.get("type")
        fields: dict[str, Any] = {
            "id": record.get("uuid"),
            "parent_id": record.get("parentUuid"),
            "time": record.get("timestamp"),
        }
        parts = _parts(record)
        if kind == "assistant":
            texts = [p["text"] for p in parts if isinstance(p.get("text"), str) and p.get("thought") is not True]
            calls = [
                ToolCall(str(c.get("id") or ""), str(c.get("name") or ""), json.dumps(c.get("args") or {}))
                for c in _calls(parts)
            ]
            return EntryView(
                kind="message",
                role="assistant",
                text="\n".join(texts),
                tool_calls=calls,
                tokens=_tokens(record.get("usageMetadata")),
                **fields,
            )
        if kind in ("user", "tool_result"):
            responses = _responses(parts)
            if responses:
                result = record.get("toolCallResult")
                status = result.get("status") if isinstance(result, dict) else None
                first = responses[0]
                return EntryView(
                    kind="message",
                    role="tool",
                    text="\n".join(response_text(r.get("response")) for r in responses),
                    result_for=str(first.get("id") or "") or None,
                    is_error=status == "error" or _is_error(first.get("response")),
                    **fields,
                )
            text = "\n".join(p["text"] for p in parts if isinstance(p.get("text"), str))
            return EntryView(kind="message", role="user", text=text, **fields)
        subtype = record.get("subtype")
        text = f"[{subtype}]" if isinstance(subtype, str) else ""
        return EntryView(kind="system", role="system", text=text, **fields)

    def client_window(self, session: Session, entry: int) -> int | None:
        """The ``contextWindowSize`` Qwen Code records with each response."""
        found = session.record(entry).get("contextWindowSize")
        return found if isinstance(found, int) and not isinstance(found, bool) and found > 0 else None

    def unsearched(self, record: dict[str, Any]) -> bool:
        """Qwen Code's ``ui_telemetry`` (an API response's or a call's figures
        as events): never sent, and hit as a "system message" by any word."""
        return record.get("type") == "system" and record.get("subtype") == "ui_telemetry"

    def entry_response(
        self, session: Session, entry: int, record: dict[str, Any] | None = None
    ) -> tuple[str | int, Response] | None:
        record = session.record(entry) if record is None else record
        found = super().entry_response(session, entry, record)
        model = record.get("model") if found is not None else None
        if found is None or not isinstance(model, str):
            return found
        return found[0], dataclasses.replace(found[1], model=model)


def _is_error(response: object) -> bool:
    return isinstance(response, dict) and "error" in response


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _tokens(usage: object) -> dict[str, Any] | None:
    """``usageMetadata`` (Gemini's counts: the prompt includes the cached
    part, the candidates exclude thoughts) as the view's usage (its input
    holds the cache, as ``response_counts`` reads it)."""
    if not isinstance(usage, dict):
        return None
    prompt, cached = _int(usage.get("promptTokenCount")), _int(usage.get("cachedContentTokenCount"))
    out = _int(usage.get("candidatesTokenCount")) + _int(usage.get("thoughtsTokenCount"))
    if not (prompt or out):
        return None
    return {"input_tokens": prompt, "cache_read_input_tokens": cached, "output_tokens": out}


FORMAT = QwenFormat()
