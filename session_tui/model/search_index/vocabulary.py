"""The words of the index, and the pieces inside them.

The ``words`` table (``database``) is a contentless FTS5 index of whole
words and their positions: the ``ascii`` tokenizer, every character
beyond ASCII a word character, ``_`` (as ``.``, ``/``, ``-``) not: an
identifier, a path, a uuid is its words, found as a phrase of them (kept
whole, each snake_case compound was a word of its own: the bench's varied
100 MB archive had 1.6 M words, not 0.9 M). Those rules are the ones ``split`` below
applies to a query, character for character: no Unicode table of SQLite's
and Python's has to agree for a query to find what the text holds (a word
of ``İ``, Cherokee or a script newer than SQLite's tables would otherwise
be cut or folded one way in the index and another in the query). Case is
folded for ASCII only; beyond it a word is kept as written, and found
ignoring case through the vocabulary below.

A query's words match anywhere inside the text's (``Parser`` in
``JsonlParserError``, a hash's middle, a run of CJK text, which has no
spaces and is one word): ``terms`` lists each word the index holds, once,
and ``term_grams`` is a trigram index over them (lower-cased as Python
does, as the check of a hit does), so the words holding a piece are found
without reading the vocabulary through; the index is then asked for those
words. The vocabulary is kept as current as the index: in the transaction
that writes a batch's documents (its words read by a scratch FTS5 table of
the same tokenizer), or, for a build of much at once, from the index's own
list (``fts5vocab``) once at its end, the index marked ``stale`` meanwhile
(a killed build's vocabulary is made whole by the next catch-up; a search
meanwhile takes a piece as unconstrained, and reads more)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable

from .marks import BASE

TOKENIZER = "ascii"
_WORD = re.compile(r"[0-9A-Za-z\x80-\U0010ffff]+")  # (what the ascii tokenizer keeps together)
MANY = 1000  # words holding a piece past which the piece is left to the check (an OR of them costs more than it saves)
GRAM = 3


def split(text: str) -> list[tuple[str, bool, bool]]:
    """The words of ``text`` as the index cuts them, each with whether
    something comes before it and after it in ``text`` (then the text's word
    starts, or ends, there too)."""
    return [(m.group(), m.start() > 0, m.end() < len(text)) for m in _WORD.finditer(text)]


def _mark(term: str) -> bool:
    """Whether ``term`` is one of ``marks``'s fields (never a piece's word)."""
    return len(term) == 3 and BASE <= ord(term[0]) < BASE + 0x100


def stale(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM meta WHERE key='vocabulary' AND value='stale'").fetchone() is not None


def mark_stale(db: sqlite3.Connection) -> None:
    db.execute("INSERT OR REPLACE INTO meta VALUES('vocabulary', 'stale')")


_NEW_GRAMS = (  # (a word of ASCII is lower case already: the tokenizer folds it; the others are folded here)
    "INSERT INTO term_grams(rowid, term) SELECT id, term FROM terms WHERE id > ? AND NOT term GLOB '*[^\x01-\x7f]*'"
)


def _add(db: sqlite3.Connection, terms: Iterable[str] | None = None) -> None:
    """``terms`` (None: every word of the index) into the vocabulary, the
    new ones' trigrams with them (in the caller's transaction). (Their ids
    run on: the trigram index keeps the gaps between ids, small; a hash of
    each word for its id, to keep the words without a second index of
    them, made it four times bigger.)"""
    last = db.execute("SELECT coalesce(max(id), 0) FROM terms").fetchone()[0]
    if terms is None:
        db.execute(
            "INSERT OR IGNORE INTO terms(term) SELECT term FROM temp.words_vocab"
            " WHERE NOT (length(term) = 3 AND unicode(term) BETWEEN ? AND ?)",
            (BASE, BASE + 0xFF),
        )
    else:
        db.executemany("INSERT OR IGNORE INTO terms(term) VALUES(?)", ((t,) for t in terms if not _mark(t)))
    db.execute(_NEW_GRAMS, (last,))
    beyond = db.execute("SELECT id, term FROM terms WHERE id > ? AND term GLOB '*[^\x01-\x7f]*'", (last,))
    db.executemany("INSERT INTO term_grams(rowid, term) VALUES(?, ?)", [(k, t.lower()) for k, t in beyond])


def add_texts(db: sqlite3.Connection, texts: list[str]) -> None:
    """The words of ``texts`` (a batch just indexed) into the vocabulary, as
    the index's tokenizer cuts them."""
    if not texts:
        return
    scratch = sqlite3.connect(":memory:")
    try:
        scratch.execute(
            f"CREATE VIRTUAL TABLE b USING fts5(body, tokenize=\"{TOKENIZER}\", content='', detail=none, columnsize=0)"
        )
        scratch.execute("CREATE VIRTUAL TABLE v USING fts5vocab(b, row)")
        scratch.executemany("INSERT INTO b(rowid, body) VALUES(?, ?)", enumerate(texts, 1))
        _add(db, (row[0] for row in scratch.execute("SELECT term FROM v")))
    finally:
        scratch.close()


def refresh(db: sqlite3.Connection) -> None:
    """The vocabulary made whole from the index's own list of its words (one transaction)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.words_vocab USING fts5vocab(main, words, row)")
        _add(db)
        db.execute("DELETE FROM meta WHERE key='vocabulary'")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def holding(db: sqlite3.Connection, piece: str, starts: bool, ends: bool) -> list[str] | None:
    """The index's words that hold ``piece`` ignoring case (``starts``: that
    begin with it; ``ends``: that end with it; both: that are it); None:
    too many of them to be worth asking for, or a piece too short to look up."""
    folded = piece.lower()
    if starts and ends and folded.isascii():
        return [folded]  # (the tokenizer folds ASCII as lower() does)
    if len(folded) < GRAM or stale(db):
        return None
    grams = list(dict.fromkeys(folded[k : k + GRAM] for k in range(len(folded) - GRAM + 1)))
    expression = " AND ".join('"' + g.replace('"', '""') + '"' for g in grams)
    found = []
    rows = db.execute(
        "SELECT t.term FROM term_grams g JOIN terms t ON t.id = g.rowid WHERE term_grams MATCH ?", (expression,)
    )
    for (term,) in rows:
        low = term.lower()
        at = low.find(folded)
        if at < 0 or (starts and not low.startswith(folded)) or (ends and not low.endswith(folded)):
            continue
        found.append(term)
        if len(found) > MANY:
            return None
    return found
