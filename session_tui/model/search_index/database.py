"""The index on disk: one SQLite file in the cache dir.

``files`` says how far each session file is indexed (its size, time, first
bytes, the byte offset and line reached); ``docs`` holds each document's
fields; ``grams`` is a contentless FTS5 table of trigrams without positions
(``detail=none``: half the size of the sessions it indexes), queried one
trigram at a time and checked against the record itself. Each file's
documents and its ``files`` row change in one transaction: a killed run
leaves a usable index. A file that cannot be read as an index is moved
aside and built again, with a one-line notice.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable

from ..cache_dir import default_cache_dir

NAME = "search.sqlite"
SCHEMA = 1
_TABLES = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value);
CREATE TABLE IF NOT EXISTS files(
    id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, format TEXT, size INTEGER, mtime_ns INTEGER,
    head BLOB, indexed_to INTEGER, lines INTEGER, model TEXT, calls TEXT);
CREATE TABLE IF NOT EXISTS docs(
    id INTEGER PRIMARY KEY, file INTEGER NOT NULL, line INTEGER, offset INTEGER, length INTEGER,
    entry TEXT, role TEXT, kind TEXT, tool TEXT, error INTEGER, time REAL, model TEXT);
CREATE INDEX IF NOT EXISTS docs_file ON docs(file);
CREATE INDEX IF NOT EXISTS docs_time ON docs(time);
CREATE VIRTUAL TABLE IF NOT EXISTS grams USING fts5(body, tokenize='trigram', content='', detail='none', columnsize=0);
"""


def open_database(cache_dir: str | None = None, notice: Callable[[str], None] | None = None) -> sqlite3.Connection:
    """The index, created if missing; one that is not a readable index of
    this schema is moved aside (``<name>.corrupt-<time>``) and made anew."""
    folder = cache_dir or default_cache_dir()
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, NAME)
    try:
        return _open(path)
    except sqlite3.DatabaseError as exc:
        aside = f"{path}.corrupt-{int(time.time())}"
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.replace(path + suffix, aside + suffix)
        if notice is not None:
            notice(f"the search index was unreadable ({exc}): moved to {aside}, building it again")
        return _open(path)


def _open(path: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(_TABLES)
    found = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    if found is None:
        db.execute("INSERT INTO meta VALUES('schema', ?)", (SCHEMA,))
        db.execute("INSERT INTO grams(grams, rank) VALUES('automerge', 8)")  # (fewer merges while building)
        db.execute("INSERT INTO grams(grams, rank) VALUES('hashsize', 33554432)")  # (fewer, bigger segments)
    elif found[0] != SCHEMA:
        raise sqlite3.DatabaseError(f"schema {found[0]}, not {SCHEMA}")
    db.execute("SELECT count(*) FROM grams WHERE grams MATCH 'zzz'").fetchone()  # (reads the FTS structure)
    return db
