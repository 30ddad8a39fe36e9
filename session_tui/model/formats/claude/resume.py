"""What Claude Code sends the model when it resumes a transcript: the lines
of one response as one message, results after their calls, consecutive
user messages joined, an error result for each call without one, and
"No response requested." where the conversation ends on the user's side."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...entries.view import content_text
from ...reading.segment import Shape
from ..base import Sent, Session
from .client import CLIENT

if TYPE_CHECKING:  # pragma: no cover
    from ..anthropic_messages import AnthropicMessages


#: what Claude Code sends for a call whose result is not in the file
INTERRUPTED = (
    "[Tool call interrupted: the session ended before this call's result was recorded, so its outcome "
    "is unknown. Check whether it took effect before relying on it or running it again.]"
)


NO_RESPONSE = "No response requested."


#: what Claude Code sends for a call inside the conversation whose result is not in the file (the API needs one)
MISSING = "[Tool result missing due to internal error]"


def _blocks(message: dict[str, Any]) -> list[Any]:
    content = message.get("content")
    if isinstance(content, list):
        return content
    return [{"type": "text", "text": content}] if isinstance(content, str) and content else []


#: a model's dated snapshot name (``claude-sonnet-4-5-20250929``): the same
#: model as its alias for Claude Code
_DATED = re.compile(r"-\d{8}$")


def same_model(model: str | None) -> str | None:
    """``model`` as Claude Code compares the model of a response with the one it resumes with."""
    return _DATED.sub("", model) if isinstance(model, str) else None


#: Claude Code 2.1.328's models, oldest first (its ``Fv``): one before
#: claude-opus-4-8 gets no ``role: "system"`` message
_MODELS = (
    "claude-opus-4-0",
    "claude-sonnet-4-0",
    "claude-opus-4-1",
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
    "claude-opus-4-5",
    "claude-opus-4-6",
    "claude-sonnet-4-6",
    "claude-opus-4-7",
    "claude-opus-4-8",
)
#: the Opus models Claude Code replaces by its current Opus (first party; ``CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP``)
_LEGACY_OPUS = ("claude-opus-4-0", "claude-opus-4-1")
_PROVIDER = re.compile(r"^(?:[a-z0-9-]+\.)?anthropic\.|-v\d+(?::\d+)?$|@\d{8}$|-\d{8}$")


def system_turns(model: str | None) -> bool:
    """Whether Claude Code 2.1.328, resuming with ``model``, sends the
    attachments it would promote (``attachments.promoted``) as ``role:
    "system"`` messages rather than ``<system-reminder>`` user text: its
    ``mid_conv_system`` rule (``yT``) without the user's overrides (the
    ``CLAUDE_CODE_FORCE_MID_CONVERSATION_SYSTEM`` and capability variables,
    a HIPAA organisation). Every model does but the claude-3 ones and those
    before claude-opus-4-8 in its list; an unknown model does; None (no
    model known: the client's own default, its current Opus) does. Checked
    with dry runs: claude-opus-4-7, claude-haiku-4-5,
    claude-sonnet-4-5(-20250929), claude-sonnet-4-20250514 and
    claude-3-7-sonnet-20250219 get user text; claude-opus-4-8,
    claude-sonnet-5, claude-opus-5-5, claude-opus-4-20250514 (resumed as the
    current Opus) and an unknown claude-foo-9 get system messages."""
    if model is None:
        return True
    name = _PROVIDER.sub("", _PROVIDER.sub("", model.lower().replace("[1m]", "")))
    if re.fullmatch(r"claude-(?:opus|sonnet)-4", name):
        name += "-0"  # (claude-sonnet-4-20250514: claude-sonnet-4-0)
    if name in _LEGACY_OPUS:
        return True
    if "claude-3-" in name:
        return False
    return not (name in _MODELS and _MODELS.index(name) < _MODELS.index("claude-opus-4-8"))


def wraps_system_turns(model: str | None) -> bool:
    """Whether Claude Code 2.1.328 keeps each attachment's
    ``<system-reminder>`` wrapping inside the system message (its ``Qpr``:
    claude-sonnet-5 only)."""
    return model is not None and _PROVIDER.sub("", model.lower().replace("[1m]", "")) == "claude-sonnet-5"


def resume_model_of(session: Session, items: list[tuple[int, dict[str, Any]]]) -> str | None:
    """The model Claude Code 2.1.328 resumes with: the one asked for
    (``session.resume_model``, its ``--model``), else the model of the last
    response on the path (it sends every thinking block of that model's
    responses, ``context_management`` ``clear_thinking`` keeping "all", and
    none of another model's)."""
    if session.resume_model:
        return session.resume_model
    for _, message in reversed(items):
        model = message.get("model")
        if message.get("role") == "assistant" and isinstance(model, str) and not model.startswith("<"):
            return model  # (not "<synthetic>", the client's own stand-ins)
    return None


def _without_thinking(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    if not isinstance(content, list):
        return message
    kept = [b for b in content if not (isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking"))]
    return message if len(kept) == len(content) else {**message, "content": kept}


def _joined(first: dict[str, Any], then: dict[str, Any]) -> dict[str, Any]:
    """Two user messages as one, as Claude Code joins them: the blocks of
    both, a newline added to a text that another text follows."""
    head, rest = list(_blocks(first)), list(_blocks(then))
    if head and rest and _is_text(head[-1]) and _is_text(rest[0]):
        head[-1] = {**head[-1], "text": head[-1]["text"] + "\n"}
    return {**first, "content": head + rest}


def _is_text(block: object) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)


def _close_calls(fmt: AnthropicMessages, out: list[Sent], text: str) -> None:
    """After the assistant message at ``out``'s end-of-turn: an error result
    saying ``text`` for each of its calls no later user message answered
    (INTERRUPTED at the end of the conversation, MISSING inside it)."""
    k = len(out) - 1
    while k >= 0 and out[k].message.get("role") in ("user", "system"):
        k -= 1  # (past results, prompts and the system messages of attachments)
    if k < 0:
        return
    calls = [
        b.get("id")
        for b in _blocks(out[k].message)
        if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str)
    ]
    answered = {
        b.get("tool_use_id")
        for sent in out[k + 1 :]
        for b in _blocks(sent.message)
        if isinstance(b, dict) and b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str)
    }
    missing = [c for c in calls if c not in answered]
    if missing:
        out.insert(
            k + 1 + sum(1 for sent in out[k + 1 :] if fmt.tool_result_ids(sent.message)),
            Sent(
                out[k].entry,
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "content": text, "is_error": True, "tool_use_id": c} for c in missing
                    ],
                },
                CLIENT.title,
            ),
        )


def same_response(previous: dict[str, Any], message: dict[str, Any]) -> bool:
    return (
        message.get("role") == "assistant"
        and previous.get("role") == "assistant"
        and isinstance(message.get("id"), str)
        and message.get("id") == previous.get("id")
    )


def _merged(first: dict[str, Any], then: dict[str, Any]) -> dict[str, Any]:
    """Two lines of one response as one message: the blocks of both, the
    later line's stop reason and usage."""

    def blocks(message: dict[str, Any]) -> list[Any]:
        content = message.get("content")
        return content if isinstance(content, list) else [{"type": "text", "text": content_text(content)}]

    return {**first, **{k: v for k, v in then.items() if k != "content"}, "content": blocks(first) + blocks(then)}


def sent_on_resume(fmt: AnthropicMessages, session: Session, items: list[tuple[int, dict[str, Any]]]) -> list[Sent]:
    """What Claude Code sends when it resumes at the end of ``items``:
    the lines of one response as one message (the thinking blocks of the
    responses of the model it resumes with, ``resume_model``, every one
    of them: another model's are left out),
    followed by the results of its calls (results written between its
    lines move after it), consecutive user messages as one (a newline
    where two texts meet), an interrupted error result for each call
    without one and, when the conversation ends on the user's side,
    "No response requested." after its last user/assistant record."""
    out: list[Sent] = []
    last_turn = -1  # where the last user/assistant record's message is in ``out``
    resumed_with = same_model(resume_model_of(session, items))
    for entry, message in items:
        if message.get("role") == "assistant":
            made_by = message.get("model")
            if isinstance(made_by, str) and same_model(made_by) != resumed_with:
                message = _without_thinking(message)  # (another model's thinking: its signature is not this one's)
            if not _blocks(message):
                continue
            k = len(out) - 1
            while k >= 0 and out[k].added_by is None and fmt.tool_result_ids(out[k].message):
                k -= 1
            if k >= 0 and out[k].added_by is None and same_response(out[k].message, message):
                out[k] = Sent(out[k].entry, _merged(out[k].message, message))
            else:
                _close_calls(fmt, out, MISSING)
                out.append(Sent(entry, message))
        else:
            if not fmt.tool_result_ids(message) and message.get("role") != "system":
                _close_calls(fmt, out, MISSING)
            out.append(Sent(entry, message))
        if session.tree.shape[entry] & Shape.ROLE_MASK != Shape.SYSTEM:  # a user/assistant record
            last_turn = len(out) - 1
    _close_calls(fmt, out, INTERRUPTED)
    if last_turn >= 0:
        at = last_turn + 1
        while at < len(out) and out[at].added_by is not None:
            at += 1
        if out[at - 1].message.get("role") in ("user", "system"):  # (after the system message of attachments too)
            out.insert(
                at,
                Sent(
                    out[at - 1].entry,
                    {"role": "assistant", "content": [{"type": "text", "text": NO_RESPONSE}]},
                    CLIENT.title,
                ),
            )
    joined: list[Sent] = []
    for sent in out:
        previous = joined[-1] if joined else None
        if (
            previous is not None
            and previous.added_by is None
            and sent.added_by is None
            and previous.message.get("role") == "user" == sent.message.get("role")
        ):
            joined[-1] = Sent(previous.entry, _joined(previous.message, sent.message))
        else:
            joined.append(sent)
    return joined
