"""`astorlm`: astorLM's ``<id>.jsonl`` + ``<id>.meta.json`` (docs/formats.md#astorlm).

One message per line, Anthropic-style content blocks; one linear history
per file (the file is the branch); a fork is another file whose
``meta.parentId`` names its source session. Tool results are ``tool_result``
blocks inside one ``user`` message answering all the calls before it.
"""

from __future__ import annotations

import os
from typing import Any

from ..entries.view import EntryView
from ..reading.records import read_object_file
from ..reading.segment import LineKind, Segment
from .anthropic_messages import AnthropicMessages, read_blocks, shape_of
from .base import LinearFile


def sidecar_of(path: str) -> dict[str, Any] | None:
    stem = path[: -len(".jsonl")] if path.endswith(".jsonl") else path
    return read_object_file(stem + ".meta.json")


class AstorlmFormat(AnthropicMessages, LinearFile):
    name = "astorlm"

    def sniff(self, objs: list[dict[str, Any]], path: str | None = None) -> bool:
        first = objs[0]
        if "role" not in first or "type" in first or not isinstance(first.get("content"), list):
            return False
        meta = sidecar_of(path) if path else None
        stem = os.path.basename(path)[: -len(".jsonl")] if path else None
        return bool(meta and meta.get("id") == stem and isinstance(meta.get("metadata"), dict))

    def classify(self, obj: dict[str, Any], line: int, seg: Segment) -> int:
        role = obj.get("role")
        if role not in ("user", "assistant", "system"):
            return LineKind.UNKNOWN
        seg.entry_lines.append(line)
        seg.shapes.append(shape_of(obj))
        return LineKind.ENTRY

    def entry_id(self, record: dict[str, Any]) -> str | None:
        entry_id = record.get("id")
        return entry_id if isinstance(entry_id, str) else None

    def view(self, record: dict[str, Any]) -> EntryView:
        texts, calls = read_blocks(record)
        results = self.tool_result_ids(record)
        role = "tool" if results else str(record.get("role", "?"))
        return EntryView(
            kind="message",
            role=role,
            text="\n".join(texts),
            id=self.entry_id(record),
            tool_calls=calls,
            result_for=results[0] if results else None,
        )


FORMAT = AstorlmFormat()
