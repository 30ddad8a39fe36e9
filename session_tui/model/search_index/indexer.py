"""Keeping the index as current as the files: each session file is read
from where the index stopped (the same line index the session view uses,
opened at that byte); a replaced or truncated file is indexed again; a
file gone from a folder leaves the index. Local folders and URLs alike."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..catalog.cache import absolute, list_session_files
from ..errors import Cancelled, SessionError, check_stop
from ..reading.source import is_url
from ..reading.sources import open_source
from .database import document_id, free_ids

HEAD = 256  # bytes of a file's start that say it is still the same file
BATCH = 20_000  # documents per transaction in a big file (a killed run resumes from the last)
TIME = 9  # where a document's time is in the rows ``_insert`` takes
KEPT_CALLS = 500  # call id → tool names kept between two runs on a file (a later result names its tool)


@dataclass
class CatchUp:
    files: int = 0  # files read (new, grown or replaced)
    documents: int = 0
    bytes_read: int = 0
    removed: int = 0


def _model(record: dict[str, Any]) -> str | None:
    for holder in (record.get("message"), record.get("payload"), record):
        if isinstance(holder, dict):
            found = holder.get("model") or holder.get("modelId")
            if isinstance(found, str) and found:
                return found
    return None


def _head(path: str, size: int) -> bytes:
    source = open_source(path)
    try:
        source.stat()  # (opens it)
        return source.read(0, min(HEAD, size))
    finally:
        source.close()


def catch_up(db: sqlite3.Connection, roots: Iterable[str], should_stop: Callable[[], bool] | None = None) -> CatchUp:
    """Bring the index up to date with the session files under ``roots``."""
    roots = [absolute(r) for r in roots]
    done = CatchUp()
    listed = list_session_files(roots)
    known = {row[0]: row for row in db.execute("SELECT path, id, size, mtime_ns, head, indexed_to FROM files")}
    present = set()
    for n, (path, size, mtime_ns) in enumerate(listed):
        check_stop(should_stop, n)
        present.add(path)
        row = known.get(path)
        if row is not None and row[2] == size and row[3] == mtime_ns:
            continue
        try:
            _index_file(db, path, size, mtime_ns, row, done, should_stop)
        except (SessionError, OSError):
            _forget(db, path)  # no longer a readable session: out of the index
    for path in known:
        if path not in present and any(_under(path, root) for root in roots):
            _forget(db, path)
            done.removed += 1
    return done


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + ("/" if is_url(root) else os.sep))


def _forget(db: sqlite3.Connection, path: str) -> None:
    """Its documents out of ``docs`` (their trigrams stay in ``grams`` until a
    rebuild: a contentless table forgets nothing; a hit is always checked)."""
    db.execute("BEGIN")
    db.execute("DELETE FROM docs WHERE file IN (SELECT id FROM files WHERE path=?)", (path,))
    db.execute("DELETE FROM files WHERE path=?", (path,))
    db.execute("COMMIT")


def _index_file(
    db: sqlite3.Connection,
    path: str,
    size: int,
    mtime_ns: int,
    row: tuple[Any, ...] | None,
    done: CatchUp,
    should_stop: Callable[[], bool] | None,
) -> None:
    head = _head(path, size)
    start, lines, model = 0, 0, None
    calls: dict[str, str] = {}
    if row is not None:
        _, file_id, _, _, old_head, indexed_to = row
        saved = db.execute("SELECT lines, calls, model FROM files WHERE id=?", (file_id,)).fetchone()
        if size >= (indexed_to or 0) and old_head is not None and head.startswith(old_head[: len(head)]):
            start, lines, model = indexed_to or 0, saved[0] or 0, saved[2]  # grown: from where it stopped
            calls = json.loads(saved[1] or "{}")
        else:
            _forget(db, path)  # replaced or truncated: all again
            row = None
    # (the format readers, the records: only when a file is to be read; a search that finds the index
    # current answers without them)
    from ..reading.records import BOM, BadLine, parse_object
    from ..reading.segment import LineBlocks
    from ..session.session import Session
    from .documents import document
    from .marks import marks

    with Session(path) as probe:
        fmt = probe.detect()  # (its first lines only)
        view = probe.format.view
    source = open_source(path)
    try:
        stop = source.stat().size
        db.execute("BEGIN")
        try:
            if row is None:
                cursor = db.execute(
                    "INSERT INTO files(path, format, size, mtime_ns, head, indexed_to, lines, model, calls) "
                    "VALUES(?, ?, ?, ?, ?, 0, 0, NULL, '{}')",
                    (path, fmt, size, mtime_ns, head),
                )
                file_id = cursor.lastrowid
            else:
                file_id = row[1]
            blocks = LineBlocks(source.reader, start, stop)
            line, reached, docs, texts = lines, start, [], []
            for block, starts, end in blocks:
                if should_stop is not None and should_stop():
                    raise Cancelled()
                for raw, offset in zip(block, starts, strict=True):
                    number, line = line, line + 1
                    if number == 0 and raw.startswith(BOM):
                        raw = raw[len(BOM) :]
                        offset += len(BOM)
                    try:
                        record = parse_object(raw)
                    except BadLine:
                        continue
                    model = _model(record) or model
                    try:
                        doc = document(number, offset, len(raw.rstrip(b"\r\n")), record, view(record), calls)
                    except (TypeError, ValueError, AttributeError, KeyError):  # (a record its format cannot view)
                        continue
                    docs.append(
                        (
                            file_id,
                            doc.line,
                            doc.offset,
                            doc.length,
                            doc.entry_id,
                            doc.role,
                            doc.kind,
                            doc.tool,
                            int(doc.error),
                            doc.time,
                            model,
                        )
                    )
                    texts.append(doc.text + "\n" + marks(doc.role, doc.kind, doc.tool, doc.error, fmt))
                reached = end
                if len(docs) >= BATCH:  # a big file: commit what is done, resume from there if killed
                    _insert(db, docs, texts)
                    done.documents += len(docs)
                    docs, texts = [], []
                    _progress(db, file_id, -1, mtime_ns, head, reached, line, model, calls)  # (-1: not done)
                    db.execute("COMMIT")
                    db.execute("BEGIN")
            _insert(db, docs, texts)
            done.documents += len(docs)
            _progress(db, file_id, size, mtime_ns, head, reached, line, model, calls)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        done.files += 1
        done.bytes_read += blocks.pos - start
    finally:
        source.close()


def _insert(db: sqlite3.Connection, docs: list[tuple[Any, ...]], texts: list[str]) -> None:
    """The documents and their trigrams, each under the id its time gives it."""
    if not docs:
        return
    # (the sequence never repeats: the trigrams of a forgotten document stay in the contentless table)
    found = db.execute("SELECT value FROM meta WHERE key='next_id'").fetchone()
    first = found[0] if found else 1
    db.execute("INSERT OR REPLACE INTO meta VALUES('next_id', ?)", (first + len(docs),))
    ids = [document_id(doc[TIME], first + k) for k, doc in enumerate(docs)]
    if len(set(ids)) < len(ids):
        ids = free_ids(db, ids)
    order = sorted(range(len(ids)), key=ids.__getitem__)  # (FTS5 writes a segment at each id lower than the last)
    rows = [(ids[k], *docs[k]) for k in order]
    insert = (
        "INSERT INTO docs(id, file, line, offset, length, entry, role, kind, tool, error, time, model) "
        "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
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
    db.executemany("INSERT INTO grams(rowid, body) VALUES(?, ?)", [(ids[k], texts[k]) for k in order])


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
