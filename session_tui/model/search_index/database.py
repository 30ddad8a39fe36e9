"""The index on disk: one SQLite file in the cache dir.

``files`` says how far each session file is indexed (its size, time, a
fingerprint of its first bytes, the byte offset and line reached); ``docs`` holds each document's
fields; ``words`` is a contentless FTS5 table of its words, without
their positions (``detail=none``: they were half of it; a phrase's
candidates are the records holding each of its words, and the check tells
the phrase: the index knows which records escape a character, so that a
big record without the phrase is passed over by one ``bytes`` search), and
``term_blocks``, ``hex_blocks`` and ``term_grams`` its vocabulary
and the trigrams of it, by which a piece inside a word is found
(``vocabulary``); every candidate is checked against the record itself. A document's id
is made from its time (``document_id``), so the index gives candidates
newest first by itself, a page at a time, without sorting them. Each file's
documents and its ``files`` row change in one transaction: a killed run
leaves a usable index. A file that cannot be read as an index is moved
aside and built again, with a one-line notice. No secret is kept at rest:
the text indexed has its secrets masked (``secrets_masked``), and the
folder is made 0700, the file 0600.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from ..cache_dir import trusted_cache_dir
from ..errors import SessionError
from .vocabulary import TOKENIZER

T = TypeVar("T")

NAME = "search.sqlite"
SCHEMA = 11  # 2: a document's id is its time (newest first is the index's own order); 3: no secret at rest;
# 4: words, not trigrams (pieces inside words through the vocabulary); 5: words with their positions;
# 6: ``_`` cuts words; 7: a client's telemetry left out (``Format.unsearched``); 8: the vocabulary in blocks
# (of sorted words, trigrams per block, long hex words apart), no unique index of it; 9: words without their
# positions (``detail=none``), whether a record escapes a character; 10: the vocabulary's blocks compressed,
# its hex words packed; 11: an entry's uuid in 16 bytes, a model by its number
_TABLES = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value);
CREATE TABLE IF NOT EXISTS files(
    id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, format TEXT, size INTEGER, mtime_ns INTEGER,
    head BLOB, indexed_to INTEGER, lines INTEGER, model TEXT, calls TEXT);
CREATE TABLE IF NOT EXISTS docs(
    id INTEGER PRIMARY KEY, file INTEGER NOT NULL, line INTEGER, offset INTEGER, length INTEGER,
    entry, role TEXT, kind TEXT, tool TEXT, error INTEGER, time REAL, model INTEGER, secrets TEXT, escaped INTEGER);
CREATE TABLE IF NOT EXISTS models(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL);
CREATE INDEX IF NOT EXISTS docs_file ON docs(file);
CREATE VIRTUAL TABLE IF NOT EXISTS words USING fts5(
    body, tokenize="{TOKENIZER}", content='', detail='none', columnsize=0);
CREATE TABLE IF NOT EXISTS term_blocks(id INTEGER PRIMARY KEY, terms BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS hex_blocks(id INTEGER PRIMARY KEY, digits INTEGER NOT NULL, terms BLOB NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS term_grams USING fts5(
    term, tokenize='trigram case_sensitive 1', content='', detail='none', columnsize=0);
"""


SEQUENCE = 20  # bits of an id below its hour: documents of one hour in the order they were indexed
TIMED = 1 << 38  # the ids of documents with a time start here (hour 2**18: 1999); those without one are below


class OlderSchema(sqlite3.DatabaseError):
    """An index another version of session-tui made: built again (no data of the user's is in it)."""


def document_id(when: float | None, sequence: int) -> int:
    """The id of a document: the hour of its time, then ``sequence`` (the
    index's running count), so that ids sort as the documents' times to the
    hour and, within a file, as its lines; without a time, the sequence
    alone, below every timed id. (Hours, not milliseconds: the index stores
    the gaps between ids, and a file's entries of one hour then differ by
    one: the index stays as small as with ids in index order.) Two
    documents of one hour indexed 2**20 apart would get the same id: the
    indexer moves the later one up (``free_ids``)."""
    if when is None:
        return sequence
    return max(int(when // 3600), TIMED >> SEQUENCE) << SEQUENCE | (sequence & ((1 << SEQUENCE) - 1))


def hour_of(doc_id: int) -> int:
    """The hour part of an id (0: a document without a time)."""
    return doc_id >> SEQUENCE if doc_id >= TIMED else 0


def free_ids(db: sqlite3.Connection, ids: list[int]) -> list[int]:
    """``ids`` with each one already taken (in the index, or earlier in
    ``ids``) moved up to the next free one."""
    taken: set[int] = set()
    for k in range(0, len(ids), 500):
        chunk = ids[k : k + 500]
        taken.update(r[0] for r in db.execute(f"SELECT id FROM docs WHERE id IN ({','.join('?' * len(chunk))})", chunk))
    out = []
    for doc_id in ids:
        while doc_id in taken:
            doc_id += 1
        taken.add(doc_id)
        out.append(doc_id)
    return out


@contextmanager
def writing(path: str, should_stop: Callable[[], bool] | None = None) -> Iterator[None]:
    """One writer of the index at a time, across processes: a lock on
    ``<index>.lock`` held while the index is made or caught up (two first
    searches, or a search while ``live`` feeds it, would otherwise both add
    the same files). The others wait, then find the index current;
    ``should_stop`` ends the wait (``Cancelled``)."""
    fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        if should_stop is None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        else:
            from ..errors import Cancelled

            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if should_stop():
                        raise Cancelled() from None
                    time.sleep(0.05)  # (the other writer's progress is not ours to see)
        yield
    finally:
        os.close(fd)  # (and the lock with it)


def path_of(db: sqlite3.Connection) -> str:
    """The file of an open index."""
    return str(db.execute("PRAGMA database_list").fetchone()[2])


def _private_folder() -> str:
    """A folder of this process's own (0700), removed when it ends: where the
    index is built when the cache dir cannot be trusted."""
    import atexit
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="session-tui-index-")
    atexit.register(shutil.rmtree, folder, True)
    return folder


def open_database(cache_dir: str | None = None, notice: Callable[[str], None] | None = None) -> sqlite3.Connection:
    """The index, created if missing; one that is not a readable index of
    this schema is moved aside (``<name>.corrupt-<time>``) and made anew."""
    folder = trusted_cache_dir(cache_dir) or _private_folder()  # (a cache dir not ours: an index of this run's)
    path = os.path.join(folder, NAME)
    with writing(path):
        return _open_or_rebuild(path, notice)


def _open_or_rebuild(path: str, notice: Callable[[str], None] | None) -> sqlite3.Connection:
    try:
        return _open(path)
    except OlderSchema:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.unlink(path + suffix)
        if notice is not None:
            notice("the search index was made by an older session-tui: building it again")
        return _open(path)
    except sqlite3.DatabaseError as exc:
        if not damaged(exc):
            raise Unavailable(f"the search index {path}: {exc}") from None
        _move_aside(path, exc, notice)
        return _open(path)


class Unavailable(SessionError):
    """The index cannot be written or read for a reason of the disk's (full,
    read-only, I/O): said in one line; the index is kept as it is."""


def damaged(exc: BaseException) -> bool:
    """Whether ``exc`` says the index file itself is damaged (malformed
    pages, not a database): then it is built again. A full disk, a
    read-only folder, a lock or an I/O error is no damage of the file's."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
    said = str(exc)
    return "malformed" in said or "not a database" in said


def _move_aside(path: str, exc: BaseException, notice: Callable[[str], None] | None) -> None:
    aside = f"{path}.corrupt-{int(time.time())}"
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.replace(path + suffix, aside + suffix)
    if notice is not None:
        notice(f"the search index was unreadable ({exc}): moved to {aside}, building it again")


def rebuilt(db: sqlite3.Connection, exc: BaseException, notice: Callable[[str], None] | None) -> sqlite3.Connection:
    """The index made anew after ``exc`` (``damaged``) came from ``db``, a
    connection to it (closed here), the damaged file moved aside; unless
    another process has made it anew meanwhile."""
    path = path_of(db)
    db.close()
    with writing(path):
        try:
            fresh = _open(path)
            if fresh.execute("PRAGMA quick_check").fetchone()[0] == "ok":
                return fresh  # (another process moved it aside first)
            fresh.close()
        except sqlite3.DatabaseError as again:
            if not damaged(again):
                raise Unavailable(f"the search index {path}: {again}") from None
        _move_aside(path, exc, notice)
        return _open(path)


def using_index(
    work: Callable[[sqlite3.Connection], T],
    cache_dir: str | None = None,
    notice: Callable[[str], None] | None = None,
) -> T:
    """``work`` done with the index: at the first sign of a damaged file
    (at opening it or in ``work``), the file is moved aside and ``work``
    done again on a new one, with a one-line notice; any other error of
    SQLite's (a full disk, a read-only folder) is ``Unavailable`` and the
    index is left as it is."""
    db = open_database(cache_dir, notice)
    try:
        try:
            return work(db)
        except sqlite3.DatabaseError as exc:
            if not damaged(exc):
                raise Unavailable(f"the search index {path_of(db)}: {exc}") from None
            db = rebuilt(db, exc, notice)
            try:
                return work(db)
            except sqlite3.DatabaseError as again:
                raise Unavailable(f"the search index {path_of(db)}: {again}") from None
    finally:
        db.close()


def _open(path: str) -> sqlite3.Connection:
    # (only its owner reads it: 0600, and its -wal and -shm take the same mode from it)
    os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600))
    if os.stat(path).st_mode & 0o077:
        os.chmod(path, 0o600)
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
    db.execute("PRAGMA auto_vacuum=INCREMENTAL")  # (a new file's: ``vocabulary.refresh`` gives back what it freed)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(_TABLES)
    found = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    if found is None:
        db.execute("INSERT INTO meta VALUES('schema', ?)", (SCHEMA,))
        db.execute("INSERT INTO words(words, rank) VALUES('automerge', 8)")  # (fewer merges while building)
        db.execute("INSERT INTO words(words, rank) VALUES('hashsize', 33554432)")  # (fewer, bigger segments)
    elif found[0] != SCHEMA:
        db.close()
        raise OlderSchema(f"schema {found[0]}, not {SCHEMA}")
    db.execute("SELECT count(*) FROM words WHERE words MATCH 'zzz'").fetchone()  # (reads the FTS structure)
    return db
