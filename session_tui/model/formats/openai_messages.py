"""OpenAI chat-completions messages: the `tree` and `chat` formats' records,
and the messages Copilot CLI, opencode and Qwen Code send on resume."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..entries.view import EntryView, ToolCall, content_text
from ..reading.records import name_of
from ..reading.segment import Shape
from .base import Sent

if TYPE_CHECKING:  # pragma: no cover
    from .base import Session

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


class SentMessages:
    """Tool pairing and the resume of formats whose context is the Chat
    Completions messages their client sends (calls on ``assistant`` messages,
    results in ``tool`` ones). ``resume`` answers each call left without a
    result with ``INTERRUPTED``, in its result's place, as the client does."""

    INTERRUPTED = ""  # the client's words for a call it found without a result
    CLIENT_TITLE = ""

    def tool_call_ids(self, message: dict[str, Any]) -> list[str]:
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        return [c["id"] for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str)] if calls else []

    def tool_result_id(self, message: dict[str, Any]) -> str | None:
        found = message.get("tool_call_id") if message.get("role") == "tool" else None
        return found if isinstance(found, str) else None

    def resume(self, session: Session, items: list[tuple[int, dict[str, Any]]]) -> list[Sent]:
        """The file's messages with a ``tool`` message of ``INTERRUPTED`` for
        each call left without one, in the place of its result."""
        out: list[Sent] = []
        calls: list[str] = []
        caller = -1
        answered: dict[str, Sent] = {}

        def close() -> None:
            for call_id in calls:
                if call_id in answered:
                    out.append(answered.pop(call_id))
                else:
                    message = {"role": "tool", "tool_call_id": call_id, "content": self.INTERRUPTED}
                    out.append(Sent(caller, message, self.CLIENT_TITLE))
            out.extend(answered.values())  # (results of calls of no response: as they are)
            answered.clear()
            calls.clear()

        for entry, message in items:
            if message.get("role") == "tool":
                answered[str(message.get("tool_call_id"))] = Sent(entry, message)
                continue
            close()
            if message.get("role") == "assistant":
                calls.extend(self.tool_call_ids(message))
                caller = entry
            out.append(Sent(entry, message))
        close()
        return out


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
