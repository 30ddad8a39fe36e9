"""Keeping the index as current as the files: each session file is read
from where the index stopped (the same line index the session view uses,
opened at that byte); a replaced or truncated file is indexed again; a
file gone from a folder leaves the index. Local folders and URLs alike."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..catalog.cache import absolute, list_session_files
from ..errors import Cancelled, SessionError, check_stop
from ..formats.opencode.database import DB_NAME
from ..formats.sources import open_source
from ..reading.source import is_url
from ..sanitize import UNDECODABLE, mark_undecodable
from . import vocabulary
from .database import document_id, free_ids, path_of, writing
from .documents import packed_entry

if TYPE_CHECKING:  # pragma: no cover
    from .reader import Batch, Worker

HEAD = 256  # bytes of a file's start that say it is still the same file
ENTRY, TIME, MODEL = 4, 9, 10  # where a document's entry, time and model are in the rows ``_insert`` takes
KEPT_CALLS = 500  # call id → tool names kept between two runs on a file (a later result names its tool)


@dataclass
class CatchUp:
    files: int = 0  # files read (new, grown or replaced)
    documents: int = 0
    bytes_read: int = 0
    removed: int = 0


def _head(path: str, size: int) -> bytes:
    source = open_source(path)
    try:
        source.stat()  # (opens it)
        return source.read(0, min(HEAD, size))
    finally:
        source.close()


def fingerprint(head: bytes) -> bytes:
    """What the index keeps of a file's first bytes: their length and
    SHA-256, never the bytes (they may hold a secret)."""
    return len(head).to_bytes(2, "big") + hashlib.sha256(head).digest()


def _same_start(head: bytes, kept: bytes | None) -> bool:
    """Whether the file still starts as it did when ``kept`` was taken."""
    if kept is None or len(kept) != 34:
        return False
    length = int.from_bytes(kept[:2], "big")
    return len(head) >= length and fingerprint(head[:length]) == kept


def catch_up(
    db: sqlite3.Connection,
    roots: Iterable[str],
    should_stop: Callable[[], bool] | None = None,
    notice: Callable[[str], None] | None = None,
) -> CatchUp:
    """Bring the index up to date with the session files under ``roots``.
    With much to read, a worker process reads the files' records while this
    one writes their words (about half of the work each). One process
    at a time (``writing``): another one's catch-up is waited for first.
    Folders that cannot be read are passed over, said in one ``notice``."""
    roots = [absolute(r) for r in roots]
    with writing(path_of(db), should_stop):
        return _catch_up(db, roots, should_stop, notice)


def _catch_up(
    db: sqlite3.Connection,
    roots: list[str],
    should_stop: Callable[[], bool] | None,
    notice: Callable[[str], None] | None,
) -> CatchUp:
    done = CatchUp()
    unreadable: list[str] = []
    listed = list_session_files(roots, unreadable)
    if any(UNDECODABLE.search(path) for path, *_ in listed):  # (the index holds UTF-8: such a name cannot be kept)
        unreadable += [
            f"{mark_undecodable(path)} (its name is not UTF-8)" for path, *_ in listed if UNDECODABLE.search(path)
        ]
        listed = [item for item in listed if not UNDECODABLE.search(item[0])]
    if unreadable and notice is not None:
        more = f" and {len(unreadable) - 1} more" if len(unreadable) > 1 else ""
        notice(f"cannot read {unreadable[0]}{more}: passed over")
    known = {row[0]: row for row in db.execute("SELECT path, id, size, mtime_ns, head, indexed_to FROM files")}
    present = set()
    todo = []
    for n, (path, size, mtime_ns) in enumerate(listed):
        check_stop(should_stop, n)
        present.add(path)
        row = known.get(path)
        if row is None or row[2] != size or row[3] != mtime_ns:
            todo.append((path, size, mtime_ns, row))
    bulk = bool(todo) and _bulk(db, todo)
    if vocabulary.stale(db) and not bulk:
        vocabulary.refresh(db)  # (a build killed before its end: its words' vocabulary made whole first)
    if not todo:  # (the index is current: nothing of the readers imported)
        return _removed(db, known, present, roots, done)
    if bulk and not vocabulary.stale(db):
        db.execute("BEGIN IMMEDIATE")
        vocabulary.mark_stale(db)
        db.execute("COMMIT")
    from .reader import Worker

    worker = Worker() if len(todo) >= 2 and sum(t[1] for t in todo) >= PARALLEL_BYTES else None
    try:
        plans: list[_Plan | None] = [None] * len(todo)
        asked = -1
        for n, (path, size, mtime_ns, row) in enumerate(todo):
            check_stop(should_stop, n)
            try:
                plan = plans[n] or _plan(db, path, size, row)
            except (SessionError, OSError):
                _forget(db, path)
                continue
            batches: Iterator[Batch] | None = None
            if worker is not None:
                if asked < n:  # (the first file: asked now)
                    worker.ask(path, plan.start, plan.lines, plan.model, plan.calls)
                asked = _ask_next(db, worker, todo, plans, n)  # (it reads the next one while this one is written)
                batches = worker.batches()
            try:
                try:
                    _index_file(db, path, size, mtime_ns, plan, done, should_stop, batches, not bulk)
                except EOFError:  # the worker went away: this file and the rest read here
                    if worker is not None:
                        worker.close()
                    worker = None
                    _index_file(db, path, size, mtime_ns, plan, done, should_stop, None, not bulk)
            except (SessionError, OSError):
                _forget(db, path)  # no longer a readable session: out of the index
            except BaseException:
                if worker is not None:
                    worker.close()  # (its answers are out of step now)
                    worker = None
                raise
    finally:
        if worker is not None:
            worker.close()
    if bulk:
        vocabulary.refresh(db)
    return _removed(db, known, present, roots, done)


def _bulk(db: sqlite3.Connection, todo: list[tuple[str, int, int, Any]]) -> bool:
    """Whether so much is to be read, against what the index holds, that its
    vocabulary is made whole once at the end, from the index's own list of
    its words (a pass over the whole index), rather than batch by batch
    (each batch's words cut a second time: about as long as writing them)."""
    reading = 0
    for _, size, _, row in todo:
        reached = (row[5] or 0) if row is not None else 0
        reading += size - reached if size >= reached else size  # (grown: the rest; else all of it again)
    held: int = db.execute("SELECT coalesce(sum(indexed_to), 0) FROM files").fetchone()[0]
    return reading * 4 >= held


def _removed(
    db: sqlite3.Connection, known: dict[str, Any], present: set[str], roots: list[str], done: CatchUp
) -> CatchUp:
    """The files gone from the folders out of the index."""
    for path in known:
        if path not in present and any(_under(path, root) for root in roots):
            _forget(db, path)
            done.removed += 1
    return done


PARALLEL_BYTES = 16 << 20  # this much to read across two files or more: a worker process reads it


def _ask_next(
    db: sqlite3.Connection, worker: Worker, todo: list[tuple[str, int, int, Any]], plans: list[_Plan | None], n: int
) -> int:
    """Ask the worker for the first readable file after ``n``; the index of the one asked."""
    for k in range(n + 1, len(todo)):
        path, size, _, row = todo[k]
        try:
            plans[k] = plan = _plan(db, path, size, row)
        except (SessionError, OSError):
            _forget(db, path)
            continue
        worker.ask(path, plan.start, plan.lines, plan.model, plan.calls)
        return k
    return len(todo)


@dataclass
class _Plan:
    head: bytes  # its fingerprint
    start: int
    lines: int
    model: str | None
    calls: dict[str, str]
    file_id: int | None  # None: a new file (or one replaced, forgotten)


def _plan(db: sqlite3.Connection, path: str, size: int, row: tuple[Any, ...] | None) -> _Plan:
    """From where the file is read: where the index stopped if it grew, else
    its start (a replaced or truncated file forgotten first)."""
    head = _head(path, size)
    if row is not None:
        _, file_id, _, _, old_head, indexed_to = row
        saved = db.execute("SELECT lines, calls, model FROM files WHERE id=?", (file_id,)).fetchone()
        if size >= (indexed_to or 0) and _same_start(head, old_head):
            return _Plan(
                fingerprint(head), indexed_to or 0, saved[0] or 0, saved[2], json.loads(saved[1] or "{}"), file_id
            )
        _forget(db, path)  # replaced or truncated: all again
    return _Plan(fingerprint(head), 0, 0, None, {}, None)


def _under(path: str, root: str) -> bool:
    if os.path.basename(root) == DB_NAME:  # (an opencode database: its sessions are ``db#ID``)
        return path == root or path.startswith(root + "#")
    return path == root or path.startswith(root.rstrip("/") + ("/" if is_url(root) else os.sep))


def _forget(db: sqlite3.Connection, path: str) -> None:
    """Its documents out of ``docs`` (their words stay in ``words`` until a
    rebuild: a contentless table forgets nothing; a hit is always checked)."""
    db.execute("BEGIN IMMEDIATE")
    db.execute("DELETE FROM docs WHERE file IN (SELECT id FROM files WHERE path=?)", (path,))
    db.execute("DELETE FROM files WHERE path=?", (path,))
    db.execute("COMMIT")


def _index_file(
    db: sqlite3.Connection,
    path: str,
    size: int,
    mtime_ns: int,
    plan: _Plan,
    done: CatchUp,
    should_stop: Callable[[], bool] | None,
    batches: Iterator[Batch] | None = None,
    words: bool = True,
) -> None:
    """Write the file's documents from ``plan``'s start, a transaction per
    batch (read here, or ``batches`` from the worker); ``words``: their
    words into the vocabulary with them."""
    if batches is None:
        from .reader import read_batches

        batches = read_batches(path, plan.start, plan.lines, plan.model, plan.calls, should_stop)
    db.execute("BEGIN IMMEDIATE")
    try:
        file_id = plan.file_id
        for batch in batches:
            if should_stop is not None and should_stop():
                raise Cancelled()
            if file_id is None:
                cursor = db.execute(
                    "INSERT INTO files(path, format, size, mtime_ns, head, indexed_to, lines, model, calls) "
                    "VALUES(?, ?, ?, ?, ?, 0, 0, NULL, '{}')",
                    (path, batch.fmt, size, mtime_ns, plan.head),
                )
                file_id = cursor.lastrowid
            if words:  # (before the batch is in the index: its words the index did not hold are new)
                vocabulary.add_texts(db, batch.texts)
            _insert(db, [(file_id, *doc) for doc in batch.docs], batch.texts)
            done.documents += len(batch.docs)
            # (a big file: what is done committed, resumed from there if killed; -1: not done)
            reached = (batch.reached, batch.lines, batch.model, batch.calls)
            _progress(db, file_id, size if batch.last else -1, mtime_ns, plan.head, *reached)
            db.execute("COMMIT")
            if batch.last:
                done.bytes_read += batch.bytes_read
            else:
                db.execute("BEGIN IMMEDIATE")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    done.files += 1


def _insert(db: sqlite3.Connection, docs: list[tuple[Any, ...]], texts: list[str]) -> None:
    """The documents and their words, each under the id its time gives it
    (an entry's uuid in its 16 bytes, a model by its number in ``models``)."""
    if not docs:
        return
    models: dict[str | None, int | None] = {None: None}
    docs = [
        (*d[:ENTRY], packed_entry(d[ENTRY]), *d[ENTRY + 1 : MODEL], _model(db, d[MODEL], models), *d[MODEL + 1 :])
        for d in docs
    ]
    # (the sequence never repeats: the words of a forgotten document stay in the contentless table)
    found = db.execute("SELECT value FROM meta WHERE key='next_id'").fetchone()
    first = found[0] if found else 1
    db.execute("INSERT OR REPLACE INTO meta VALUES('next_id', ?)", (first + len(docs),))
    ids = [document_id(doc[TIME], first + k) for k, doc in enumerate(docs)]
    if len(set(ids)) < len(ids):
        ids = free_ids(db, ids)
    order = sorted(range(len(ids)), key=ids.__getitem__)  # (FTS5 writes a segment at each id lower than the last)
    rows = [(ids[k], *docs[k]) for k in order]
    insert = (
        "INSERT INTO docs(id, file, line, offset, length, entry, role, kind, tool, error, time, model, secrets,"
        " escaped) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    db.execute("SAVEPOINT documents")
    try:
        db.executemany(insert, rows)
    except sqlite3.IntegrityError:  # an id of the same hour indexed 2**20 documents ago: moved up
        db.execute("ROLLBACK TO documents")
        ids = free_ids(db, ids)
        order = sorted(range(len(ids)), key=ids.__getitem__)
        rows = [(ids[k], *docs[k]) for k in order]
        db.executemany(insert, rows)
    db.execute("RELEASE documents")
    db.executemany("INSERT INTO words(rowid, body) VALUES(?, ?)", [(ids[k], texts[k]) for k in order])


def _model(db: sqlite3.Connection, name: str | None, known: dict[str | None, int | None]) -> int | None:
    """The number of a model's name in ``models`` (added if new)."""
    if name not in known:
        row = db.execute("SELECT id FROM models WHERE name = ?", (name,)).fetchone()
        known[name] = row[0] if row else db.execute("INSERT INTO models(name) VALUES(?)", (name,)).lastrowid
    return known[name]


def _progress(
    db: sqlite3.Connection,
    file_id: int | None,
    size: int,
    mtime_ns: int,
    head: bytes,
    indexed_to: int,
    lines: int,
    model: str | None,
    calls: dict[str, str],
) -> None:
    kept = dict(list(calls.items())[-KEPT_CALLS:])
    db.execute(
        "UPDATE files SET size=?, mtime_ns=?, head=?, indexed_to=?, lines=?, model=?, calls=? WHERE id=?",
        (size, mtime_ns, head, indexed_to, lines, model, json.dumps(kept), file_id),
    )
