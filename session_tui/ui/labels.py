"""Short, inert labels for entries: what a row and a detail header show."""

from __future__ import annotations

from ..model.entries.view import EntryView
from ..model.sanitize import inert


def one_line(text: str, limit: int = 400) -> str:
    """The first non-empty line of ``text``, inert, with a mark if more follows."""
    stripped = text.strip()
    first, _, rest = stripped.partition("\n")
    first = inert(first[:limit], keep_newlines=False)
    return first + (" …" if rest or len(first) >= limit else "")


def short_args(arguments: str, limit: int = 60) -> str:
    text = inert(" ".join(arguments.split()), keep_newlines=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tokens_text(view: EntryView, usage: dict | None = None) -> str:
    """Tokens of an entry: ``usage`` where the format keeps it outside the
    record (see model.usage.entry_tokens), else the view's own."""
    usage = usage or view.tokens or {}
    parts = []
    for key, label in (
        ("prompt_tokens", "in"),
        ("input_tokens", "in"),
        ("completion_tokens", "out"),
        ("output_tokens", "out"),
    ):
        value = usage.get(key)
        if isinstance(value, int):
            parts.append(f"{label} {value:,}")
    if view.tokens_before is not None:
        parts.append(f"{view.tokens_before:,} tokens before")
    if view.tokens_after is not None:
        parts.append(f"{view.tokens_after:,} after")
    return " · ".join(parts)
