"""`chat`: plain OpenAI chat-completions JSONL, one message per line.

No header, ids or parent links: the file is one linear branch, and the
active leaf is the last message. An optional ``<stem>.meta.json`` sidecar
is shown as found and never changed (docs/formats.md#chat).
"""

from __future__ import annotations

from typing import Any

from ..entries.view import EntryView
from ..reading.segment import LineKind, Segment
from .base import LinearFile
from .openai_messages import OpenAIMessages, message_view, shape_of


class ChatFormat(OpenAIMessages, LinearFile):
    name = "chat"

    def sniff(self, objs: list[dict[str, Any]], path: str | None = None) -> bool:
        first = objs[0]
        return "role" in first and "type" not in first

    def classify(self, obj: dict[str, Any], line: int, seg: Segment) -> int:
        if "role" not in obj:
            return LineKind.UNKNOWN
        seg.entry_lines.append(line)
        seg.shapes.append(shape_of(obj))
        return LineKind.ENTRY

    def entry_id(self, record: dict[str, Any]) -> str | None:
        return None

    def view(self, record: dict[str, Any]) -> EntryView:
        return message_view(record)


FORMAT = ChatFormat()
