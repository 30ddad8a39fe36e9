"""`pi`: pi coding agent sessions, versions 1 to 3 (docs/formats.md#pi).

A header line, then entries linked by ``id``/``parentId``: messages
(AgentMessage: roles user, assistant, toolResult, bashExecution, custom),
``compaction`` and ``branch_summary`` (summary nodes), model and thinking
level changes, labels, session info, custom entries. The active leaf is not
stored: it is the last entry in file order.

Older files are read as pi migrates them when it loads them, in memory
only: version 1 (no ``version`` in the header) has no ids, so each entry
gets one from its place among the file's records (the header is record 0)
and the entry before it as parent, and a compaction's
``firstKeptEntryIndex`` names the record of that index; version 2's
``hookMessage`` role is version 3's ``custom``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...entries.view import EntryView, ToolCall, content_text
from ...errors import check_stop
from ...reading import json_text
from ...reading.records import name_of
from ...reading.segment import LineKind, Segment, Shape
from ..base import CONTINUED, Compacted, Format, Sent, Session, path_up
from .client import CLIENT
from .resume import SKIPPED_STOPS, calls_of, resume_model_of, sent_on_resume

SUMMARY_TYPES = ("compaction", "branch_summary")
# keys looked up with any JSON value
_ROLES: dict[Any, int] = {"user": Shape.USER, "assistant": Shape.ASSISTANT, "toolResult": Shape.TOOL | Shape.RESULT}
#: the ``customType`` of the custom entry session-tui appends to move pi's leaf (set-leaf, Cut back)
LEAF_CUSTOM_TYPE = "session-tui/leaf"
V1_ID = "#"  # ids given to version-1 entries: "#" + the record's index in the file


def version(header: dict[str, Any] | None) -> int:
    """The session format version a header declares (none: 1)."""
    value = (header or {}).get("version")
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def _migrated(record: dict[str, Any]) -> dict[str, Any]:
    """A version-1/2 record as pi's migration leaves it (ids aside)."""
    message = record.get("message")
    if record.get("type") == "message" and isinstance(message, dict) and message.get("role") == "hookMessage":
        return {**record, "message": {**message, "role": "custom"}}
    return record


class PiFormat(Format):
    name = "pi"
    marks_errors = True
    parent_key = "parentId"
    stateful = True  # version-1 files: ids from each record's place in the file
    client = CLIENT

    def compaction(self, session: Session, entry: int, record: dict[str, Any]) -> Compacted | None:
        """A ``compaction``: its span the path entries before ``firstKeptEntryId``,
        back to the previous compaction's ``firstKeptEntryId``."""
        if record.get("type") != "compaction":
            return None
        summary = str(record.get("summary") or "")
        path = list(path_up(session, entry))[::-1]  # root side first, the compaction last
        kept = session.find(str(record.get("firstKeptEntryId") or ""))
        if kept is None or kept not in path:
            return Compacted(summary, [], CONTINUED)
        start = 0
        for k, node in enumerate(path[: path.index(kept)]):
            earlier = session.record(node)
            if earlier.get("type") == "compaction" and node != entry:
                before = session.find(str(earlier.get("firstKeptEntryId") or ""))
                start = path.index(before) if before in path else k + 1
        span = [n for n in path[start : path.index(kept)] if session.record(n).get("type") != "compaction"]
        return Compacted(summary, span)

    fills_dangling = 'pi will send "No result provided" (an error result) for it on resume'
    torn_tail = (
        "error",
        "pi skips it on resume, then writes its next entry right after these bytes: the two become "
        "one bad line and that entry is lost on the next load (dropping the torn line removes it)",
    )

    def sniff(self, objs: list[dict[str, Any]], path: str | None = None) -> bool:
        first = objs[0]
        return first.get("type") == "session" and "timestamp" in first and "createdAt" not in first

    def classify(self, obj: dict[str, Any], line: int, seg: Segment) -> int:
        kind = obj.get("type")
        state = seg.state
        index = state.get("records", 0)  # pi counts every JSON record, the header included
        state["records"] = index + 1
        if kind == "session":
            if seg.header is None:
                seg.header = obj
            state.setdefault("version", version(obj))
            return LineKind.HEADER
        entry_id: object  # any JSON value until checked
        if state.get("version", 3) < 2:  # no ids: pi's migration, in memory
            entry_id, parent = V1_ID + str(index), state.get("last")
            state["last"] = entry_id
        else:
            entry_id, parent = obj.get("id"), obj.get("parentId")
            if not isinstance(entry_id, str) or not entry_id:
                return LineKind.UNKNOWN
        if kind == "message":
            message = found if isinstance(found := obj.get("message"), dict) else {}
            shape = _ROLES.get(name_of(message.get("role")), Shape.OTHER)
            if calls_of(message):
                shape |= Shape.CALLS
        elif kind in SUMMARY_TYPES:
            shape = Shape.SUMMARY
        else:
            shape = Shape.OTHER
            if kind == "custom" and obj.get("customType") == LEAF_CUSTOM_TYPE:
                shape |= Shape.QUIET  # session-tui's own leaf pointer: no step of the conversation
            if kind == "session_info" and isinstance(obj.get("name"), str):
                seg.titles.append((line, 1, obj["name"], None))
        seg.add_entry(line, entry_id, parent if isinstance(parent, str) else None, shape)
        return LineKind.ENTRY

    def entry_id(self, record: dict[str, Any]) -> str | None:
        return record.get("id")

    def is_leaf_pointer(self, record: dict[str, Any]) -> bool:
        return record.get("type") == "custom" and record.get("customType") == LEAF_CUSTOM_TYPE

    def leaf_pointers(self, session: Session) -> int:
        return session.tree.quiet  # (the only records ``classify`` marks quiet)

    def read_only(self, session: Session) -> str | None:
        found = version(session.header)
        return (
            f"a version-{found} pi session: pi migrates it in memory when it loads it, and session-tui "
            "writes no records in an older version"
            if found < 3
            else None
        )

    def _v1(self, session: Session) -> bool:
        return version(session.header) < 2

    def kept_entry(self, session: Session, record: dict[str, Any]) -> int | None:
        """The entry a compaction keeps from (version 1: by record index)."""
        if self._v1(session):
            index = record.get("firstKeptEntryIndex")
            return session.tree.find(V1_ID + str(index)) if isinstance(index, int) else None
        kept = record.get("firstKeptEntryId")
        return session.find(kept) if isinstance(kept, str) else None

    def active_leaf(self, session: Session) -> int:
        return session.tree.count - 1

    def origin(self, session: Session) -> str | None:
        parent = (session.header or {}).get("parentSession")
        return parent if isinstance(parent, str) and parent else None

    def context(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
    ) -> list[tuple[int, dict[str, Any]]]:
        """pi's buildSessionContext: from the last compaction on the path, its
        summary, the kept messages from ``firstKeptEntryId``, then the rest."""
        path = session.tree.path_to(leaf)
        records: dict[int, dict[str, Any]] = {}
        start = 0
        summary_at = None
        for k in range(len(path) - 1, -1, -1):
            if session.tree.shape[path[k]] == Shape.SUMMARY:
                record = session.record(path[k])
                if record.get("type") == "compaction":
                    records[path[k]] = record
                    summary_at = k
                    kept = self.kept_entry(session, record)
                    start = path.index(kept) if kept is not None and kept in path[:k] else k + 1
                    break
        out: list[tuple[int, dict[str, Any]]] = []
        if summary_at is not None:
            compaction = records[path[summary_at]]
            out.append(
                (
                    path[summary_at],
                    {
                        "role": "compactionSummary",
                        "summary": compaction.get("summary", ""),
                        "tokensBefore": compaction.get("tokensBefore"),
                    },
                )
            )
        for n, k in enumerate(range(start, len(path))):
            check_stop(should_stop, n)
            if k == summary_at:
                continue
            record = _migrated(session.record(path[k]))
            message = self._context_message(record)
            if message is not None:
                out.append((path[k], message))
        return out

    def context_tail(self, session: Session, entries: list[int]) -> list[tuple[int, dict[str, Any]]] | None:
        if any(session.tree.shape[entry] == Shape.SUMMARY for entry in entries):
            return None  # a compaction starts the context again
        messages = ((entry, self._context_message(_migrated(session.record(entry)))) for entry in entries)
        return [(entry, message) for entry, message in messages if message is not None]

    @staticmethod
    def _context_message(record: dict[str, Any]) -> dict[str, Any] | None:
        kind = record.get("type")
        if kind == "message":
            message = record.get("message")
            if not isinstance(message, dict) or message.get("stopReason") in SKIPPED_STOPS:
                return None
            if message.get("role") == "bashExecution" and message.get("excludeFromContext"):
                return None
            return message
        if kind == "branch_summary":  # pi's AgentMessages: sent as user text in pi's own wrapping
            return {"role": "branchSummary", "summary": record["summary"]} if record.get("summary") else None
        if kind == "custom_message":
            return {"role": "custom", "customType": record.get("customType"), "content": record.get("content", "")}
        return None

    def resume(self, session: Session, items: list[tuple[int, dict[str, Any]]]) -> list[Sent]:
        return sent_on_resume(session, items)

    def resume_model(self, session: Session, items: list[tuple[int, dict[str, Any]]]) -> str | None:
        model = resume_model_of(session, items)
        if model is None or session.resume_model:
            return model
        return f"{model} (the session's last model; export --model PROVIDER/MODEL for another)"

    def tool_call_ids(self, message: dict[str, Any]) -> list[str]:
        if message.get("role") != "assistant":
            return []
        return [b["id"] for b in calls_of(message) if isinstance(b.get("id"), str)]

    def tool_result_id(self, message: dict[str, Any]) -> str | None:
        call_id = message.get("toolCallId")
        return call_id if message.get("role") == "toolResult" and isinstance(call_id, str) else None

    def view(self, record: dict[str, Any]) -> EntryView:
        fields: dict[str, Any] = {
            "id": record.get("id"),
            "parent_id": record.get("parentId"),
            "time": record.get("timestamp"),
        }
        kind: Any = record.get("type")  # any JSON value
        if kind == "message" and isinstance(record.get("message"), dict):
            message = record["message"]
            role = message.get("role", "?")
            content = message.get("content")
            texts, calls = [], []
            if isinstance(content, list):
                for block in content:
                    if not isinstance(block, dict):
                        continue
                    if block.get("type") == "toolCall":
                        arguments = block.get("arguments")
                        calls.append(
                            ToolCall(
                                str(block.get("id", "")),
                                str(block.get("name", "?")),
                                json_text.dumps(arguments) if not isinstance(arguments, str) else arguments,
                            )
                        )
                    elif block.get("type") == "thinking":
                        texts.append("[thinking] " + str(block.get("thinking", "")))
                    else:
                        texts.append(content_text([block]))
            else:
                texts.append(content_text(content) if content is not None else str(message.get("output", "")))
            usage = message.get("usage") if isinstance(message.get("usage"), dict) else None
            tokens = _tokens(usage) if usage else None
            if message.get("stopReason") in SKIPPED_STOPS:
                texts.append(f"[{message['stopReason']}: not replayed] {message.get('errorMessage', '')}")
            return EntryView(
                kind="message",
                role="tool" if role == "toolResult" else role,
                text="\n".join(texts),
                tool_calls=calls if message.get("stopReason") not in SKIPPED_STOPS else [],
                result_for=self.tool_result_id(message),
                is_error=role == "toolResult" and message.get("isError") is True,
                tokens=tokens,
                **fields,
            )
        if kind in SUMMARY_TYPES:
            return EntryView(
                kind="summary",
                role="summary",
                text=str(record.get("summary", "")),
                tokens_before=record.get("tokensBefore") if isinstance(record.get("tokensBefore"), int) else None,
                **fields,
            )
        text = {
            "model_change": f"model → {record.get('provider', '?')}/{record.get('modelId', '?')}",
            "thinking_level_change": f"thinking level → {record.get('thinkingLevel', '?')}",
            "label": f"label {record.get('label')!r} on {record.get('targetId')}",
            "session_info": f"session name: {record.get('name')}",
            "custom": f"custom entry ({record.get('customType')})",
            "custom_message": content_text(record.get("content")),
        }.get(name_of(kind) or "", f"{kind} record")
        return EntryView(kind=str(kind), role=str(kind), text=text, **fields)


def _tokens(usage: dict[str, Any]) -> dict[str, Any]:
    """pi's usage under the common keys: its ``input`` is the uncached part
    (the cache is kept apart), its ``cost`` the client's own figure."""
    cost = usage.get("cost")
    return {
        "input_tokens": usage.get("input"),
        "uncached_input_tokens": usage.get("input"),
        "output_tokens": usage.get("output"),
        "cache_read_input_tokens": usage.get("cacheRead"),
        "cache_creation_input_tokens": usage.get("cacheWrite"),
        "cost_usd": cost.get("total") if isinstance(cost, dict) else None,
    }


FORMAT = PiFormat()
