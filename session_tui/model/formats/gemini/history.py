"""What Gemini CLI sends the model on resume, from its records: each
record's parts cleaned as ``convertSessionToClientHistory`` cleans them
(thoughts out, the synthetic ``thoughtSignature`` on a turn's first call,
the ``<tool>__`` prefix taken off call ids), consecutive turns of one role
coalesced, and the file's patches folded into one conversation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...errors import check_stop
from ..base import Session

SIGNATURE = "skip_thought_signature_validator"  # Gemini CLI's synthetic thoughtSignature


#: user text Gemini CLI never sends again (its own context blocks, slash and ? commands)
IGNORED_USER = ("/", "?", "<session_context>", "<hook_context>")


def is_str(value: object) -> bool:
    return isinstance(value, str)


def header_like(obj: dict[str, Any]) -> bool:
    """Gemini CLI's partial metadata record: ``sessionId`` and ``projectHash``."""
    return is_str(obj.get("sessionId")) and is_str(obj.get("projectHash")) and not is_str(obj.get("id"))


def snapshot(obj: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The messages of a ``$set`` snapshot, or None for any other record."""
    patch = obj.get("$set")
    messages = patch.get("messages") if isinstance(patch, dict) else None
    return [m for m in messages if isinstance(m, dict) and is_str(m.get("id"))] if isinstance(messages, list) else None


def parts_of(content: object) -> list[Any]:
    """Gemini CLI's ``ensurePartArray``."""
    if isinstance(content, list):
        return [{"text": p} if isinstance(p, str) else p for p in content]
    if isinstance(content, str):
        return [{"text": content}]
    return [content]


def part_string(value: object) -> str:
    """Gemini CLI's ``partListUnionToString`` (verbose)."""
    if not value:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part_string(p) for p in value)
    if not isinstance(value, dict):
        return ""
    for key, word in (("thought", None), ("functionCall", "Function Call"), ("functionResponse", "Function Response")):
        if key in value:
            if word is None:
                return f"[Thought: {str(value[key]).lower()}]"
            inner = value[key]
            return f"[{word}: {inner.get('name') if isinstance(inner, dict) else ''}]"
    for key in ("videoMetadata", "codeExecutionResult", "executableCode", "fileData", "inlineData"):
        if key in value:
            return f"[{key}]"
    text = value.get("text")
    return text if isinstance(text, str) else ""


def sent_user(record: dict[str, Any]) -> bool:
    """Whether Gemini CLI sends a user record again on resume."""
    text = part_string(record.get("content")).strip()
    return bool(text) and not text.startswith(IGNORED_USER)


def is_responses(record: dict[str, Any]) -> bool:
    """A user record that holds only function responses."""
    content = record.get("content")
    return (
        record.get("type") == "user"
        and isinstance(content, list)
        and bool(content)
        and all(isinstance(p, dict) and "functionResponse" in p for p in content)
    )


def calls_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    calls = record.get("toolCalls")
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


def history(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The turns Gemini CLI makes of one message record on resume
    (``convertSessionToClientHistory``), before its clean-ups."""
    kind = record.get("type")
    if kind == "user":
        return [{"role": "user", "parts": parts_of(record.get("content"))}] if sent_user(record) else []
    if kind != "gemini":
        return []
    content = record.get("content")
    parts = parts_of(content) if content else []
    model: list[Any] = []
    if any(isinstance(p, dict) and (p.get("functionCall") or p.get("thought")) for p in parts):
        model.extend(parts)
    else:
        thoughts = record.get("thoughts")
        for thought in thoughts if isinstance(thoughts, list) else []:
            if isinstance(thought, dict):
                subject, text = thought.get("subject"), thought.get("description")
                model.append({"text": f"**{subject}** {text}" if subject else text, "thought": True})
        model.extend(parts)
        for call in calls_of(record):
            model.append({"functionCall": {"id": call.get("id"), "name": call.get("name"), "args": call.get("args")}})
    if not model:
        return []
    out = [{"role": "model", "parts": model}]
    responses: list[Any] = []
    for call in calls_of(record):
        result = call.get("result")
        if not result:
            continue
        if isinstance(result, str):
            responses.append(
                {"functionResponse": {"id": call.get("id"), "name": call.get("name"), "response": {"output": result}}}
            )
        elif isinstance(result, list):
            responses.extend(parts_of(result))
        else:
            responses.append(result)
    if responses:
        out.append({"role": "user", "parts": responses})
    return out


def strip_prefix(inner: dict[str, Any], keys: tuple[str, str]) -> dict[str, Any]:
    name = inner.get("name")
    prefix = (name.strip() if isinstance(name, str) and name.strip() else "generic_tool") + "__"
    found = inner.get("id")
    if isinstance(found, str) and found.startswith(prefix):
        return {"name": inner.get("name"), keys[1]: inner.get(keys[1]), "id": found[len(prefix) :]}
    return inner


def _others(part: dict[str, Any]) -> bool:
    return any(k not in ("text", "thought", "callIndex") for k in part)


def cleaned(turn: dict[str, Any]) -> dict[str, Any] | None:
    """One turn as sent: thoughts stripped (``stripThoughts``), call ids
    without the ``<tool>__`` prefix and empty text parts dropped
    (``stripToolCallIdPrefixes``); None when nothing is left."""
    parts = [p for p in turn["parts"] if p is not None]
    if any(isinstance(p, dict) and p.get("thought") for p in parts):
        parts = [p for p in parts if not (isinstance(p, dict) and p.get("thought"))]
        if turn["role"] == "model":
            for k, part in enumerate(parts):
                if isinstance(part, dict) and part.get("functionCall"):
                    if not part.get("thoughtSignature"):
                        parts[k] = {**part, "thoughtSignature": SIGNATURE}
                    break
        if not parts:
            return None
    out: list[Any] = []
    for part in parts:
        if not isinstance(part, dict):
            out.append(part)
            continue
        part = dict(part)
        if isinstance(part.get("functionCall"), dict):
            part["functionCall"] = strip_prefix(part["functionCall"], ("id", "args"))
        if isinstance(part.get("functionResponse"), dict):
            part["functionResponse"] = strip_prefix(part["functionResponse"], ("id", "response"))
        if part.get("text") == "":
            if _others(part):
                del part["text"]
            else:
                continue
        out.append(part)
    return {"role": turn["role"], "parts": out}


def coalesced(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive turns of one role joined (``coalesceConsecutiveRoles``): the request's ``contents``."""
    out: list[dict[str, Any]] = []
    for turn in contents:
        if out and out[-1].get("role") == turn.get("role"):
            out[-1] = {**out[-1], "parts": [*out[-1].get("parts", []), *turn.get("parts", [])]}
        else:
            out.append(dict(turn))
    return out


@dataclass
class Fold:
    """The conversation a prefix of the file leaves: message id -> (entry, record), in Gemini CLI's order."""

    messages: dict[str, tuple[int, dict[str, Any]]]
    removed: set[int]  # entries a rewind or a snapshot took out


def fold(session: Session, leaf: int, should_stop: Callable[[], bool] | None = None) -> Fold:
    """Apply the file's records up to entry ``leaf`` as Gemini CLI does (a
    JS Map: a repeated id keeps its first place, with the last copy)."""
    messages: dict[str, tuple[int, dict[str, Any]]] = {}
    removed: set[int] = set()
    for entry in range(leaf + 1):
        check_stop(should_stop, entry)
        record = session.record(entry)
        target = record.get("$rewindTo")
        if isinstance(target, str):
            keys = list(messages)
            cut = keys[keys.index(target) :] if target in messages else keys
            for key in cut:
                removed.add(messages.pop(key)[0])
            continue
        found = snapshot(record)
        if found is not None:
            removed.update(e for e, _ in messages.values())
            messages = {m["id"]: (entry, m) for m in found}
            continue
        if is_str(record.get("id")):
            messages[record["id"]] = (entry, record)
    return Fold(messages, removed)


def contents(items: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    return coalesced([message for _, message in items])
