"""What the archive's database is asked for a query's terms: conditions on
the chunks of a line (``model/reading/searched.py``: a line's searched
text — its record's strings, what a local search checks — in lower case,
in overlapping pieces) that every hit meets; never fewer lines than the
hits: the check of each candidate, ``archive_search``, is the one a local
search makes.

Each term is looked up in lower case, in pieces, with ``LIKE`` (its ``%``,
``_`` and ``\\`` escaped: matched literally): a word as the check folds it
(``w.lower() in text.lower()``: the chunks hold ``text.lower()``); a
phrase (and a ``path:``) cut at each character beyond ASCII with a case
(whose lower case may depend on its neighbours: ``Σ``), each piece then in
lower case, which the lower-case text holds wherever the phrase is. Every
term is also cut where a chunk cannot hold a character (NUL, a lone
surrogate: a newline there), and a piece longer than the chunks' overlap
is looked up by its first ``OVERLAP`` characters (any shorter piece is
whole in one chunk).

A piece with no run of three letters or digits gives the trigram index
nothing to look up: it is asked as a plain filter (``strpos``), never as
an index condition that reads the whole index.

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


@dataclass
class Piece:
    clause: str  # on ``c.text``
    arg: str
    length: int
    looked_up: bool  # by the trigram index


def _cut(text: str, word: bool) -> list[str]:
    """``text``'s pieces in lower case: cut where a chunk cannot hold a
    character (and, for a phrase, at each character beyond ASCII with a
    case), each at most ``OVERLAP`` characters (a longer one: its start)."""
    if word:
        text = text.lower()
    pieces: list[str] = []
    piece: list[str] = []
    for ch in text:
        cut = UNSTORABLE.match(ch) is not None
        if not word and ord(ch) > 0x7F:
            cut = cut or ch.lower() != ch or ch.upper() != ch
        if cut:
            pieces.append("".join(piece))
            piece = []
        else:
            piece.append(ch)
    pieces.append("".join(piece))
    return [(p if word else p.lower())[:OVERLAP] for p in pieces if p]


def like_pattern(piece: str) -> str:
    """``%piece%`` with LIKE's wildcards and escape character taken literally."""
    return "%" + piece.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def pieces(term: str, word: bool) -> list[Piece]:
    """The conditions on a chunk that each piece of ``term`` puts (a word ignoring case, else exactly)."""
    out = []
    for piece in _cut(term, word):
        if _RUN.search(piece):
            out.append(Piece(f"{TEXT} LIKE %s", like_pattern(piece), len(piece), True))
        else:
            out.append(Piece(f"strpos({TEXT}, %s) > 0", piece, len(piece), False))
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
