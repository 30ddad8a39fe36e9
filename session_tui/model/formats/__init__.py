"""Format adapters and sniffing (docs/formats.md#telling-the-formats-apart)."""

from __future__ import annotations

import codecs
import importlib
from typing import TYPE_CHECKING, Any

#: each format's reader module (its ``FORMAT``), imported on first use: the
#: picker's first frame needs none. Sniffed in this order, each reader loaded
#: when its turn comes: qwen before claude (Qwen Code writes Claude Code's
#: keys), astorlm before chat, and Claude Code, the most common, third (its
#: sniff, ``parentUuid`` with ``sessionId``, matches none of the others).
#: A new format is one line here.
READERS: dict[str, str] = {
    "tree": "tree",
    "qwen": "qwen.reader",
    "claude": "claude.reader",
    "pi": "pi.reader",
    "codex": "codex.reader",
    "gemini": "gemini.reader",
    "copilot": "copilot.reader",
    "opencode": "opencode.reader",
    "astorlm": "astorlm",
    "chat": "chat",
}
#: the module of each format's client (its ``CLIENT``, the reader's ``client``): light, imported
#: without the reader where only the client is asked for (the picker's badges: its process names)
CLIENTS: dict[str, str] = {
    "pi": "pi.client",
    "codex": "codex.client",
    "gemini": "gemini.client",
    "qwen": "qwen.client",
    "copilot": "copilot.client",
    "opencode": "opencode.client",
    "claude": "claude.client",
}
_DEFAULT = "tree"  # an empty file is an empty native session
_loaded: dict[str, Format] = {}

if TYPE_CHECKING:  # (at run time: ``__getattr__``, the readers imported on first use)
    from .base import Format as Format  # re-exported: what get_format returns
    from .client import Client

    FORMATS: dict[str, Format]
    DEFAULT: Format


def _load(name: str) -> Format:
    found = _loaded.get(name)
    if found is None:
        from .base import Format

        found = importlib.import_module(f"{__name__}.{READERS[name]}").FORMAT
        assert isinstance(found, Format) and found.name == name, (name, found)
        _loaded[name] = found
    return found


def _all() -> dict[str, Format]:
    return {name: _load(name) for name in READERS}


def __getattr__(attr: str) -> Any:
    if attr == "FORMATS":
        return _all()
    if attr == "DEFAULT":
        return _load(_DEFAULT)
    if attr == "Format":  # (the readers' base: not imported with a format's path helpers or client)
        from .base import Format

        return Format
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


def get_format(name: str) -> Format:
    if name not in READERS:
        raise ValueError(f"unknown format {name!r} (known: {', '.join(READERS)})")
    return _load(name)


def client_of(name: str) -> Client | None:
    """The client of format ``name`` (None: it has none), without its reader."""
    module = CLIENTS.get(name)
    if module is None:
        return None
    client: Client = importlib.import_module(f"{__name__}.{module}").CLIENT
    return client


def sniff(objs: list[dict[str, Any]], path: str | None = None) -> Format | None:
    """The format whose signature the first parsed records match (some
    also look at a sidecar beside ``path``), or None."""
    if not objs:
        return None
    for name in READERS:  # each imported when its turn comes: a tree session loads no other reader
        fmt = _load(name)
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
        return _load(_DEFAULT)
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
