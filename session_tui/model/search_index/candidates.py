"""The candidates of a query, newest first: the documents that may hold it.

A document's id is made from its time (``database.document_id``), so the
index gives the documents holding every trigram of every term in id order,
newest first, a page at a time, with no sort of all of them: a word in most
records (``message``, ``output``) costs its first page, not its hundreds of
thousands of candidates. The filters on the documents' fields are applied to
each page; a query of filters alone walks the documents by id."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from ..catalog.cache import absolute
from .query import Query, index_grams, match_expression

FIRST_PAGE = 256  # candidates read at first (each page four times the last, up to LAST_PAGE)
LAST_PAGE = 16384
PROBE = 256  # newest documents of each trigram looked at to tell how rare it is
COLUMNS = "d.file, d.line, d.offset, d.length, d.entry, d.role, d.kind, d.time, d.id"
TOP = (1 << 63) - 1  # the largest id there can be (ids stay below it)


def candidates(db: sqlite3.Connection, query: Query, roots: list[str]) -> Iterator[tuple[Any, ...]]:
    """Rows (path, format, line, offset, length, entry, role, kind, time, id), newest first (by id: by
    hour, and in an hour as indexed; ``run_query`` puts the hits of one hour in order)."""
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
    wanted = _rarest(db, index_grams(query))
    expression = match_expression(wanted) if wanted else None
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
                    "SELECT rowid FROM grams WHERE grams MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?",
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
        for file, *rest in rows:
            found = files.get(file)
            if found is not None:
                yield (*found, *rest)
        size = min(size * 4, LAST_PAGE)


def _rarest(db: sqlite3.Connection, wanted: list[str]) -> list[str]:
    """``wanted`` rarest first: the index intersects its trigrams in the
    order given, and starting from a rare one skips most of the common ones'
    lists ("message message" on 420 MB: 109 ms in the order written, 48 ms
    rarest first). A trigram's rarity: how far back its PROBE newest
    documents reach."""
    if len(wanted) <= 2:
        return wanted
    reach = {}
    for gram in wanted:
        rows = db.execute(
            "SELECT rowid FROM grams WHERE grams MATCH ? ORDER BY rowid DESC LIMIT ?",
            (match_expression([gram]), PROBE),
        ).fetchall()
        reach[gram] = rows[-1][0] if len(rows) == PROBE else -1  # (fewer: rarer than any that has them all)
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
        clauses.append("instr(lower(d.model), ?) > 0")  # (a substring: no LIKE wildcards in a name)
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
                args.extend([root, escaped + "/%"])
    return (" AND ".join(clauses) or "1"), args
