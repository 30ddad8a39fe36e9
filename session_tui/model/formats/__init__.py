"""Format adapters and sniffing (docs/formats.md#telling-the-formats-apart)."""

from __future__ import annotations

import codecs
from typing import Any

from .astorlm import FORMAT as ASTORLM
from .base import Format as Format  # re-exported: what get_format returns
from .chat import FORMAT as CHAT
from .claude import FORMAT as CLAUDE
from .codex import FORMAT as CODEX
from .copilot import FORMAT as COPILOT
from .gemini import FORMAT as GEMINI
from .opencode import FORMAT as OPENCODE
from .pi import FORMAT as PI
from .qwen import FORMAT as QWEN
from .tree import FORMAT as TREE

# sniffed in this order: qwen before claude, astorlm before chat
FORMATS: dict[str, Format] = {
    f.name: f for f in (TREE, PI, CODEX, GEMINI, QWEN, COPILOT, OPENCODE, CLAUDE, ASTORLM, CHAT)
}
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


NOT_A_SESSION = "not a session"
_BOM = b"\xef\xbb\xbf"


def detect(objs: list[dict[str, Any]], path: str | None = None, only_bytes: bytes | None = None) -> Format | str:
    """The format of a file whose first JSON records are ``objs``, or the
    one line saying why it is no session: the picker lists that line, and
    the session view and every verb refuse the file with it.
    ``only_bytes``: all of a file that has no complete line yet; the start
    of a JSON object there is a first line being written (the native format
    until it completes), anything else (a piece of a binary) is no session."""
    if objs:
        fmt = sniff(objs, path)
        if fmt is not None:
            return fmt
        keys = ", ".join(str(key)[:40] for key in list(objs[0])[:5])
        return f"{NOT_A_SESSION} (no known format; its first record has keys: {keys})"
    if only_bytes is not None and _opens_an_object(only_bytes):
        return DEFAULT
    return f"{NOT_A_SESSION} (no JSON object in its first lines)"


def _opens_an_object(data: bytes) -> bool:
    """Whether ``data`` could be the start of one JSON object on a line:
    ``{`` first, UTF-8 (a character cut at the end allowed), no NUL."""
    start = data.removeprefix(_BOM).lstrip(b" \t\r")
    if not start.startswith(b"{") or b"\x00" in start:
        return False
    try:
        codecs.getincrementaldecoder("utf-8")().decode(start, final=False)
    except UnicodeDecodeError:
        return False
    return True
