"""`copilot`: GitHub Copilot CLI 1.0.102 session events (docs/formats.md, "Copilot CLI").

``~/.copilot/session-state/<sessionId>/events.jsonl`` (beside
``workspace.yaml``, ``checkpoints/``, ``rewind-file-snapshots/``): one event
a line, ``{type, data, id, timestamp, parentId}``, each the child of the one
before (``parentId``). The conversation is ``user.message`` (``content``, and
the ``transformedContent`` sent: the prompt after a ``<current_datetime>``),
``assistant.message`` (``content``, ``toolRequests[{toolCallId, name,
arguments}]``, ``reasoningText``) and ``tool.execution_complete``
(``toolCallId``, ``success``, ``result.content`` or ``error.message``);
the rest the model never sees: ``session.start`` / ``session.resume`` (the
cwd, the model), ``system.message`` (the system prompt it sends afresh),
``assistant.turn_start`` / ``turn_end``, ``tool.execution_start``,
``session.usage_record`` (one per model call: tokens), ``session.model_change``,
``session.warning``, ``session.shutdown`` (the session's model metrics).

Copilot CLI resumes the chain that ends at the file's last event and sends
it as OpenAI Chat Completions (BYOK): a user message of the transformed
text, an assistant message (``content`` or null, ``tool_calls``), one
``tool`` message per call in the order of the calls. A call without a
completion gets one on resume, which it also appends to the file (a
``tool.execution_complete`` with ``error.code: "interrupted"`` and a
``session.warning``): "Tool execution was interrupted before a result was
recorded. …". The context here is in that form.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from ...entries.tokens import Response
from ...entries.view import EntryView, ToolCall
from ...errors import check_stop
from ...reading.segment import LineKind, Segment, Shape
from ..base import Format, Session
from ..openai_messages import SentMessages
from .client import CLIENT

#: what Copilot CLI 1.0.102 sends (and appends) on resume for a call whose result is not in the file
INTERRUPTED = (
    "Tool execution was interrupted before a result was recorded. Its effects may be absent, partial, or "
    "already complete, and other tools may have completed successfully. Check the current state before "
    "retrying; do not assume success or replay this operation blindly."
)
#: what it sends for a recorded interruption (``error.code: "interrupted"``) once a later
#: prompt follows it (before that: the completion's own ``error.message``)
WAS_INTERRUPTED = "The execution of this tool, or a previous tool was interrupted."
#: event types only Copilot CLI writes: one of them in a file's first events
KNOWN = frozenset(
    (
        "session.start",
        "session.resume",
        "user.message",
        "system.message",
        "assistant.message",
        "assistant.turn_start",
        "assistant.turn_end",
        "assistant.reasoning",
        "tool.execution_start",
        "tool.execution_complete",
        "session.usage_record",
        "session.model_change",
        "session.shutdown",
        "session.warning",
        "session.info",
    )
)


def _data(record: dict[str, Any]) -> dict[str, Any]:
    data = record.get("data")
    return data if isinstance(data, dict) else {}


def is_copilot(obj: dict[str, Any]) -> bool:
    """A Copilot CLI event: ``type``, ``data``, ``id``, ``parentId`` and a known dotted type."""
    kind = obj.get("type")
    return isinstance(kind, str) and kind in KNOWN and isinstance(obj.get("data"), dict) and "parentId" in obj


def _requests(data: dict[str, Any]) -> list[dict[str, Any]]:
    found = data.get("toolRequests")
    return [r for r in found if isinstance(r, dict)] if isinstance(found, list) else []


def arguments(value: object) -> str:
    """A request's ``arguments`` as the tool call's JSON text (compact, as sent)."""
    if isinstance(value, str):
        return value
    return json.dumps(value if value is not None else {}, ensure_ascii=False, separators=(",", ":"))


def result_text(data: dict[str, Any]) -> str:
    """What a ``tool.execution_complete`` sends as the tool message's text."""
    result, error = data.get("result"), data.get("error")
    if isinstance(result, dict) and isinstance(result.get("content"), str):
        return str(result["content"])
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    if isinstance(error, str):
        return error
    return json.dumps(result if result is not None else error, ensure_ascii=False)


def _interrupted(record: dict[str, Any]) -> bool:
    error = _data(record).get("error")
    return isinstance(error, dict) and error.get("code") == "interrupted"


def chat_message(record: dict[str, Any]) -> dict[str, Any] | None:
    """The Chat Completions message Copilot CLI makes of one event (None: none)."""
    kind = record.get("type")
    data = _data(record)
    if kind == "user.message":
        text = data.get("transformedContent")
        if not isinstance(text, str):
            text = data.get("content") if isinstance(data.get("content"), str) else ""
        return {"role": "user", "content": text}
    if kind == "assistant.message":
        content = data.get("content")
        message: dict[str, Any] = {
            "role": "assistant",
            "content": content if isinstance(content, str) and content else None,
        }
        calls = [
            {
                "id": str(r.get("toolCallId") or ""),
                "type": "function",
                "function": {"name": str(r.get("name") or ""), "arguments": arguments(r.get("arguments"))},
            }
            for r in _requests(data)
        ]
        if calls:
            message["tool_calls"] = calls
        return message
    if kind == "tool.execution_complete":
        return {"role": "tool", "tool_call_id": str(data.get("toolCallId") or ""), "content": result_text(data)}
    return None


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _usage(data: dict[str, Any]) -> dict[str, Any] | None:
    """A ``session.usage_record``'s usage as the view's tokens (its input holds the cache)."""
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return None
    tokens = {
        "input_tokens": _int(usage.get("inputTokens")),
        "output_tokens": _int(usage.get("outputTokens")),
        "cache_read_input_tokens": _int(usage.get("cacheReadTokens")),
        "cache_creation_input_tokens": _int(usage.get("cacheWriteTokens")),
    }
    return tokens if any(tokens.values()) else None


class CopilotFormat(SentMessages, Format):
    INTERRUPTED = INTERRUPTED
    CLIENT_TITLE = CLIENT.title
    name = "copilot"
    parent_key = "parentId"
    marks_errors = True
    client = CLIENT
    responses_by_entry = False  # (a file without usage records is priced from its shutdown's metrics)
    fills_dangling = f'Copilot CLI will send and append an error result for it on resume ("{INTERRUPTED[:40]}…")'
    torn_tail = ("warning", "Copilot CLI leaves it out on resume and cuts it from the file")

    def sniff(self, objs: list[dict[str, Any]], path: str | None = None) -> bool:
        return any(is_copilot(obj) for obj in objs[:20])

    def classify(self, obj: dict[str, Any], line: int, seg: Segment) -> int:
        uid = obj.get("id")
        kind = obj.get("type")
        if not isinstance(uid, str) or not uid or not isinstance(kind, str):
            return LineKind.UNKNOWN
        parent = obj.get("parentId")
        if kind == "user.message":
            shape = Shape.USER
        elif kind == "assistant.message":
            shape = Shape.ASSISTANT | (Shape.CALLS if _requests(_data(obj)) else 0)
        elif kind == "tool.execution_complete":
            shape = Shape.TOOL | Shape.RESULT
        else:
            shape = Shape.SYSTEM | Shape.QUIET
        seg.add_entry(line, uid, parent if isinstance(parent, str) else None, shape)
        return LineKind.ENTRY

    def entry_id(self, record: dict[str, Any]) -> str | None:
        found = record.get("id")
        return found if isinstance(found, str) else None

    def expected_root(self, record: dict[str, Any]) -> bool:
        return record.get("type") == "session.start"

    def active_leaf(self, session: Session) -> int:
        """Where Copilot CLI resumes: the chain ending at the file's last event."""
        return session.tree.count - 1

    def context(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
    ) -> list[tuple[int, dict[str, Any]]]:
        if leaf < 0:
            return []
        return self._ordered(session, session.tree.path_to(leaf), should_stop)

    def _ordered(
        self, session: Session, entries: Iterable[int], should_stop: Callable[[], bool] | None = None
    ) -> list[tuple[int, dict[str, Any]]]:
        """The messages of ``entries``, each response's tool messages in the order of its calls."""
        out: list[tuple[int, dict[str, Any]]] = []
        results: list[tuple[int, dict[str, Any]]] = []
        order: dict[str, int] = {}
        interrupted: list[int] = []  # positions in ``out`` of recorded interruptions
        last_prompt = -1

        def flush() -> None:
            results.sort(key=lambda item: order.get(str(item[1].get("tool_call_id")), len(order)))
            for entry, message in results:
                if _interrupted(session.record(entry)):
                    interrupted.append(len(out))
                out.append((entry, message))
            results.clear()

        for n, entry in enumerate(entries):
            check_stop(should_stop, n)
            if session.tree.shape[entry] & Shape.QUIET:
                continue
            message = chat_message(session.record(entry))
            if message is None:
                continue
            if message["role"] == "tool":
                results.append((entry, message))
                continue
            flush()
            if message["role"] == "assistant":
                order = {call_id: k for k, call_id in enumerate(self.tool_call_ids(message))}
            elif message["role"] == "user":
                last_prompt = len(out)
            out.append((entry, message))
        flush()
        for k in interrupted:
            if k < last_prompt:
                out[k] = (out[k][0], {**out[k][1], "content": WAS_INTERRUPTED})
        return out

    def view(self, record: dict[str, Any]) -> EntryView:
        kind = record.get("type")
        data = _data(record)
        fields: dict[str, Any] = {
            "id": record.get("id"),
            "parent_id": record.get("parentId"),
            "time": record.get("timestamp"),
        }
        if kind == "user.message":
            text = data.get("content")
            return EntryView(kind="message", role="user", text=text if isinstance(text, str) else "", **fields)
        if kind == "assistant.message":
            content = data.get("content")
            calls = [
                ToolCall(str(r.get("toolCallId") or ""), str(r.get("name") or ""), arguments(r.get("arguments")))
                for r in _requests(data)
            ]
            text = content if isinstance(content, str) else ""
            return EntryView(kind="message", role="assistant", text=text, tool_calls=calls, **fields)
        if kind == "tool.execution_complete":
            call_id = data.get("toolCallId")
            return EntryView(
                kind="message",
                role="tool",
                text=result_text(data),
                result_for=call_id if isinstance(call_id, str) and call_id else None,
                is_error=data.get("success") is False,
                **fields,
            )
        if kind == "session.usage_record":
            usage = data.get("usage")
            model = usage.get("model") if isinstance(usage, dict) else None
            return EntryView(
                kind="system",
                role="system",
                text=f"[usage {model or ''}]".replace(" ]", "]"),
                tokens=_usage(data),
                **fields,
            )
        if kind == "assistant.reasoning":
            content = data.get("content")
            return EntryView(
                kind="system", role="system", text=content if isinstance(content, str) else "[reasoning]", **fields
            )
        for key in ("message", "content", "newModel"):
            value = data.get(key)
            if isinstance(value, str) and kind != "system.message":
                return EntryView(kind="system", role="system", text=f"[{kind}] {value}", **fields)
        return EntryView(kind="system", role="system", text=f"[{kind}]", **fields)

    def client_window(self, session: Session, entry: int) -> int | None:
        """The ``maxPromptTokens`` a ``session.usage_record`` records: the
        prompt Copilot CLI lets the model's context grow to."""
        usage = _data(session.record(entry)).get("usage")
        found = _int(usage.get("maxPromptTokens")) if isinstance(usage, dict) else 0
        return found or None

    def entry_response(
        self, session: Session, entry: int, record: dict[str, Any] | None = None
    ) -> tuple[str | int, Response] | None:
        record = session.record(entry) if record is None else record
        if record.get("type") != "session.usage_record":
            return None
        found = super().entry_response(session, entry, record)
        usage = _data(record).get("usage")
        model = usage.get("model") if isinstance(usage, dict) else None
        if found is None or not isinstance(model, str):
            return found
        key, response = found
        return key, Response(
            response.entry,
            model,
            None,
            response.input,
            response.output,
            response.cache_read,
            response.cache_write,
            time=response.time,
        )

    def responses(self, session: Session, should_stop: Callable[[], bool] | None = None) -> list[Response]:
        """One per ``session.usage_record``; a file with none: one per model of
        each ``session.shutdown``'s ``modelMetrics`` (its totals since it started or resumed)."""
        found = super().responses(session, should_stop)
        if found:
            return found
        out: list[Response] = []
        for entry in range(session.tree.count):
            check_stop(should_stop, entry)
            record = session.record(entry)
            if record.get("type") != "session.shutdown":
                continue
            metrics = _data(record).get("modelMetrics")
            for model, metric in (metrics or {}).items() if isinstance(metrics, dict) else ():
                usage = metric.get("usage") if isinstance(metric, dict) else None
                if not isinstance(usage, dict):
                    continue
                read, write = _int(usage.get("cacheReadTokens")), _int(usage.get("cacheWriteTokens"))
                uncached = max(0, _int(usage.get("inputTokens")) - read - write)
                stamp = record.get("timestamp")
                out.append(
                    Response(
                        entry,
                        str(model),
                        None,
                        uncached,
                        _int(usage.get("outputTokens")),
                        read,
                        write,
                        time=stamp if isinstance(stamp, str) else None,
                    )
                )
        return out


FORMAT = CopilotFormat()
