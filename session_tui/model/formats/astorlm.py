"""`astorlm`: astorLM's ``<id>.jsonl`` + ``<id>.meta.json`` (formats.md §3).

One message per line, Anthropic-style content blocks; one linear history
per file (the file is the branch); a fork is another file whose
``meta.parentId`` names its source session. Tool results are ``tool_result``
blocks inside one ``user`` message answering all the calls before it.
"""

from __future__ import annotations

import os

import orjson

from ..entry_view import EntryView, ToolCall
from ..records import BadLine, parse_object
from ..segment import LineKind, Shape
from .base import LinearFile


def _blocks(message: dict) -> list[dict]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def sidecar_of(path: str) -> dict | None:
    stem = path[: -len(".jsonl")] if path.endswith(".jsonl") else path
    try:
        with open(stem + ".meta.json", "rb") as f:
            meta = parse_object(f.read(1 << 20).strip())
    except (OSError, BadLine):
        return None
    return meta


class AstorlmFormat(LinearFile):
    name = "astorlm"

    def sniff(self, objs: list[dict], path: str | None = None) -> bool:
        first = objs[0]
        if "role" not in first or "type" in first or not isinstance(first.get("content"), list):
            return False
        meta = sidecar_of(path) if path else None
        stem = os.path.basename(path)[: -len(".jsonl")] if path else None
        return bool(meta and meta.get("id") == stem and isinstance(meta.get("metadata"), dict))

    def classify(self, obj: dict, line: int, seg) -> int:
        role = obj.get("role")
        if role not in ("user", "assistant", "system"):
            return LineKind.UNKNOWN
        kinds = {b.get("type") for b in _blocks(obj)}
        shape = {"user": Shape.USER, "assistant": Shape.ASSISTANT, "system": Shape.SYSTEM}[role]
        if role == "assistant" and "tool_use" in kinds:
            shape |= Shape.CALLS
        if role == "user" and "tool_result" in kinds:
            shape = Shape.TOOL | Shape.RESULT
        seg.entry_lines.append(line)
        seg.shapes.append(shape)
        return LineKind.ENTRY

    def entry_id(self, record: dict) -> str | None:
        entry_id = record.get("id")
        return entry_id if isinstance(entry_id, str) else None

    def tool_call_ids(self, message: dict) -> list[str]:
        if message.get("role") != "assistant":
            return []
        return [b["id"] for b in _blocks(message) if b.get("type") == "tool_use" and isinstance(b.get("id"), str)]

    def tool_result_id(self, message: dict) -> str | None:
        ids = self.tool_result_ids(message)
        return ids[0] if ids else None

    def tool_result_ids(self, message: dict) -> list[str]:
        if message.get("role") != "user":
            return []
        return [b["tool_use_id"] for b in _blocks(message)
                if b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str)]

    def view(self, record: dict) -> EntryView:
        texts, calls = [], []
        for block in _blocks(record):
            kind = block.get("type")
            if kind == "text":
                texts.append(str(block.get("text", "")))
            elif kind == "thinking":
                texts.append("[thinking] " + str(block.get("thinking", "")))
            elif kind == "redacted_thinking":
                texts.append("[redacted thinking]")
            elif kind == "tool_use":
                calls.append(ToolCall(str(block.get("id", "")), str(block.get("name", "?")),
                                      orjson.dumps(block.get("input")).decode()))
            elif kind == "tool_result":
                error = " [error]" if block.get("is_error") else ""
                texts.append(f"{block.get('tool_use_id')}{error}: {block.get('content', '')}")
        results = self.tool_result_ids(record)
        role = "tool" if results else str(record.get("role", "?"))
        return EntryView(kind="message", role=role, text="\n".join(texts), id=self.entry_id(record),
                         tool_calls=calls, result_for=results[0] if results else None)


FORMAT = AstorlmFormat()
