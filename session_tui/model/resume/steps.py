"""A conversation reduced to comparable steps, so that what a client sends
the model can be checked against session-tui's context at the same leaf.

A step is (role, text digest, thinking digest, call ids, result ids,
is_error). The client's own system prompt, and the prompt it appends with
the reminders it injects for that turn, are left out; consecutive user
steps and consecutive assistant steps merge (clients and files split a
response differently). The same reduction made the goldens in
tests/golden from the real clients' requests.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..formats import FORMATS
from ..formats.client import ANTHROPIC, CHAT, GEMINI, RESPONSES
from ..formats.codex.client import INJECTED as CODEX_INJECTED
from ..formats.pi.client import PI_AGENT
from .chat_steps import chat_fields, chat_without_turn
from .gemini_steps import gemini_fields, gemini_without_turn

PROMPT = "continue"  # what a dry run asks the client to send

Key = tuple[str, str, str, tuple[str, ...], tuple[str, ...], bool]


def digest(text: str | None) -> str:
    if not text:
        return "-"
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def block_text(content: Any) -> str:
    """The text of a content value: a string, or a list of blocks."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                kind = block.get("type")
                if kind in ("text", "input_text", "output_text"):
                    parts.append(block.get("text") or "")
                elif kind in ("image", "input_image"):
                    parts.append("[image]")
                else:
                    parts.append(json.dumps(block, sort_keys=True))
        return "\n".join(parts)
    return json.dumps(content, sort_keys=True)


def _call_id(value: object) -> str:
    """pi stores a Responses call as ``call_id|item_id`` and sends the parts
    apart (an item id is transport only): the call id part counts."""
    return str(value).split("|", 1)[0]


@dataclass
class Step:
    role: str
    text: str = ""
    think: str = ""
    calls: list[object] = field(default_factory=list)
    results: list[object] = field(default_factory=list)
    err: bool = False
    wrapped: bool = False  # a summary or custom message: never merged

    def key(self) -> Key:
        return (
            self.role,
            digest(self.text.strip()),
            digest(self.think.strip()),
            tuple(map(_call_id, self.calls)),
            tuple(map(_call_id, self.results)),
            self.err,
        )

    def show(self) -> str:
        bits = [self.role]
        if self.calls:
            bits.append("calls " + ", ".join(map(str, self.calls)))
        if self.results:
            bits.append("answers " + ", ".join(map(str, self.results)) + (" (error)" if self.err else ""))
        if self.think.strip():
            bits.append("thinking")
        text = " ".join(self.text.split())
        if text:
            bits.append(repr(text[:60] + ("…" if len(text) > 60 else "")))
        return " · ".join(bits)


def merge(steps: list[Step]) -> list[Step]:
    out: list[Step] = []
    for step in steps:
        last = out[-1] if out else None
        if (
            last is not None
            and step.role in ("user", "assistant")
            and last.role == step.role
            and not step.wrapped
            and not last.wrapped
        ):
            last.text = "\n".join(x for x in (last.text, step.text) if x)
            last.think = "\n".join(x for x in (last.think, step.think) if x)
            last.calls = last.calls + step.calls
        else:
            out.append(
                Step(step.role, step.text, step.think, list(step.calls), list(step.results), step.err, step.wrapped)
            )
    return out


def steps_anthropic(messages: list[Any]) -> list[Step]:
    out: list[Step] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        role, content = message.get("role"), message.get("content")
        if role == "assistant":
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
            text, think, calls = [], [], []
            for block in blocks:
                kind = block.get("type") if isinstance(block, dict) else None
                if kind == "text":
                    text.append(block.get("text") or "")
                elif kind == "thinking":
                    think.append(block.get("thinking") or "")
                elif kind == "redacted_thinking":
                    think.append("[redacted]")
                elif kind in ("tool_use", "server_tool_use"):
                    calls.append(block.get("id"))
                else:
                    text.append(json.dumps(block, sort_keys=True))
            out.append(Step("assistant", "\n".join(text), "\n".join(think), calls))
        elif role in ("user", "system"):
            if isinstance(content, str) or content is None:
                out.append(Step(role, content or ""))
                continue
            pending: list[str] = []
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    if pending:
                        out.append(Step(role, "\n".join(pending)))
                        pending = []
                    out.append(
                        Step(
                            "tool",
                            block_text(block.get("content")),
                            results=[block.get("tool_use_id")],
                            err=bool(block.get("is_error")),
                        )
                    )
                else:
                    pending.append(block_text([block]))
            if pending:
                out.append(Step(role, "\n".join(pending)))
    return out


def steps_responses(items: list[Any]) -> list[Step]:
    out: list[Step] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message":
            role = item.get("role")
            out.append(
                Step("system" if role in ("developer", "system") else str(role), block_text(item.get("content")))
            )
        elif kind == "reasoning":
            summary = "\n".join(s.get("text", "") for s in (item.get("summary") or []) if isinstance(s, dict))
            content = block_text(item.get("content")) if item.get("content") else ""
            think = "\n".join(x for x in (summary, content) if x) or (
                "[redacted]" if item.get("encrypted_content") else ""
            )
            out.append(Step("assistant", "", think))
        elif kind in ("function_call", "custom_tool_call", "local_shell_call", "tool_search_call", "web_search_call"):
            out.append(Step("assistant", calls=[item.get("call_id") or item.get("id")]))
        elif kind in ("function_call_output", "custom_tool_call_output", "tool_search_output"):
            output = item.get("output")
            text = output if isinstance(output, str) else block_text(output)
            out.append(Step("tool", text, results=[item.get("call_id")]))
        elif kind in ("compaction", "compaction_summary"):
            out.append(Step("user", "[compaction:" + digest(json.dumps(item, sort_keys=True)) + "]"))
        else:
            out.append(Step("user", json.dumps(item, sort_keys=True)))
    return out


def steps_pi_agent(messages: list[Any]) -> list[Step]:
    out: list[Step] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "user":
            out.append(Step("user", block_text(message.get("content"))))
        elif role == "assistant":
            text, think, calls = [], [], []
            for block in message.get("content") or []:
                kind = block.get("type") if isinstance(block, dict) else None
                if kind == "text":
                    text.append(block.get("text") or "")
                elif kind == "thinking":
                    think.append(block.get("thinking") or ("[redacted]" if block.get("redacted") else ""))
                elif kind == "toolCall":
                    calls.append(block.get("id"))
                else:
                    text.append(json.dumps(block, sort_keys=True))
            out.append(Step("assistant", "\n".join(text), "\n".join(think), calls))
        elif role == "toolResult":
            out.append(
                Step(
                    "tool",
                    block_text(message.get("content")),
                    results=[message.get("toolCallId")],
                    err=bool(message.get("isError")),
                )
            )
        elif role in ("compactionSummary", "branchSummary"):
            out.append(Step("user", message.get("summary") or "", wrapped=True))
        elif role == "custom":
            out.append(Step("user", block_text(message.get("content")), wrapped=True))
        elif role == "bashExecution":
            out.append(Step("user", message.get("command") or "", wrapped=True))
        else:
            out.append(Step("user", json.dumps(message, sort_keys=True)))
    return out


def steps_gemini(contents: list[Any]) -> list[Step]:
    return [Step(*fields) for fields in gemini_fields(contents)]


def steps_chat(messages: list[Any]) -> list[Step]:
    return [Step(*fields) for fields in chat_fields(messages)]


#: each context form's reader into steps (``Client.context_form``)
CONTEXT_READERS: dict[str, Callable[[list[Any]], list[Step]]] = {
    ANTHROPIC: steps_anthropic,
    RESPONSES: steps_responses,
    PI_AGENT: steps_pi_agent,
    GEMINI: steps_gemini,
    CHAT: steps_chat,
}


def context_steps(format_name: str, messages: list[Any]) -> list[Step]:
    """session-tui's context (``export --context --to json``) as merged
    steps, its leading system steps left out."""
    client = FORMATS[format_name].client if format_name in FORMATS else None
    reduce = CONTEXT_READERS[client.context_form if client is not None else ANTHROPIC]
    steps = reduce(messages)
    while steps and steps[0].role == "system":
        steps.pop(0)
    return merge(steps)


def without_turn(wire: str, messages: list[Any]) -> list[Any]:
    """A client's request without what it adds for the new turn: its system
    items before the conversation (Responses), the appended prompt and the
    reminders or context items it injects with it."""
    items = [dict(m) if isinstance(m, dict) else m for m in messages]
    if wire == RESPONSES:  # (a request to compact ends with Codex's ``compaction_trigger``, not the prompt)
        while items and isinstance(items[0], dict) and items[0].get("role") in ("developer", "system"):
            items.pop(0)  # its instructions, and its tool list (``additional_tools``)
        if items and isinstance(items[-1], dict) and items[-1].get("type") == "compaction_trigger":
            items.pop()  # a request to compact the history (Codex, before a turn): the history is all before it
            return items
        if items and _responses_message(items[-1]) and block_text(items[-1].get("content")).strip() == PROMPT:
            items.pop()
            while (
                items
                and isinstance(items[-1], dict)
                and (
                    items[-1].get("role") in ("developer", "system")  # (instructions, its tool list)
                    or (
                        _responses_message(items[-1])
                        and items[-1].get("role") == "user"
                        and block_text(items[-1].get("content")).lstrip().startswith(CODEX_INJECTED)
                    )
                )
            ):
                items.pop()
        return items
    while items and isinstance(items[-1], dict) and items[-1].get("role") == "system":
        items.pop()  # (Claude Code 2.1.3xx: its environment, as a system message after the new prompt)
    if not items or not isinstance(items[-1], dict) or items[-1].get("role") != "user":
        return items
    last = items[-1]
    content = last.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    prompt = max(
        (
            i
            for i, b in enumerate(blocks)
            if isinstance(b, dict) and b.get("type") == "text" and (b.get("text") or "").strip() == PROMPT
        ),
        default=None,
    )
    kept = [
        b
        for i, b in enumerate(blocks)
        if i != prompt
        and not (
            isinstance(b, dict)
            and b.get("type") == "text"
            and (b.get("text") or "").lstrip().startswith("<system-reminder>")
        )
    ]
    if kept:
        last["content"] = kept
        return items
    items.pop()
    while prompt is not None and items and _reminders_only(items[-1]):
        items.pop()  # (reminders it sends for the new turn in a message of their own, before the prompt's)
    return items


def _reminders_only(message: Any) -> bool:
    """A user message of ``<system-reminder>`` text blocks only (session-tui's
    context never has one: an attachment's reminder goes into the message before it)."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return False
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    return (
        isinstance(blocks, list)
        and bool(blocks)
        and all(
            isinstance(b, dict)
            and b.get("type") == "text"
            and (b.get("text") or "").lstrip().startswith("<system-reminder>")
            for b in blocks
        )
    )


def _responses_message(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type", "message") == "message"


def request_steps(wire: str, messages: list[Any]) -> list[Step]:
    """A client's request as merged steps, the new turn left out."""
    if wire == GEMINI:
        return merge(steps_gemini(gemini_without_turn(messages, PROMPT)))
    if wire == CHAT:
        return merge(steps_chat(chat_without_turn(messages, PROMPT)))
    items = without_turn(wire, messages)
    return merge(steps_responses(items) if wire == RESPONSES else steps_anthropic(items))


def differences(ours: list[Step], theirs: list[Step], limit: int = 12) -> list[str]:
    """Where the two step lists differ, one line each (empty: they agree)."""
    a, b = [s.key() for s in ours], [s.key() for s in theirs]
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            mine = ours[i1 + k].show() if i1 + k < i2 else None
            sent = theirs[j1 + k].show() if j1 + k < j2 else None
            if mine and sent:
                out.append(f"step {j1 + k + 1}: the client sends {sent}; session-tui has {mine}")
            elif sent:
                out.append(f"step {j1 + k + 1}: the client sends {sent}; session-tui has no such step")
            else:
                out.append(f"step {i1 + k + 1} of session-tui's context ({mine}) is not sent")
            if len(out) >= limit:
                return out + ["…"]
    return out
