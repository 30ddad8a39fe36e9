"""What the archive's database is asked for a query's terms: conditions on
each line that every hit meets (never fewer lines than the hits: the check
of each candidate, ``archive_search``, is the one a local search makes).

The lines are asked as ``SEARCHED``: a line's record as PostgreSQL's
``jsonb`` prints it (its strings unescaped: ``é`` for ``\\u00e9``, ``/`` for
``\\/``, CJK as written), else its text; the archive's trigram index
(``pg_trgm``, migration 2) is over that very expression. A string of a
record is there as it is, but for the characters jsonb escapes (``"``,
``\\``, control characters: a newline between two strings is one), so a
term is cut at those into pieces, each asked for on its own (and at ``/``:
a line without a record may write it ``\\/``):

- a phrase's (and a ``path:``'s) pieces as they are (``LIKE``, its ``%``,
  ``_`` and ``\\`` escaped: matched literally);
- a word's pieces ignoring case as Python's ``str.lower`` does, which the
  check applies, whatever the database's collation: each ASCII letter as
  the class of the characters whose lower case is it (``[kKK]``: the Kelvin
  sign; ``[iIİ]``), a character without case as itself, and the word also
  cut at each character beyond ASCII with a case (or U+0307, which a lower
  case may hold: ``İ``) — a regular expression, which pg_trgm indexes too.

A piece with no run of three letters or digits gives the trigram index
nothing to look up: it is asked as a plain filter (``strpos``,
``textregexeq``), never as an index condition that reads the whole index.
A line without a record whose text escapes some character (``\\u``) is a
candidate whatever is asked (it may write a piece escaped); the index
``lines_escaped`` keeps them, few as they are.
"""

from __future__ import annotations

import re
from typing import Any

from .query import Query

#: the expression the trigram index is over (``model/archive/migrations.py``: ``SEARCHED``, on ``lines``)
SEARCHED = "coalesce(l.record::text, l.text)"
ESCAPED = "(l.record IS NULL AND l.text IS NOT NULL AND strpos(l.text, '\\u') > 0)"
_RUN = re.compile(r"[^\W_]{3}")  # three letters or digits in a row: a trigram to look up
_SPECIAL = {"k": "kK\u212a", "i": "iI\u0130"}  # (the characters beyond ASCII whose lower case holds an ASCII letter)


def _cut(text: str, word: bool) -> list[str]:
    """``text`` cut at the characters jsonb may escape (and ``/``; for a
    word, at each character beyond ASCII with a case), its pieces."""
    pieces: list[str] = []
    piece: list[str] = []
    for ch in text:
        code = ord(ch)
        cut = ch in '"\\/' or code < 0x20 or code == 0x7F
        if word and code > 0x7F:
            cut = cut or ch == "\u0307" or ch.lower() != ch or ch.upper() != ch
        if cut:
            pieces.append("".join(piece))
            piece = []
        else:
            piece.append(ch)
    pieces.append("".join(piece))
    return [p for p in pieces if p]


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


def term_conditions(term: str, word: bool) -> tuple[list[str], list[Any], bool]:
    """The conditions on a line (alias ``l``) that each piece of ``term``
    puts (a word ignoring case, else exactly), their parameters, and
    whether the trigram index has one to look up."""
    clauses: list[str] = []
    args: list[Any] = []
    indexed = False
    for piece in _cut(term, word):
        looked_up = _RUN.search(piece) is not None
        indexed = indexed or looked_up
        if word:
            clauses.append(f"{SEARCHED} ~ %s" if looked_up else f"textregexeq({SEARCHED}, %s)")
            args.append(word_regex(piece))
        else:
            clauses.append(f"{SEARCHED} LIKE %s" if looked_up else f"strpos({SEARCHED}, %s) > 0")
            args.append(like_pattern(piece) if looked_up else piece)
    return clauses, args, indexed


def conditions(query: Query) -> tuple[str, list[Any], bool]:
    """The SQL condition on a line (alias ``l``) that every hit of ``query``'s
    terms meets, its parameters, and whether the trigram index has something
    to look up in it."""
    clauses: list[str] = []
    args: list[Any] = []
    indexed = False
    for term, word in [*((w, True) for w in query.words), *((p, False) for p in [*query.phrases, *query.paths])]:
        more, more_args, looked_up = term_conditions(term, word)
        clauses += more
        args += more_args
        indexed = indexed or looked_up
    if not clauses:
        return "TRUE", [], False
    return f"(({' AND '.join(clauses)}) OR {ESCAPED})", args, indexed
