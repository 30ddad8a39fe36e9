"""What the view shows of one entry, the same shape whatever the format."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..sanitize import inert_line


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # as recorded (often a JSON string)


@dataclass
class EntryView:
    kind: str  # "message", "summary", ...
    role: str  # "user", "assistant", "tool", "system", "summary", ...
    text: str = ""
    id: str | None = None
    parent_id: str | None = None
    time: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    result_for: str | None = None  # the call id a tool result answers
    is_error: bool = False  # a tool result its client marks as failed (is_error, isError, a non-zero exit)
    tokens: dict[str, Any] | None = None  # usage as recorded
    tokens_before: int | None = None  # summaries
    tokens_after: int | None = None
    step: str | None = None  # one model response recorded over several entries shares this key


def content_text(content: object) -> str:
    """Text of a message ``content``: a string, null, or a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                kind = part.get("type")
                if isinstance(part.get("text"), str):
                    parts.append(part["text"])
                elif kind in ("image_url", "image", "input_image"):
                    parts.append("[image]")
                else:
                    parts.append(f"[{kind or 'part'}]")
        return "\n".join(parts)
    return str(content)


ROLE_LABELS = {
    "system": "sys",
    "developer": "dev",
    "user": "user",
    "assistant": "asst",
    "tool": "tool",
    "summary": "sum",
    "bashExecution": "bash",
    "model_change": "meta",
    "thinking_level_change": "meta",
    "label": "meta",
    "session_info": "meta",
    "custom": "meta",
    "custom_message": "user",
    "reasoning": "rsn",
    "event": "evt",
    "turn_context": "ctx",
}


def role_label(role: object) -> str:
    """A role as a row shows it: a known short name, else the first four characters, inert."""
    if isinstance(role, str) and role in ROLE_LABELS:
        return ROLE_LABELS[role]
    return inert_line(role)[:4]


_MARKS = re.compile(r"\A(?:\[(?:sidechain|compact summary)\]\s*)+")  # what a view puts before a text
_MARKER = re.compile(r"\[[\w ]+\]")  # a line that only stands for a part, e.g. "[image]"


def typed_prompt(record: dict[str, Any], view: EntryView) -> str | None:
    """The first line of a user message a person typed, or None for
    anything else: injected context (``<environment_context>``, a
    ``<system-reminder>``), a record Claude Code marks ``isMeta``, a
    compaction's summary; the marks a view puts before a text left out."""
    if view.role != "user" or record.get("isMeta") is True or record.get("isCompactSummary"):
        return None
    for text in _MARKS.sub("", view.text.lstrip(), count=1).splitlines():
        text = text.strip()
        if not text or _MARKER.fullmatch(text):
            continue
        return None if text.startswith("<") else text
    return None


_SUMMARY_KEYS = ("command", "cmd", "file_path", "path", "pattern", "url", "query", "description")


def call_summary(name: str, arguments: str, limit: int = 100) -> str:
    """One line saying what a call does: ``$ pytest -q`` for a command, the
    path for a file tool, else its first short argument."""
    from ..reading.records import loads

    try:
        value = loads(arguments) if arguments.strip().startswith("{") else arguments
    except ValueError:
        value = arguments
    text = ""
    if isinstance(value, dict):
        for key in _SUMMARY_KEYS:
            found = value.get(key)
            if isinstance(found, list):
                found = " ".join(str(part) for part in found)
            if isinstance(found, str) and found.strip():
                text = f"$ {found}" if key in ("command", "cmd") else found
                break
        else:
            text = next((v for v in value.values() if isinstance(v, str) and v.strip()), "")
    elif isinstance(value, str):
        text = value.split("\n", 1)[0]  # a freeform tool's input (apply_patch): its first line
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


LATEST = 253402300800.0  # 10000-01-01: no time is later (datetime's range)


def model_named(record: dict[str, Any], keys: tuple[str, ...] = ("model", "modelId")) -> str | None:
    """The model a record names: Claude Code's and pi's ``message.model``, a
    Codex ``turn_context``'s ``payload.model``, pi's ``modelId`` (its model
    changes), a plain record's ``model``."""
    for holder in (record.get("message"), record.get("payload"), record):
        if isinstance(holder, dict):
            for key in keys:
                found = holder.get(key)
                if isinstance(found, str) and found:
                    return found
    return None


def parse_time(value: object) -> float | None:
    """Seconds since the epoch from an ISO 8601 string, or a number of Unix
    seconds or (above 1e11, i.e. after 1973 in ms) milliseconds; None for
    anything else, or a number outside years 1970..9999."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000 if value > 1e11 else float(value)
        return seconds if 0 <= seconds < LATEST else None
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def iso_time(seconds: float | None) -> str | None:
    """``2026-03-14T09:12:03.417Z`` (UTC, milliseconds), or None."""
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
