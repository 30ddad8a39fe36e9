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
from .query import Query, match_expression

FIRST_PAGE = 256  # candidates read at first (each page twice the last, up to LAST_PAGE)
LAST_PAGE = 4096
COLUMNS = "f.path, f.format, d.line, d.offset, d.length, d.entry, d.role, d.kind, d.time, d.id"
TOP = (1 << 63) - 1  # the largest id there can be (ids stay below it)


def candidates(db: sqlite3.Connection, query: Query, roots: list[str]) -> Iterator[tuple[Any, ...]]:
    """Rows (path, format, line, offset, length, entry, role, kind, time, id), newest first (by id: by
    hour, and in an hour as indexed; ``run_query`` puts the hits of one hour in order)."""
    where, args = _where(query, roots)
    expression = match_expression(query)
    below, size = TOP, FIRST_PAGE
    while True:
        if expression is None:
            rows = db.execute(
                f"SELECT {COLUMNS} FROM docs d JOIN files f ON f.id = d.file "
                f"WHERE d.id < ? AND {where} ORDER BY d.id DESC LIMIT ?",
                [below, *args, size],
            ).fetchall()
            if not rows:
                return
            yield from rows
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
            marks = ",".join("?" * len(ids))
            yield from db.execute(
                f"SELECT {COLUMNS} FROM docs d JOIN files f ON f.id = d.file "
                f"WHERE d.id IN ({marks}) AND {where} ORDER BY d.id DESC",
                [*ids, *args],
            )
            below = ids[-1]
        size = min(size * 2, LAST_PAGE)


def _where(query: Query, roots: list[str]) -> tuple[str, list[Any]]:
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
        clauses.append("d.model LIKE ?")
        args.append(f"%{query.model}%")
    if query.format:
        clauses.append("f.format = ?")
        args.append(query.format)
    if query.after is not None:
        clauses.append("d.time >= ?")
        args.append(query.after)
    if query.before is not None:
        clauses.append("d.time < ?")
        args.append(query.before)
    for group in (query.under, roots):
        if group:
            clauses.append("(" + " OR ".join("f.path = ? OR f.path LIKE ? ESCAPE '\\'" for _ in group) + ")")
            for root in group:
                root = absolute(root)
                escaped = root.rstrip("/").replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                args.extend([root, escaped + "/%"])
    return (" AND ".join(clauses) or "1"), args
