"""The rules the model APIs apply to the conversation of a request, with
the real APIs' wording: a resumed file that breaks one is answered 400.

Anthropic Messages: every ``tool_use`` of an assistant message answered by a
``tool_result`` in the very next (user) message, every ``tool_result``
answering a ``tool_use`` of the message before it, no ``tool_use`` id twice.
OpenAI Responses: every call item has an output with its ``call_id`` and
every output a call.
OpenAI Chat Completions: an assistant message with ``tool_calls`` followed
by ``tool`` messages answering each ``tool_call_id`` before any other
message, every ``tool`` message answering a call of the assistant message
before that run of tool messages.
Gemini ``generateContent``: a model turn with N ``functionCall`` parts
followed by a turn of exactly N ``functionResponse`` parts (their ids the
calls' when both carry ids); a function response turn right after a
function call turn; a function call turn after a user or function response
turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..formats.client import ANTHROPIC as ANTHROPIC
from ..formats.client import CHAT as CHAT
from ..formats.client import GEMINI as GEMINI
from ..formats.client import RESPONSES as RESPONSES

_CALLS = {"function_call", "custom_tool_call", "local_shell_call", "tool_search_call"}
_OUTPUTS = {"function_call_output", "custom_tool_call_output", "tool_search_output"}


@dataclass(frozen=True)
class Violation:
    kind: str
    index: int  # the message or input item
    message: str  # the API's own wording


def _blocks(message: Any) -> list[dict[str, Any]]:
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def anthropic_violations(body: dict[str, Any]) -> list[Violation]:
    out: list[Violation] = []
    messages = body.get("messages")
    messages = messages if isinstance(messages, list) else []
    seen: set[object] = set()
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "assistant":
            ids = [b.get("id") for b in _blocks(message) if b.get("type") == "tool_use"]
            for tool_id in ids:
                if tool_id in seen:
                    out.append(
                        Violation("duplicate_tool_use_id", i, f"messages.{i}: `tool_use` ids must be unique: {tool_id}")
                    )
                seen.add(tool_id)
            nxt = messages[i + 1] if i + 1 < len(messages) else None
            answered = (
                {b.get("tool_use_id") for b in _blocks(nxt) if b.get("type") == "tool_result"}
                if isinstance(nxt, dict) and nxt.get("role") == "user"
                else set()
            )
            missing = [str(t) for t in ids if t not in answered]
            if missing:
                out.append(
                    Violation(
                        "tool_use_without_result",
                        i,
                        f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                        f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` "
                        "block in the next message.",
                    )
                )
        elif role == "user":
            before = messages[i - 1] if i > 0 else None
            calls = (
                {b.get("id") for b in _blocks(before) if b.get("type") == "tool_use"}
                if isinstance(before, dict) and before.get("role") == "assistant"
                else set()
            )
            for j, block in enumerate(_blocks(message)):
                if block.get("type") == "tool_result" and block.get("tool_use_id") not in calls:
                    out.append(
                        Violation(
                            "tool_result_without_use",
                            i,
                            f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                            f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding "
                            "`tool_use` block in the previous message.",
                        )
                    )
    return out


def responses_violations(body: dict[str, Any]) -> list[Violation]:
    items = body.get("input")
    if not isinstance(items, list):
        return []
    calls: dict[object, tuple[int, str]] = {}
    outputs: dict[object, tuple[int, str]] = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        kind, call_id = item.get("type"), item.get("call_id")
        if kind in _CALLS and call_id:
            calls.setdefault(call_id, (i, kind))
        elif kind in _OUTPUTS:
            outputs.setdefault(call_id, (i, kind))
    out = [
        Violation(
            "call_without_output",
            i,
            f"No tool output found for {'custom tool call' if kind == 'custom_tool_call' else 'function call'} "
            f"{call_id}.",
        )
        for call_id, (i, kind) in calls.items()
        if call_id not in outputs
    ]
    out += [
        Violation(
            "output_without_call",
            i,
            f"No tool call found for {'custom tool call' if kind == 'custom_tool_call_output' else 'function call'} "
            f"output with call_id {call_id}.",
        )
        for call_id, (i, kind) in outputs.items()
        if call_id not in calls
    ]
    return out


_CHAT_UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. The following tool_call_ids did not have response messages: "
)
_CHAT_STRAY = (
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
)


def chat_violations(body: dict[str, Any]) -> list[Violation]:
    messages = body.get("messages")
    messages = messages if isinstance(messages, list) else []
    out: list[Violation] = []
    pending: dict[object, None] = {}  # the last assistant message's calls not answered yet (in order)
    open_ids: set[object] = set()  # the calls a tool message may answer now
    at = -1

    def unanswered() -> None:
        if pending:
            ids = ", ".join(map(str, pending))
            out.append(Violation("tool_calls_without_result", at, _CHAT_UNANSWERED + ids))

    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in open_ids:
                out.append(Violation("tool_without_call", i, _CHAT_STRAY))
            pending.pop(call_id, None)
            continue
        unanswered()
        pending, open_ids = {}, set()
        if role == "assistant":
            calls = message.get("tool_calls")
            ids = [c.get("id") for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
            pending = dict.fromkeys(ids)
            open_ids = set(ids)
            at = i
    unanswered()
    return out


_COUNT = (
    "Please ensure that the number of function response parts is equal to the number of function call parts of "
    "the function call turn."
)


def _gemini_parts(content: Any, key: str) -> list[dict[str, Any]]:
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list):
        return []
    return [p[key] for p in parts if isinstance(p, dict) and isinstance(p.get(key), dict)]


def gemini_violations(body: dict[str, Any]) -> list[Violation]:
    contents = body.get("contents")
    contents = contents if isinstance(contents, list) else []
    out: list[Violation] = []
    for i, content in enumerate(contents):
        calls = _gemini_parts(content, "functionCall")
        responses = _gemini_parts(content, "functionResponse")
        before = contents[i - 1] if i > 0 else None
        after = contents[i + 1] if i + 1 < len(contents) else None
        if calls and isinstance(before, dict) and before.get("role") == "model":
            out.append(
                Violation(
                    "call_turn_after_model",
                    i,
                    "Please ensure that function call turn comes immediately after a user turn or after a function "
                    "response turn.",
                )
            )
        if calls and after is None:
            out.append(Violation("call_without_response", i, _COUNT))
        elif calls:
            answers = _gemini_parts(after, "functionResponse")
            if len(answers) != len(calls):
                out.append(Violation("call_response_count", i, _COUNT))
            else:
                called = {c.get("id") for c in calls if c.get("id")}
                answered = {r.get("id") for r in answers if r.get("id")}
                if called and answered and called != answered:
                    out.append(
                        Violation(
                            "call_response_id_mismatch",
                            i,
                            "Please ensure that function response ids match the function call ids of the function "
                            "call turn.",
                        )
                    )
        if responses and not _gemini_parts(before, "functionCall"):
            out.append(
                Violation(
                    "response_without_call",
                    i,
                    "Please ensure that function response turn comes immediately after a function call turn.",
                )
            )
    return out


def violations(wire: str, body: dict[str, Any]) -> list[Violation]:
    if wire == CHAT:
        return chat_violations(body)
    if wire == GEMINI:
        return gemini_violations(body)
    return anthropic_violations(body) if wire == ANTHROPIC else responses_violations(body)
