"""Anthropic Messages content blocks, shared by the `astorlm` and `claude`
formats: ``text``, ``thinking``, ``tool_use`` in assistant messages and
``tool_result`` blocks in the user message that answers them."""

from __future__ import annotations

from typing import Any

from ..entries.view import ToolCall, content_text
from ..reading import json_text
from ..reading.records import name_of
from ..reading.segment import Shape

# keys looked up with any JSON value
_ROLES: dict[Any, int] = {"user": Shape.USER, "assistant": Shape.ASSISTANT, "system": Shape.SYSTEM}


def blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def shape_of(message: dict[str, Any]) -> int:
    """Shape byte of one message: role, tool calls, tool results."""
    role = name_of(message.get("role"))
    kinds = {name_of(b.get("type")) for b in blocks(message)}
    if role == "user" and "tool_result" in kinds:
        return Shape.TOOL | Shape.RESULT
    shape = _ROLES.get(role, Shape.OTHER)
    if role == "assistant" and "tool_use" in kinds:
        shape |= Shape.CALLS
    return shape


def read_blocks(message: dict[str, Any]) -> tuple[list[str], list[ToolCall]]:
    """(texts, tool calls) of a message, every block kind named."""
    content = message.get("content")
    if not isinstance(content, list):
        return [content_text(content)], []
    texts: list[str] = []
    calls: list[ToolCall] = []
    results = sum(1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result")
    for block in content:
        if not isinstance(block, dict):
            texts.append(str(block))
            continue
        kind = block.get("type")
        if kind == "text":
            texts.append(str(block.get("text", "")))
        elif kind == "thinking":
            texts.append("[thinking] " + str(block.get("thinking", "")))
        elif kind == "redacted_thinking":
            texts.append("[redacted thinking]")
        elif kind == "tool_use":
            calls.append(
                ToolCall(str(block.get("id", "")), str(block.get("name", "?")), json_text.dumps(block.get("input")))
            )
        elif kind == "tool_result":  # named by its call id only when one message answers several
            named = f"{block.get('tool_use_id')}: " if results > 1 else ""
            error = "[error] " if block.get("is_error") else ""
            texts.append(f"{named}{error}{content_text(block.get('content'))}")
        else:
            texts.append(f"[{kind}]")
    return texts, calls


def failed_result(message: dict[str, Any]) -> bool:
    """Whether a user message answers a call with a result marked ``is_error``."""
    return any(b.get("type") == "tool_result" and b.get("is_error") is True for b in blocks(message))


class AnthropicMessages:
    """Tool pairing for formats whose messages hold Anthropic content blocks."""

    def tool_call_ids(self, message: dict[str, Any]) -> list[str]:
        if message.get("role") != "assistant":
            return []
        return [b["id"] for b in blocks(message) if b.get("type") == "tool_use" and isinstance(b.get("id"), str)]

    def tool_result_id(self, message: dict[str, Any]) -> str | None:
        ids = self.tool_result_ids(message)
        return ids[0] if ids else None

    def tool_result_ids(self, message: dict[str, Any]) -> list[str]:
        if message.get("role") != "user":
            return []
        return [
            b["tool_use_id"]
            for b in blocks(message)
            if b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str)
        ]
