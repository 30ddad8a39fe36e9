"""`pi`: pi coding agent sessions, version 3 (formats.md §4).

A header line, then entries linked by ``id``/``parentId``: messages
(AgentMessage: roles user, assistant, toolResult, bashExecution, custom),
``compaction`` and ``branch_summary`` (summary nodes), model and thinking
level changes, labels, session info, custom entries. The active leaf is not
stored: it is the last entry in file order.
"""

from __future__ import annotations

import orjson

from ..entry_view import EntryView, ToolCall, content_text
from ..segment import LineKind, Shape
from .base import Format, check_stop

SUMMARY_TYPES = ("compaction", "branch_summary")
SKIPPED_STOPS = ("error", "aborted")  # pi never replays these assistant messages
_ROLES = {"user": Shape.USER, "assistant": Shape.ASSISTANT, "toolResult": Shape.TOOL | Shape.RESULT}


def _calls(message: dict) -> list[dict]:
    content = message.get("content")
    if not isinstance(content, list) or message.get("stopReason") in SKIPPED_STOPS:
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "toolCall"]


class PiFormat(Format):
    name = "pi"

    def sniff(self, objs: list[dict], path: str | None = None) -> bool:
        first = objs[0]
        return first.get("type") == "session" and "timestamp" in first and "createdAt" not in first

    def classify(self, obj: dict, line: int, seg) -> int:
        kind = obj.get("type")
        if kind == "session":
            if seg.header is None:
                seg.header = obj
            return LineKind.HEADER
        entry_id = obj.get("id")
        if not isinstance(entry_id, str) or not entry_id:
            return LineKind.UNKNOWN
        if kind == "message":
            message = obj.get("message") if isinstance(obj.get("message"), dict) else {}
            shape = _ROLES.get(message.get("role"), Shape.OTHER)
            if _calls(message):
                shape |= Shape.CALLS
        elif kind in SUMMARY_TYPES:
            shape = Shape.SUMMARY
        else:
            shape = Shape.OTHER
            if kind == "session_info" and isinstance(obj.get("name"), str):
                seg.titles.append((line, 1, obj["name"], None))
        parent = obj.get("parentId")
        seg.add_entry(line, entry_id, parent if isinstance(parent, str) else None, shape)
        return LineKind.ENTRY

    def entry_id(self, record: dict) -> str | None:
        return record.get("id")

    def active_leaf(self, session) -> int:
        return session.tree.count - 1

    def origin(self, session) -> str | None:
        parent = (session.header or {}).get("parentSession")
        return parent if isinstance(parent, str) and parent else None

    def context(self, session, leaf: int, should_stop=None) -> list[tuple[int, dict]]:
        """pi's buildSessionContext: from the last compaction on the path, its
        summary, the kept messages from ``firstKeptEntryId``, then the rest."""
        path = session.tree.path_to(leaf)
        records = {}
        start = 0
        summary_at = None
        for k in range(len(path) - 1, -1, -1):
            if session.tree.shape[path[k]] == Shape.SUMMARY:
                record = session.record(path[k])
                if record.get("type") == "compaction":
                    records[path[k]] = record
                    summary_at = k
                    kept = session.find(record.get("firstKeptEntryId")) if isinstance(
                        record.get("firstKeptEntryId"), str) else None
                    start = path.index(kept) if kept in path[:k] else k + 1
                    break
        out: list[tuple[int, dict]] = []
        if summary_at is not None:
            out.append((path[summary_at], {"role": "user", "content": records[path[summary_at]].get("summary", "")}))
        for n, k in enumerate(range(start, len(path))):
            check_stop(should_stop, n)
            if k == summary_at:
                continue
            record = session.record(path[k])
            message = self._context_message(record)
            if message is not None:
                out.append((path[k], message))
        return out

    @staticmethod
    def _context_message(record: dict) -> dict | None:
        kind = record.get("type")
        if kind == "message":
            message = record.get("message")
            if not isinstance(message, dict) or message.get("stopReason") in SKIPPED_STOPS:
                return None
            if message.get("role") == "bashExecution" and message.get("excludeFromContext"):
                return None
            return message
        if kind == "branch_summary":
            return {"role": "user", "content": record.get("summary", "")}
        if kind == "custom_message":
            return {"role": "user", "content": record.get("content", "")}
        return None

    def tool_call_ids(self, message: dict) -> list[str]:
        if message.get("role") != "assistant":
            return []
        return [b["id"] for b in _calls(message) if isinstance(b.get("id"), str)]

    def tool_result_id(self, message: dict) -> str | None:
        if message.get("role") == "toolResult" and isinstance(message.get("toolCallId"), str):
            return message["toolCallId"]
        return None

    def view(self, record: dict) -> EntryView:
        fields = {"id": record.get("id"), "parent_id": record.get("parentId"), "time": record.get("timestamp")}
        kind = record.get("type")
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
                        calls.append(ToolCall(str(block.get("id", "")), str(block.get("name", "?")),
                                              orjson.dumps(arguments).decode() if not isinstance(arguments, str)
                                              else arguments))
                    elif block.get("type") == "thinking":
                        texts.append("[thinking] " + str(block.get("thinking", "")))
                    else:
                        texts.append(content_text([block]))
            else:
                texts.append(content_text(content) if content is not None else str(message.get("output", "")))
            usage = message.get("usage") if isinstance(message.get("usage"), dict) else None
            tokens = {"input_tokens": usage.get("input"), "output_tokens": usage.get("output")} if usage else None
            if message.get("stopReason") in SKIPPED_STOPS:
                texts.append(f"[{message['stopReason']}: not replayed] {message.get('errorMessage', '')}")
            return EntryView(kind="message", role={"toolResult": "tool"}.get(role, role), text="\n".join(texts),
                             tool_calls=calls if message.get("stopReason") not in SKIPPED_STOPS else [],
                             result_for=self.tool_result_id(message), tokens=tokens, **fields)
        if kind in SUMMARY_TYPES:
            return EntryView(kind="summary", role="summary", text=str(record.get("summary", "")),
                             tokens_before=record.get("tokensBefore") if isinstance(record.get("tokensBefore"), int)
                             else None, **fields)
        text = {
            "model_change": f"model → {record.get('provider', '?')}/{record.get('modelId', '?')}",
            "thinking_level_change": f"thinking level → {record.get('thinkingLevel', '?')}",
            "label": f"label {record.get('label')!r} on {record.get('targetId')}",
            "session_info": f"session name: {record.get('name')}",
            "custom": f"custom entry ({record.get('customType')})",
            "custom_message": content_text(record.get("content")),
        }.get(kind, f"{kind} record")
        return EntryView(kind=str(kind), role=str(kind), text=text, **fields)


FORMAT = PiFormat()
