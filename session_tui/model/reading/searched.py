"""What a search of the archive asks for (``archive`` writes it at push,
``search_index`` looks it up): each line's searched text (what a
local search checks: its record's strings, one per line, ``text_of``), cut
into overlapping chunks, the only rows of the trigram index (schema 4).

A line whose record its format leaves out of search (``unsearched``), or
that is no JSON object, has no chunk: it is never a hit. A text longer than
``CHUNK`` characters is cut every ``CHUNK - OVERLAP`` characters, each chunk
``CHUNK`` long, so any piece of up to ``OVERLAP`` characters is whole in one
chunk (a longer piece is looked up by its first ``OVERLAP`` characters:
``search_index/archive_terms.py``). The index reads a few KB per candidate,
never a 300 KB tool result whose trigrams hold nearly every word.

What PostgreSQL's text cannot hold (NUL, a lone surrogate) is a newline in
a chunk; the terms looked up are cut there too (``archive_terms``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .record_text import text_of
from .records import BOM, BadLine, parse_object

CHUNK = 2048  # characters of a chunk
OVERLAP = 128  # characters two chunks share: the longest piece looked up whole
#: what a chunk cannot hold (PostgreSQL's text): written as a newline
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def searched_record(line: bytes, first: bool, unsearched: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
    """The record a search checks of one stored line (``first``: the file's
    first, whose BOM is not part of it; ``unsearched``: its format's), or
    None when it is never a hit."""
    if first and line.startswith(BOM):
        line = line[len(BOM) :]
    if not line.lstrip(b" \t\r\n").startswith(b"{"):  # (JSON's white space)
        return None
    try:
        record = parse_object(line)
    except BadLine:
        return None
    return None if unsearched(record) else record


def searched_text(record: dict[str, Any]) -> str:
    """What the chunks of a searched record hold: its strings, one per line
    (what a search checks), in lower case (as ``str.lower``: the case a
    word is looked up in; a phrase, exact, is checked after)."""
    text = text_of(record).lower()
    if "\x00" in text or not text.isascii():
        text = UNSTORABLE.sub("\n", text)
    return text


def chunks_of(text: str) -> list[str]:
    """``text`` in chunks of ``CHUNK`` characters overlapping by ``OVERLAP`` (one: the text itself)."""
    if len(text) <= CHUNK:
        return [text]
    step = CHUNK - OVERLAP
    return [text[at : at + CHUNK] for at in range(0, len(text) - OVERLAP, step)]
