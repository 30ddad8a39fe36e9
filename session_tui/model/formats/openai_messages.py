"""OpenAI chat-completions messages, shared by the `tree` and `chat` formats."""

from __future__ import annotations

from typing import Any

from ..entries.view import EntryView, ToolCall, content_text
from ..reading.records import name_of
from ..reading.segment import Shape

# keys looked up with any JSON value
_OF_ROLE: dict[Any, int] = Shape.OF_ROLE
_OTHER = Shape.OTHER
_CALLS = Shape.CALLS


def shape_of(message: object) -> int:
    """Shape byte (role and tool flags) of one OpenAI chat message."""
    if type(message) is not dict:
        return Shape.NONE
    shape = _OF_ROLE.get(name_of(message.get("role")), _OTHER)
    if message.get("tool_calls"):
        shape |= _CALLS
    return shape


def tool_call_ids(message: dict[str, Any]) -> list[str]:
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return []
    return [c["id"] for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str)]


def tool_result_id(message: dict[str, Any]) -> str | None:
    if message.get("role") in ("tool", "function"):
        call_id = message.get("tool_call_id")
        return call_id if isinstance(call_id, str) else None
    return None


class OpenAIMessages:
    """Tool pairing for formats whose messages are OpenAI chat messages."""

    def tool_call_ids(self, message: dict[str, Any]) -> list[str]:
        return tool_call_ids(message)

    def tool_result_id(self, message: dict[str, Any]) -> str | None:
        return tool_result_id(message)


def message_view(message: dict[str, Any], **fields: Any) -> EntryView:
    """An OpenAI chat message as an EntryView."""
    calls: list[ToolCall] = []
    raw_calls = message.get("tool_calls")
    if isinstance(raw_calls, list):
        for call in raw_calls:
            if not isinstance(call, dict):
                continue
            function = found if isinstance(found := call.get("function"), dict) else {}
            arguments = function.get("arguments", "")
            calls.append(
                ToolCall(
                    str(call.get("id", "")),
                    str(function.get("name", "?")),
                    arguments if isinstance(arguments, str) else str(arguments),
                )
            )
    role = message.get("role")
    usage = message.get("usage")
    return EntryView(
        kind="message",
        role=role if isinstance(role, str) else "?",
        text=content_text(message.get("content")),
        tool_calls=calls,
        result_for=tool_result_id(message),
        tokens=usage if isinstance(usage, dict) else None,
        **fields,
    )
