"""A batch of a file's rows sent to the archive: its lines and their
search chunks (``reading/searched.py``), by COPY — through temporary tables for a
role under row-level security (PostgreSQL refuses COPY FROM into a table
with policies: the rows are inserted from there, each checked)."""

from __future__ import annotations

from typing import Any

from ..entries.view import parse_time
from ..formats import Format
from ..reading.searched import chunks_of, searched_record, searched_text
from .lines import columns

_LINES = "COPY {} (file_id, start, line_no, byte_offset, terminated, text, raw, record) FROM STDIN"
_CHUNKS = "COPY {} (file_id, start, piece, whole, text) FROM STDIN"
#: where a role under row-level security COPYs its rows first
STAGED = (
    "CREATE TEMP TABLE IF NOT EXISTS pushed_lines (LIKE lines) ON COMMIT DELETE ROWS",
    "CREATE TEMP TABLE IF NOT EXISTS pushed_chunks (LIKE chunks) ON COMMIT DELETE ROWS",
)


class Rows:
    """The rows of one batch of a file's lines."""

    def __init__(self, file_id: int, fmt: Format | None) -> None:
        self.file_id = file_id
        self.fmt = fmt
        self.lines: list[tuple[Any, ...]] = []
        self.chunks: list[tuple[Any, ...]] = []
        self.newest: float | None = None  # the newest time of an entry a search may hit

    def add(self, stream: int, line_no: int, offset: int, terminated: bool, line: bytes) -> None:
        """One line as stored (``line_no`` counts from 1) and, if a search may hit it, its chunks
        and its entry's time (as the search's ``documents.document`` takes it)."""
        text, blob, jsonb = columns(line)
        self.lines.append((self.file_id, stream, line_no, offset, terminated, text, blob, jsonb))
        if text is None or self.fmt is None:
            return
        record = searched_record(line, line_no == 1, self.fmt.unsearched)
        if record is None:
            return
        try:
            when = parse_time(self.fmt.view(record).time)
        except (TypeError, ValueError, AttributeError, KeyError):  # (a record its format cannot view: never a hit)
            return
        if when is not None and (self.newest is None or when > self.newest):
            self.newest = when
        searched = searched_text(record)
        if not searched:
            return
        pieces = chunks_of(searched)
        whole = len(pieces) == 1
        self.chunks += [(self.file_id, stream, n, whole, piece) for n, piece in enumerate(pieces)]


def copy_rows(conn: Any, rows: Rows, staged: bool) -> None:
    """COPY the batch's lines and chunks (in the caller's transaction)."""
    import psycopg

    into = _LINES.format("pushed_lines" if staged else "lines")
    try:
        with conn.transaction(), conn.cursor() as cur, cur.copy(into) as copy:
            for row in rows.lines:
                copy.write_row(row)
    except psycopg.errors.DataError:
        # a line orjson reads that PostgreSQL's jsonb does not: each record asked of the server, alone
        checked = [row[:7] + (row[7] if row[7] is None or _jsonb_ok(conn, row[7]) else None,) for row in rows.lines]
        with conn.transaction(), conn.cursor() as cur, cur.copy(into) as copy:
            for row in checked:
                copy.write_row(row)
    if rows.chunks:
        with conn.cursor() as cur, cur.copy(_CHUNKS.format("pushed_chunks" if staged else "chunks")) as copy:
            for row in rows.chunks:
                copy.write_row(row)
    if staged:  # (the policies check each row here: a file of this machine's)
        conn.execute("INSERT INTO lines SELECT * FROM pushed_lines")
        conn.execute("TRUNCATE pushed_lines")
        conn.execute("INSERT INTO chunks SELECT * FROM pushed_chunks")
        conn.execute("TRUNCATE pushed_chunks")


def _jsonb_ok(conn: Any, text: str) -> bool:
    import psycopg

    try:
        with conn.transaction():
            conn.execute("SELECT %s::jsonb", (text,))
        return True
    except psycopg.errors.DataError:
        return False
