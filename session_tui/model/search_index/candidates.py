"""The candidates of a query, newest first: the documents that may hold it.

Each term of the query is cut into words as the index cuts them
(``vocabulary.split``); each word, the words of the index that may hold
it there (the word itself between two others, a word ending with it where
the term starts, one starting with it where it ends, any word holding it
for a term of one word); the index is asked for the documents holding one
of each (a term of several words too: the index keeps no positions, the
check of each candidate tells the phrase; a word of it in many blocks of
the vocabulary is left to its other words, ``_most``). A
document's id is made from its time (``database.document_id``), so the
index gives those documents in id order, newest first, a page at a time,
with no sort of all of them: a word in most records (``message``,
``output``) costs its first page, not its hundreds of thousands of
candidates. The filters on the documents' fields are applied to
each page; a query of filters alone walks the documents by id."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from typing import Any

from ..catalog.cache import absolute
from ..formats.opencode.database import DB_NAME
from .query import Query, index_marks
from .vocabulary import blocks_of, holding, split

FIRST_PAGE = 256  # candidates read at first (each page four times the last, up to LAST_PAGE)
LAST_PAGE = 16384
PROBE = 256  # newest documents of each of a query's words looked at to tell how rare it is
COLUMNS = "d.file, d.line, d.offset, d.length, d.entry, d.role, d.kind, d.time, d.escaped, d.id"
PHRASE_BLOCKS = 256  # vocabulary blocks read for a word of a phrase, past which its other words narrow it down
TOP = (1 << 63) - 1  # the largest id there can be (ids stay below it)


def candidates(db: sqlite3.Connection, query: Query, roots: list[str]) -> Iterator[tuple[Any, ...]]:
    """Rows (path, format, line, offset, length, entry, role, kind, time, escaped, id), newest first (by id: by
    hour, and in an hour as indexed; ``run_query`` puts the hits of one hour in order). The entry is as the
    index keeps it: ``documents.entry_of`` reads it, for the hits alone (most candidates are not)."""
    if query.machines:
        return  # (the machines are the team archive's: ``archive_search``; no local file is one's)
    where, args = _where(query)
    files_where, files_args = _files_where(query, roots)
    files = {
        row[0]: row[1:] for row in db.execute(f"SELECT id, path, format FROM files f WHERE {files_where}", files_args)
    }
    if not files:
        return
    if files_where != "1" and len(files) < db.execute("SELECT count(*) FROM files").fetchone()[0]:
        where += f" AND d.file IN ({','.join('?' * len(files))})"
        args = [*args, *files]
    wanted = _wanted(db, query)
    if wanted is None:
        return  # (a word no document holds)
    expression = " AND ".join(_rarest(db, wanted)) if wanted else None
    below, size = TOP, FIRST_PAGE
    while True:
        if expression is None:
            rows = db.execute(
                f"SELECT {COLUMNS} FROM docs d WHERE d.id < ? AND {where} ORDER BY d.id DESC LIMIT ?",
                [below, *args, size],
            ).fetchall()
            if not rows:
                return
            below = rows[-1][-1]
        else:
            ids = [
                row[0]
                for row in db.execute(
                    "SELECT rowid FROM words WHERE words MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?",
                    (expression, below, size),
                )
            ]
            if not ids:
                return
            below = ids[-1]
            rows = db.execute(
                f"SELECT {COLUMNS} FROM docs d WHERE d.id IN ({','.join('?' * len(ids))}) AND {where} "
                "ORDER BY d.id DESC",
                [*ids, *args],
            ).fetchall()
        for file, line, offset, length, entry, *rest in rows:
            found = files.get(file)
            if found is not None:
                yield (*found, line, offset, length, entry, *rest)
        size = min(size * 4, LAST_PAGE)


def _quoted(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _wanted(db: sqlite3.Connection, query: Query) -> list[str] | None:
    """What the index is asked for, one FTS5 expression a hit must match
    each (none: nothing narrows the documents down; None: no document can
    match): for each word of each term, the index's words that may hold
    it there (a term of several words: each of its words so, the index
    keeps no positions: the check tells the phrase); the marks of the
    fields filtered on."""
    found: list[str] = []
    for term in query.terms():
        cut = split(term)
        blocks = [blocks_of(db, *word) for word in cut]  # (each word's trigrams asked once)
        held = [holding(db, *word, most, found) for word, most, found in zip(cut, _most(blocks), blocks, strict=True)]
        for words in held:
            if words is None:
                continue  # (too short, or in too many words: left to the check)
            if not words:
                return None
            either = " OR ".join(map(_quoted, words))
            found.append(either if len(words) == 1 else f"({either})")
    found += [_quoted(m) for m in index_marks(query)]
    return list(dict.fromkeys(found))


def _most(blocks: list[list[int] | None]) -> list[int | None]:
    """How many blocks of the vocabulary may be read for each word of a
    term (``blocks``: each word's, ``blocks_of``): all for a term of one
    word; for one of several, all for the word in the fewest, PHRASE_BLOCKS
    for the others (a word in more, ``the`` ending a word, narrows little,
    and its blocks take milliseconds: its other words narrow the term down)."""
    if len(blocks) < 2:
        return [None] * len(blocks)
    looked = [k for k, found in enumerate(blocks) if found is not None]
    fewest = min(looked, key=lambda k: len(blocks[k] or ())) if looked else -1
    return [None if k == fewest else PHRASE_BLOCKS for k in range(len(blocks))]


def _rarest(db: sqlite3.Connection, wanted: list[str]) -> list[str]:
    """``wanted`` rarest first: the index intersects them in the order
    given, and starting from a rare one skips most of the common ones'
    lists. An expression's rarity: how far back its PROBE newest documents
    reach."""
    if len(wanted) <= 2:
        return wanted
    reach = {}
    for expression in wanted:
        rows = db.execute(
            "SELECT rowid FROM words WHERE words MATCH ? ORDER BY rowid DESC LIMIT ?", (expression, PROBE)
        ).fetchall()
        reach[expression] = rows[-1][0] if len(rows) == PROBE else -1  # (fewer: rarer than any that has them all)
    return sorted(wanted, key=reach.__getitem__)


def _where(query: Query) -> tuple[str, list[Any]]:
    """The filters on a document's own fields."""
    clauses: list[str] = []
    args: list[Any] = []
    if query.role:
        clauses.append("d.role = ?")
        args.append(query.role)
    if query.tool:
        clauses.append("d.tool = ?")
        args.append(query.tool)
    if query.error:
        clauses.append("d.error = 1 AND d.kind = 'result'")
    if query.paths:
        clauses.append("d.kind = 'call'")
    if query.model:
        clauses.append("d.model IN (SELECT id FROM models WHERE instr(lower(name), ?) > 0)")  # (no LIKE wildcards)
        args.append(query.model.lower())
    if query.secret is not None:
        clauses.append("d.secrets IS NOT NULL" if not query.secret else "instr(',' || d.secrets || ',', ?) > 0")
        args += [f",{query.secret},"] if query.secret else []
    if query.after is not None:
        clauses.append("d.time >= ?")
        args.append(query.after)
    if query.before is not None:
        clauses.append("d.time < ?")
        args.append(query.before)
    return (" AND ".join(clauses) or "1"), args


def _files_where(query: Query, roots: list[str]) -> tuple[str, list[Any]]:
    """The filters on a document's file: its format, the folders it is under."""
    clauses: list[str] = []
    args: list[Any] = []
    if query.format:
        clauses.append("f.format = ?")
        args.append(query.format)
    for group in (query.under, roots):
        if group:
            clauses.append("(" + " OR ".join("f.path = ? OR f.path LIKE ? ESCAPE '\\'" for _ in group) + ")")
            for root in group:
                root = absolute(root)
                escaped = root.rstrip("/").replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                within = "#%" if os.path.basename(root) == DB_NAME else "/%"  # (an opencode database: its sessions)
                args.extend([root, escaped + within])
    return (" AND ".join(clauses) or "1"), args
