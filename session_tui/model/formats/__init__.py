"""Format adapters and sniffing (docs/formats.md §8.2)."""

from __future__ import annotations

from typing import Any

from .astorlm import FORMAT as ASTORLM
from .base import Format as Format  # re-exported: what get_format returns
from .chat import FORMAT as CHAT
from .claude import FORMAT as CLAUDE
from .codex import FORMAT as CODEX
from .pi import FORMAT as PI
from .tree import FORMAT as TREE

FORMATS: dict[str, Format] = {f.name: f for f in (TREE, PI, CODEX, CLAUDE, ASTORLM, CHAT)}  # astorlm before chat
DEFAULT = TREE  # an empty file is an empty native session


def get_format(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown format {name!r} (known: {', '.join(FORMATS)})") from None


def sniff(objs: list[dict[str, Any]], path: str | None = None) -> Format | None:
    """The format whose signature the first parsed records match (some
    also look at a sidecar beside ``path``), or None."""
    if not objs:
        return None
    for fmt in FORMATS.values():
        if fmt.sniff(objs, path):
            return fmt
    return None
