"""What the archive's database is asked for a query's terms: conditions on
the chunks of a line (``model/reading/searched.py``: a line's searched
text — its record's strings, what a local search checks — in overlapping
pieces) that every hit meets; never fewer lines than the hits: the check
of each candidate, ``archive_search``, is the one a local search makes.

Each term is looked up in pieces: a phrase's (and a ``path:``'s) exactly
(``LIKE``, its ``%``, ``_`` and ``\\`` escaped: matched literally); a word's
ignoring case as Python's ``str.lower`` does, which the check applies,
whatever the database's collation: each ASCII letter as the class of the
characters whose lower case is it (``[kKK]``: the Kelvin sign; ``[iIİ]``),
a character without case as itself, and the word cut at each character
beyond ASCII with a case (or U+0307, which a lower case may hold: ``İ``) —
a regular expression, which pg_trgm indexes too. Every term is cut where a
chunk cannot hold a character (NUL, a lone surrogate: a newline there), and
a piece longer than the chunks' overlap is looked up by its first
``OVERLAP`` characters (any shorter piece is whole in one chunk).

A piece with no run of three letters or digits gives the trigram index
nothing to look up: it is asked as a plain filter (``strpos``,
``textregexeq``), never as an index condition that reads the whole index.

A line of several chunks may hold a query's pieces in different chunks:
its chunks are asked for one piece, the ``key`` (the longest that the
index looks up); a line of one chunk (``whole``) for every piece.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..reading.searched import OVERLAP, UNSTORABLE
from .query import Query

TEXT = "c.text"  # a chunk's text (alias ``c``: the table ``chunks``)
_RUN = re.compile(r"[^\W_]{3}")  # three letters or digits in a row: a trigram to look up
_SPECIAL = {"k": "kK\u212a", "i": "iI\u0130"}  # (the characters beyond ASCII whose lower case holds an ASCII letter)


@dataclass
class Piece:
    clause: str  # on ``c.text``
    arg: str
    length: int
    looked_up: bool  # by the trigram index


def _cut(text: str, word: bool) -> list[str]:
    """``text`` cut where a chunk cannot hold a character (for a word, also
    at each character beyond ASCII with a case), its pieces, each at most
    ``OVERLAP`` characters (a longer one: its start)."""
    pieces: list[str] = []
    piece: list[str] = []
    for ch in text:
        code = ord(ch)
        cut = UNSTORABLE.match(ch) is not None
        if word and code > 0x7F:
            cut = cut or ch == "\u0307" or ch.lower() != ch or ch.upper() != ch
        if cut:
            pieces.append("".join(piece))
            piece = []
        else:
            piece.append(ch)
    pieces.append("".join(piece))
    return [p[:OVERLAP] for p in pieces if p]


def like_pattern(piece: str) -> str:
    """``%piece%`` with LIKE's wildcards and escape character taken literally."""
    return "%" + piece.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def word_regex(piece: str) -> str:
    """A regular expression (PostgreSQL's) matching ``piece`` ignoring case as ``str.lower`` folds it."""
    out = []
    for ch in piece:
        low = ch.lower()
        if ch.isascii() and ch.isalpha():
            out.append("[" + _SPECIAL.get(low, low + low.upper()) + "]")
        elif ch.isascii() and not ch.isalnum():
            out.append("\\" + ch)  # (a backslash before a character that is no letter or digit: that character)
        else:
            out.append(ch)
    return "".join(out)


def pieces(term: str, word: bool) -> list[Piece]:
    """The conditions on a chunk that each piece of ``term`` puts (a word ignoring case, else exactly)."""
    out = []
    for piece in _cut(term, word):
        looked_up = _RUN.search(piece) is not None
        if word:
            clause = f"{TEXT} ~ %s" if looked_up else f"textregexeq({TEXT}, %s)"
            out.append(Piece(clause, word_regex(piece), len(piece), looked_up))
        else:
            clause = f"{TEXT} LIKE %s" if looked_up else f"strpos({TEXT}, %s) > 0"
            out.append(Piece(clause, like_pattern(piece) if looked_up else piece, len(piece), looked_up))
    return out


def conditions(query: Query) -> tuple[str | None, list[Any], bool]:
    """The SQL condition on a chunk (alias ``c``) that some chunk of each
    line holding a hit of ``query``'s terms meets (None: the query has no
    terms, every line is a candidate), its parameters, and whether the
    trigram index has something to look up in it."""
    found: list[Piece] = []
    for term, word in [*((w, True) for w in query.words), *((p, False) for p in [*query.phrases, *query.paths])]:
        found += pieces(term, word)
    if not found:
        return None, [], False
    key = max(found, key=lambda p: (p.looked_up, p.length))
    rest = [p for p in found if p is not key]
    if not rest:
        return key.clause, [key.arg], key.looked_up
    others = " AND ".join(p.clause for p in rest)
    return f"({key.clause} AND (NOT c.whole OR ({others})))", [key.arg, *(p.arg for p in rest)], key.looked_up
