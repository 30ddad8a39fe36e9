"""`opencode`: opencode 1.18.33 sessions (docs/formats.md, "opencode").

opencode keeps its sessions in SQLite (``opencode.db``, WAL mode): a
``session`` row, ``message`` rows (``data``: role, model, tokens, cost, time)
and ``part`` rows (``data.type``: ``text``, ``reasoning``, ``tool`` {callID,
tool, state{status: pending|running|completed|error, input, output, error,
metadata}}, ``step-start``, ``step-finish``). ``database.py``
presents one session as JSONL: a ``opencode.session`` header, then each
message followed by its parts, each record the child of the one before.

On resume opencode sends OpenAI Chat Completions: a user message of its
text parts; per assistant message one assistant message (``content`` the
text parts, ``""`` when none; ``reasoning_content`` the reasoning parts;
``tool_calls`` its tool parts) and one ``tool`` message per tool part in
order: the output, the error, or for a part left ``pending`` / ``running``
(a kill mid-tool) "[Tool execution was interrupted]". The context here is
the file's part of that; the interrupted results are the client's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC
from typing import Any

from ...entries.tokens import Response
from ...entries.view import EntryView, ToolCall
from ...errors import check_stop
from ...reading.segment import LineKind, Segment, Shape
from ..base import Format, Session
from ..openai_messages import SentMessages
from .client import CLIENT
from .database import HEADER

#: what opencode 1.18.33 sends for a tool part left pending or running
INTERRUPTED = "[Tool execution was interrupted]"
OPEN_STATES = ("pending", "running")
#: what it sends for a result its compaction cleared
COMPACTED = "[Old tool result content cleared]"
PARTS_SEARCHED = 4096  # parts of one message looked through for a call


def _data(record: dict[str, Any]) -> dict[str, Any]:
    data = record.get("data")
    return data if isinstance(data, dict) else {}


def _state(part: dict[str, Any]) -> dict[str, Any]:
    state = part.get("state")
    return state if isinstance(state, dict) else {}


def _arguments(value: object) -> str:
    return json.dumps(value if value is not None else {}, ensure_ascii=False, separators=(",", ":"))


def _result(part: dict[str, Any]) -> str | None:
    """What a tool part sends as its tool message (None: it is still open)."""
    state = _state(part)
    status = state.get("status")
    if status == "completed":
        stamps = state.get("time")
        if isinstance(stamps, dict) and stamps.get("compacted"):
            return COMPACTED
        output = state.get("output")
        return output if isinstance(output, str) else _arguments(output)
    if status == "error":
        metadata = state.get("metadata")
        partial = metadata.get("output") if isinstance(metadata, dict) and metadata.get("interrupted") is True else None
        if isinstance(partial, str):
            return partial  # (a call opencode aborted: what it had written so far)
        error = state.get("error")
        return error if isinstance(error, str) else _arguments(error)
    return None


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class OpencodeFormat(SentMessages, Format):
    INTERRUPTED = INTERRUPTED
    CLIENT_TITLE = CLIENT.title
    name = "opencode"
    parent_key = "parentId"
    marks_errors = True
    client = CLIENT
    fills_dangling = f'opencode will send "{INTERRUPTED}" for it on resume'
    torn_tail = None

    def sniff(self, objs: list[dict[str, Any]], path: str | None = None) -> bool:
        return bool(objs) and objs[0].get("type") == HEADER and isinstance(objs[0].get("session"), dict)

    def classify(self, obj: dict[str, Any], line: int, seg: Segment) -> int:
        uid = obj.get("id")
        kind = obj.get("type")
        if not isinstance(uid, str) or not uid:
            return LineKind.UNKNOWN
        parent = obj.get("parentId")
        data = _data(obj)
        if kind == HEADER:
            seg.header = seg.header or obj.get("session")
            title = obj.get("session", {}).get("title") if isinstance(obj.get("session"), dict) else None
            if isinstance(title, str) and title:
                seg.titles.append((line, 1, title, None))
            shape = Shape.SYSTEM | Shape.QUIET
        elif kind == "part":
            part = data.get("type")
            role = obj.get("role")
            if part == "tool":  # its call, and once it ended its result too (one part)
                ended = _state(data).get("status") in ("completed", "error")
                shape = Shape.ASSISTANT | Shape.CALLS | (Shape.RESULT if ended else 0)
            elif part in ("text", "reasoning"):
                shape = Shape.USER if role == "user" else Shape.ASSISTANT
            else:
                shape = Shape.SYSTEM | Shape.QUIET
        elif kind == "message":
            shape = Shape.SYSTEM | Shape.QUIET
        else:
            return LineKind.UNKNOWN
        seg.add_entry(line, uid, parent if isinstance(parent, str) else None, shape)
        return LineKind.ENTRY

    def entry_id(self, record: dict[str, Any]) -> str | None:
        found = record.get("id")
        return found if isinstance(found, str) else None

    def expected_root(self, record: dict[str, Any]) -> bool:
        return record.get("type") == HEADER

    def active_leaf(self, session: Session) -> int:
        return session.tree.count - 1

    def context(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
    ) -> list[tuple[int, dict[str, Any]]]:
        if leaf < 0:
            return []
        out: list[tuple[int, dict[str, Any]]] = []
        current: tuple[int, dict[str, Any]] | None = None
        results: list[tuple[int, dict[str, Any]]] = []
        texts: list[str] = []
        thoughts: list[str] = []

        def flush() -> None:
            nonlocal current
            if current is None:
                return
            entry, message = current
            if message["role"] == "user":
                if texts:
                    message["content"] = "\n".join(texts)
                    out.append((entry, message))
            else:
                message["content"] = "".join(texts)
                if thoughts:
                    message["reasoning_content"] = "".join(thoughts)
                if not message["tool_calls"]:
                    del message["tool_calls"]
                if texts or thoughts or "tool_calls" in message:
                    out.append((entry, message))
                out.extend(results)
            current = None
            results.clear()
            texts.clear()
            thoughts.clear()

        for n, entry in enumerate(session.tree.path_to(leaf)):
            check_stop(should_stop, n)
            record = session.record(entry)
            kind = record.get("type")
            data = _data(record)
            if kind == "message":
                flush()
                role = data.get("role")
                if role == "user":
                    current = (entry, {"role": "user", "content": ""})
                elif role == "assistant":
                    current = (entry, {"role": "assistant", "content": "", "tool_calls": []})
                continue
            if kind != "part" or current is None or data.get("synthetic") is True or data.get("ignored") is True:
                continue
            part = data.get("type")
            if part == "text" and isinstance(data.get("text"), str):
                texts.append(data["text"])
            elif part == "reasoning" and isinstance(data.get("text"), str) and current[1]["role"] == "assistant":
                thoughts.append(data["text"])
            elif part == "tool" and current[1]["role"] == "assistant":
                call_id = str(data.get("callID") or "")
                current[1]["tool_calls"].append(
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": str(data.get("tool") or ""),
                            "arguments": _arguments(_state(data).get("input")),
                        },
                    }
                )
                result = _result(data)
                if result is not None:
                    results.append((entry, {"role": "tool", "tool_call_id": call_id, "content": result}))
        flush()
        return out

    def call_entry(self, session: Session, entry: int, call_id: str) -> int:
        """The tool part of the message at ``entry`` that makes ``call_id``
        (its parts follow it, each the child of the one before)."""
        for n in range(entry + 1, min(session.tree.count, entry + 1 + PARTS_SEARCHED)):
            record = session.record(n)
            if record.get("type") != "part":
                break
            if _data(record).get("callID") == call_id:
                return n
        return entry

    def view(self, record: dict[str, Any]) -> EntryView:
        kind = record.get("type")
        data = _data(record)
        stamp = record.get("time_created")
        fields: dict[str, Any] = {
            "id": record.get("id"),
            "parent_id": record.get("parentId"),
            "time": _iso(stamp),
        }
        if kind == HEADER:
            found = record.get("session")
            session: dict[str, Any] = found if isinstance(found, dict) else {}
            return EntryView(kind="system", role="system", text=f"[session] {session.get('title', '')}", **fields)
        if kind == "message":
            tokens = _tokens(data) if data.get("role") == "assistant" else None
            return EntryView(
                kind="system",
                role="system",
                text=f"[{data.get('role', 'message')} message]",
                tokens=tokens,
                step=str(record.get("id")),
                **fields,
            )
        part = data.get("type")
        role = "user" if record.get("role") == "user" else "assistant"
        if part == "text":
            text = data.get("text")
            return EntryView(kind="message", role=role, text=text if isinstance(text, str) else "", **fields)
        if part == "reasoning":
            text = data.get("text")
            shown = text if isinstance(text, str) else "[reasoning]"
            return EntryView(kind="system", role="system", text=shown, **fields)
        if part == "tool":
            call_id = str(data.get("callID") or "")
            state = _state(data)
            call = ToolCall(call_id, str(data.get("tool") or ""), _arguments(state.get("input")))
            result = _result(data)
            text = result if result is not None else f"[{state.get('status', 'open')}]"
            return EntryView(
                kind="message",
                role="assistant",
                text=text,
                tool_calls=[call],
                result_for=call_id if result is not None else None,  # (the part is its call and its result)
                is_error=state.get("status") == "error",
                **fields,
            )
        return EntryView(kind="system", role="system", text=f"[{part}]", **fields)

    def entry_response(
        self, session: Session, entry: int, record: dict[str, Any] | None = None
    ) -> tuple[str | int, Response] | None:
        record = session.record(entry) if record is None else record
        if record.get("type") != "message":
            return None
        data = _data(record)
        view = self.view(record)
        if not view.tokens:
            return None
        model = data.get("modelID")
        provider = data.get("providerID")
        cost = data.get("cost")
        t = view.tokens
        return str(record.get("id")), Response(
            entry,
            model if isinstance(model, str) else None,
            provider if isinstance(provider, str) else None,
            t["input_tokens"],
            t["output_tokens"],
            t["cache_read_input_tokens"],
            t["cache_creation_input_tokens"],
            time=view.time,
            recorded_cost=(
                float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) and cost else None
            ),
        )


def _tokens(data: dict[str, Any]) -> dict[str, Any] | None:
    tokens = data.get("tokens")
    if not isinstance(tokens, dict):
        return None
    inner = tokens.get("cache")
    cache: dict[str, Any] = inner if isinstance(inner, dict) else {}
    found = {
        "input_tokens": _int(tokens.get("input")),
        "output_tokens": _int(tokens.get("output")) + _int(tokens.get("reasoning")),
        "cache_read_input_tokens": _int(cache.get("read")),
        "cache_creation_input_tokens": _int(cache.get("write")),
    }
    return found if any(found.values()) else None


def _iso(stamp: object) -> str | None:
    if not isinstance(stamp, int) or isinstance(stamp, bool) or stamp <= 0:
        return None
    from datetime import datetime

    try:
        return datetime.fromtimestamp(stamp / 1000, tz=UTC).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None


FORMAT = OpencodeFormat()
