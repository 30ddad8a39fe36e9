"""What pi sends the model on resume: summaries, custom messages and shell
runs as the user text pi's ``convertToLlm`` makes of them; errored and
aborted responses left out; a "No result provided" error result for each
call without one; another provider's thinking sent as text."""

from __future__ import annotations

from typing import Any

from ..base import Sent, Session
from .client import CLIENT

SKIPPED_STOPS = ("error", "aborted")  # pi never replays these assistant messages

NO_RESULT = "No result provided"  # pi's stand-in for a call's missing result (pi-ai transformMessages)


#: how pi's convertToLlm wraps summaries it sends as user text
COMPACTION_WRAP = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n",
    "\n</summary>",
)


BRANCH_WRAP = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n",
    "</summary>",
)


def calls_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list) or message.get("stopReason") in SKIPPED_STOPS:
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "toolCall"]


#: the API pi uses for a provider's models, where one is known
PROVIDER_API = {"anthropic": "anthropic-messages", "openai": "openai-responses", "google": "google-generative-ai"}


def _source(message: dict[str, Any]) -> tuple[object, object]:
    return message.get("provider"), message.get("api")


def _last_response(items: list[tuple[int, dict[str, Any]]]) -> dict[str, Any] | None:
    """The last assistant message of ``items`` that names its provider."""
    return next((m for _, m in reversed(items) if m.get("role") == "assistant" and m.get("provider")), None)


def resume_target(session: Session, items: list[tuple[int, dict[str, Any]]]) -> tuple[object, object]:
    """(provider, api) of the model pi resumes with: ``session.resume_model``
    (``provider/model``) if given, else the one that made the last response."""
    if session.resume_model:
        provider = session.resume_model.split("/", 1)[0]
        return provider, PROVIDER_API.get(provider)
    last = _last_response(items)
    return _source(last) if last is not None else (None, None)


def resume_model_of(session: Session, items: list[tuple[int, dict[str, Any]]]) -> str | None:
    """``provider/model`` the context is shown as sent to (the last response's model, or the one asked for)."""
    if session.resume_model:
        return session.resume_model
    last = _last_response(items)
    return f"{last.get('provider')}/{last.get('model')}" if last is not None else None


def _thinking_as_text(message: dict[str, Any]) -> dict[str, Any]:
    """An assistant message from another provider's model as pi-ai's
    ``transformMessages`` sends it: each thinking block a text block (empty ones left out)."""
    content = message.get("content")
    if not isinstance(content, list) or not any(isinstance(b, dict) and b.get("type") == "thinking" for b in content):
        return message
    blocks = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "thinking":
            text = block.get("thinking")
            if isinstance(text, str) and text.strip():
                blocks.append({"type": "text", "text": text})
        else:
            blocks.append(block)
    return {**message, "content": blocks}


def _as_sent(message: dict[str, Any]) -> dict[str, Any] | None:
    """An AgentMessage as pi's ``convertToLlm`` sends it (None: not sent)."""
    role = message.get("role")
    if role == "compactionSummary":
        return _user_text(COMPACTION_WRAP[0] + str(message.get("summary") or "") + COMPACTION_WRAP[1])
    if role == "branchSummary":
        return _user_text(BRANCH_WRAP[0] + str(message.get("summary") or "") + BRANCH_WRAP[1])
    if role == "custom":
        content = message.get("content")
        return {"role": "user", "content": [{"type": "text", "text": content}] if isinstance(content, str) else content}
    if role == "bashExecution":
        return None if message.get("excludeFromContext") else _user_text(_bash_text(message))
    return message


def _user_text(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def _bash_text(message: dict[str, Any]) -> str:
    """pi's bashExecutionToText."""
    text = f"Ran `{message.get('command')}`\n"
    output = message.get("output")
    text += f"```\n{output}\n```" if output else "(no output)"
    code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif code is not None and code != 0:
        text += f"\n\nCommand exited with code {code}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return text


def sent_on_resume(session: Session, items: list[tuple[int, dict[str, Any]]]) -> list[Sent]:
    """What pi sends: summaries, custom messages and shell runs as the
    user text pi's ``convertToLlm`` makes of them (summaries in pi's
    wrapping); then, as pi-ai's ``transformMessages`` does, errored and
    aborted assistant messages left out (the context already does), and for
    each call without a result, after the results that follow it, a
    ``toolResult`` "No result provided" marked as an error. On an OpenAI
    API a result carries no error flag. The thinking of a response made
    by another provider's model than the one resumed with (``resume_target``)
    is sent as text."""
    out: list[Sent] = []
    pending: list[tuple[int, dict[str, Any]]] = []  # (entry, call block) of the last assistant message
    answered: set[Any] = set()
    openai = False

    def close() -> None:
        for entry, call in pending:
            call_id = call.get("id")
            if not isinstance(call_id, str) or call_id not in answered:
                out.append(
                    Sent(
                        entry,
                        {
                            "role": "toolResult",
                            "toolCallId": call.get("id"),
                            "toolName": call.get("name"),
                            "content": [{"type": "text", "text": NO_RESULT}],
                            "isError": True,
                        },
                        CLIENT.title,
                    )
                )
        pending.clear()
        answered.clear()

    target = resume_target(session, items)
    for entry, item in items:
        message = _as_sent(item)
        if message is None:
            continue
        role = message.get("role")
        if role == "assistant" and _source(message) != target:
            message = _thinking_as_text(message)
        if role == "toolResult" and isinstance(message.get("toolCallId"), str):
            answered.add(message.get("toolCallId"))
        else:
            close()
            if role == "assistant":
                pending.extend((entry, call) for call in calls_of(message))
                openai = str(message.get("api") or "").startswith("openai")
        out.append(Sent(entry, message))
    close()
    if openai:  # the Responses/Completions APIs have no error flag on a tool output
        out = [
            Sent(s.entry, {**s.message, "isError": False}, s.added_by)
            if s.message.get("role") == "toolResult" and s.message.get("isError")
            else s
            for s in out
        ]
    return out
