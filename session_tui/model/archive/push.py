"""Pushing a machine's session files into the archive: each file from where
the last push stopped.

A file is read from the byte after the last complete line pushed
(``files.complete_to``), as the search index reads a grown file; its new
complete lines are sent, and an unterminated last line (a torn tail, or a
line its agent is writing) is kept as such and sent again by the next push,
whole by then. A file that shrank, whose first bytes or last pushed line
changed, that is another file at the same path (device and inode), or that
was pushed with redaction on and is now pushed with it off (or the other
way) is sent again from its start. A file whose size and time are those
pushed is not read at all: two pushes of the same state change nothing.

Every batch of a file (up to ``lines.BATCH`` bytes of lines) is one transaction:
its lines and the file's row saying how far it got. A push killed mid-way
leaves each file a prefix of whole lines, which the next push finishes.
Commits are asynchronous (``synchronous_commit = off``, the connection's
own setting): a server crash may lose the last ones, never consistency,
and the next push sends them again: the files on the machine are the
record, the archive a copy.

Secrets are replaced by their marks (``privacy/redact.py``) before a byte
leaves the machine, unless the caller asks otherwise; the path too. A torn
last line is cut before its last word under redaction (a secret cut in two
is not recognised; the whole line goes once it is complete). Everything
from a file reaches SQL as a parameter or a COPY row, never in the text
of a statement.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..catalog.cache import list_session_files
from ..catalog.info_reader import read_info
from ..errors import SessionError
from ..formats import Format, get_format
from ..formats.opencode.database import DB_NAME
from ..privacy.redact import redacted_name
from ..reading.archived import connect, describe, shown_url
from ..reading.source import is_url
from ..sanitize import inert_line
from .copy import STAGED, Rows, copy_rows
from .lines import chunks, redacted_lines, redacted_name_of_path, redacted_tail, signed
from .machines import default_machine, machine_problem, machine_row
from .schema import require
from .summary import Summaries

HEAD = 4096  # bytes of a file's start that say it is still the same file
#: a push's GIN pending list and the memory that merges it (4 MB each by default): the trigram index takes
#: a push's chunks in bulk, 16 MB at a time, not a few at a time (its upkeep was 90 % of a cold push: 63 MB
#: of varied sessions took 44.7 s, 34.8 s with these; 64 MB took 30.1 s but grew the index by 42 %, 16 MB
#: by 8.5 %). ``--follow``'s rounds keep the defaults.
BULK_MB = 16


@dataclass
class Pushed:
    """What a push did with one file."""

    path: str  # on this machine
    how: str  # "new", "grown", "sent again: <why>", "unchanged", "skipped: <why>", "failed: <why>"
    format: str | None = None
    lines: int = 0  # lines sent
    bytes: int = 0  # of the file read
    stored: str | None = None  # its path in the archive, when not ``path`` (a secret in it masked)

    @property
    def sent(self) -> bool:
        return self.how == "new" or self.how == "grown" or self.how.startswith("sent again")

    @property
    def failed(self) -> bool:
        return self.how.startswith("failed")


@dataclass
class Totals:
    files: int = 0
    unchanged: int = 0
    skipped: int = 0
    failed: int = 0
    lines: int = 0
    bytes: int = 0
    seconds: float = 0.0
    machine: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass
class _Row:
    id: int
    size: int
    complete_to: int
    lines: int
    complete_lines: int
    stream_size: int
    stream_complete: int
    device: int | None
    inode: int | None
    mtime_ns: int
    head_length: int
    head_sha256: bytes
    tail_start: int
    tail_sha256: bytes
    redacted: bool
    generation: int
    format: str
    chunked: bool


_ROW = (
    "id, size, complete_to, lines, complete_lines, stream_size, stream_complete, device, inode, mtime_ns, "
    "head_length, head_sha256, tail_start, tail_sha256, redacted, generation, format, chunked"
)


@dataclass
class _Progress:
    """How far a file is in the archive: where its next line goes."""

    offset: int = 0  # in the file
    line_no: int = 0  # lines before it
    stream: int = 0  # in the archived copy
    tail_start: int = 0  # the last complete line's offset, and its fingerprint
    tail_sha256: bytes = hashlib.sha256(b"").digest()


class Pusher:
    """One push: a connection, a machine, the files."""

    def __init__(self, url: str, machine: str | None = None, redact: bool = True) -> None:
        self.url = url
        self.redact = redact
        name = machine if machine is not None else default_machine()
        problem = machine_problem(name)
        if problem:
            raise SessionError(f"--machine {inert_line(name)!r}: {problem}")
        self.machine = redacted_name(name) if redact else name
        self.conn = connect(url, application="session-tui archive push")
        try:
            require(self.conn, url)
            self.conn.execute("SET synchronous_commit = off")
            # one push per machine at a time: a second one (an overlapping cron run) waits, then finds it done
            self.lock()
            self.machine_id = machine_row(self.conn, url, self.machine)
            # a role under row-level security (a machine's pusher, not the archive's owner) stages its COPY
            self.staged = bool(self.conn.execute("SELECT row_security_active('lines')").fetchone()[0])
            if self.staged:
                for statement in STAGED:
                    self.conn.execute(statement)
            self.summaries = Summaries(self.conn, self.machine_id, redact)
        except SessionError:
            self.close()
            raise
        except Exception as exc:
            self.close()
            raise SessionError(inert_line(describe(url, exc))) from None

    def lock(self) -> None:
        """Wait for, then hold, this machine's push lock (``unlock`` lets another push of it take a turn)."""
        self.conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 41))", ("session-tui push " + self.machine,))

    def unlock(self) -> None:
        self.conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 41))", ("session-tui push " + self.machine,))

    def close(self) -> None:
        summaries = getattr(self, "summaries", None)
        if summaries is not None:
            with contextlib.suppress(Exception):  # (after a failed push: what is missing is worked out next time)
                summaries.close()
        self.conn.close()

    def __enter__(self) -> Pusher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the files ------------------------------------------------------------------
    def push(self, paths: Iterable[str], progress: Callable[[Pushed], None] | None = None) -> Totals:
        """Push every session file under ``paths`` (local files and folders)."""
        began = time.monotonic()
        totals = Totals(machine=self.machine)
        unreadable: list[str] = []
        listed = list_session_files([p for p in paths], unreadable)
        totals.notes += [f"cannot read {inert_line(p)}: passed over" for p in unreadable]
        self.conn.execute(f"SET gin_pending_list_limit = '{BULK_MB}MB'")
        self.conn.execute(f"SET work_mem = '{BULK_MB}MB'")
        for path, _size, _mtime in listed:
            done = self.push_listed(path)
            if done.sent:
                totals.files += 1
            elif done.how == "unchanged":
                totals.unchanged += 1
            elif done.failed:
                totals.failed += 1
            else:
                totals.skipped += 1
            totals.lines += done.lines
            totals.bytes += done.bytes
            if progress is not None:
                progress(done)
        self.summaries.store()  # (the files' usage: worked out beside the push, stored at its end)
        self.flush_trigrams()
        self.conn.execute("RESET gin_pending_list_limit")
        self.conn.execute("RESET work_mem")
        totals.seconds = time.monotonic() - began
        return totals

    def flush_trigrams(self) -> None:
        """The trigram index's pending list merged into the index now, where this role owns the table
        (else autovacuum does it: a search reads the whole pending list meanwhile)."""
        import psycopg

        try:
            with self.conn.transaction():
                self.conn.execute(
                    "SELECT gin_clean_pending_list(c.oid) FROM pg_class c WHERE c.oid = to_regclass('chunks_trigrams') "
                    "AND pg_has_role((SELECT relowner FROM pg_class WHERE oid = 'chunks'::regclass), 'USAGE')"
                )
        except psycopg.Error:  # (a pusher that does not own the table: autovacuum's work)
            pass

    def push_listed(self, path: str) -> Pushed:
        if is_url(path):
            return Pushed(path, "skipped: only this machine's files are pushed (run the push there)")
        if "#" in path and os.path.basename(path.partition("#")[0]) == DB_NAME:
            return Pushed(path, "skipped: opencode's database is not pushed yet")
        try:
            path.encode()
        except UnicodeEncodeError:
            return Pushed(path, "skipped: its name is not UTF-8")
        try:
            return self.push_file(path)
        except SessionError as exc:
            return Pushed(path, f"failed: {str(exc).removeprefix(path + ': ')}")
        except OSError as exc:
            return Pushed(path, f"failed: {exc.strerror or exc}")

    def push_file(self, path: str) -> Pushed:
        """Bring one file's copy in the archive up to the file as it is now."""
        stored = redacted_name_of_path(path) if self.redact else path
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as exc:
            return Pushed(path, f"failed: {exc.strerror or exc}")
        try:
            done = self._push_open(path, stored, fd)
        finally:
            os.close(fd)
        if done.sent or done.how == "unchanged":
            self.summaries.update(path, stored)
        return done

    def _push_open(self, path: str, stored: str, fd: int) -> Pushed:
        st = os.fstat(fd)
        size = st.st_size
        head = os.pread(fd, min(HEAD, size), 0)
        row = self._row(stored)
        again: str | None = None
        if row is not None:
            again = _why_again(fd, row, size, (st.st_dev, st.st_ino), head, self.redact)
            if again is None and size == row.size and st.st_mtime_ns == row.mtime_ns:
                return Pushed(path, "unchanged", row.format)
        fmt = row.format if row is not None and again is None else None
        if fmt is None:
            info = read_info(path)
            if info.format is None:
                return Pushed(path, f"skipped: {info.error or 'not a session'}")
            fmt = info.format
        at = (
            _Progress(row.complete_to, row.complete_lines, row.stream_complete, row.tail_start, row.tail_sha256)
            if row is not None and again is None
            else _Progress()
        )
        how = "new" if row is None else ("grown" if again is None else f"sent again: {again}")
        done = Pushed(path, how, fmt, stored=stored if stored != path else None)
        identity = (signed(st.st_dev), signed(st.st_ino))
        try:
            searched: Format | None = get_format(fmt)
        except ValueError:  # (never: the format was detected here)
            searched = None
        file_id = row.id if row is not None else None
        first = True
        for chunk, last in chunks(fd, at.offset, size):
            with self.conn.transaction():
                if first:
                    file_id = self._begin(file_id, stored, fmt, row, again, at)
                    first = False
                assert file_id is not None
                sent, tail, torn, newest = self._send(file_id, searched, chunk, last, at)
                covered = at.offset + torn
                done.lines += sent
                done.bytes += len(chunk)
                self.conn.execute(
                    "UPDATE files SET format = %s, size = %s, complete_to = %s, lines = %s, complete_lines = %s, "
                    "stream_size = %s, stream_complete = %s, device = %s, inode = %s, mtime_ns = %s, "
                    "head_length = %s, head_sha256 = %s, tail_start = %s, tail_sha256 = %s, redacted = %s, "
                    "chunked = true, newest_entry = greatest(newest_entry, %s), pushed_at = now() WHERE id = %s",
                    (
                        fmt,
                        covered,
                        at.offset,
                        at.line_no + (1 if tail is not None else 0),
                        at.line_no,
                        at.stream + (len(tail) if tail is not None else 0),
                        at.stream,
                        *identity,
                        st.st_mtime_ns if last else -1,  # (not done: never equal to the file's time)
                        min(len(head), covered),
                        hashlib.sha256(head[: min(len(head), covered)]).digest(),
                        at.tail_start,
                        at.tail_sha256,
                        self.redact,
                        newest,
                        file_id,
                    ),
                )
        return done

    def _row(self, stored: str) -> _Row | None:
        found = self.conn.execute(
            f"SELECT {_ROW} FROM files WHERE machine_id = %s AND path = %s", (self.machine_id, stored)
        ).fetchone()
        if found is None:
            return None
        values = list(found)
        values[11], values[13] = bytes(values[11]), bytes(values[13])
        return _Row(*values)

    def _begin(
        self, file_id: int | None, stored: str, fmt: str, row: _Row | None, again: str | None, at: _Progress
    ) -> int:
        """The file's row made ready for its first batch: new, emptied (sent
        again), or without its unterminated last line (sent again, whole)."""
        if file_id is None:
            new: int = self.conn.execute(
                "INSERT INTO files (machine_id, path, format, size, complete_to, lines, complete_lines, "
                "stream_size, stream_complete, mtime_ns, head_length, head_sha256, tail_start, tail_sha256, redacted) "
                "VALUES (%s, %s, %s, 0, 0, 0, 0, 0, 0, -1, 0, %s, 0, %s, %s) RETURNING id",
                (self.machine_id, stored, fmt, hashlib.sha256(b"").digest(), at.tail_sha256, self.redact),
            ).fetchone()[0]
            return new
        if again is not None:
            self.conn.execute("DELETE FROM lines WHERE file_id = %s", (file_id,))
            self.conn.execute("DELETE FROM chunks WHERE file_id = %s", (file_id,))
            self.conn.execute(
                "UPDATE files SET generation = generation + 1, newest_entry = NULL WHERE id = %s", (file_id,)
            )
        elif row is not None and row.lines > row.complete_lines:
            self.conn.execute("DELETE FROM lines WHERE file_id = %s AND start >= %s", (file_id, row.stream_complete))
            self.conn.execute("DELETE FROM chunks WHERE file_id = %s AND start >= %s", (file_id, row.stream_complete))
        return file_id

    def _send(
        self, file_id: int, fmt: Format | None, chunk: bytes, last: bool, at: _Progress
    ) -> tuple[int, bytes | None, int, float | None]:
        """COPY the lines of ``chunk`` (the file's bytes from ``at.offset``:
        complete lines, then, when ``last``, an unterminated one); ``at``
        moves past the complete ones. The lines sent, the unterminated line
        as stored (None: none), its length in the file, and the newest time
        of an entry a search may hit (None: none)."""
        complete, sep, rest = chunk.rpartition(b"\n")
        raws = (complete + sep).split(b"\n")[:-1] if sep else []
        if not sep:
            rest = chunk
        shown = redacted_lines(complete, raws) if self.redact and raws else raws
        rows = Rows(file_id, fmt)
        offset, line_no, stream = at.offset, at.line_no, at.stream
        for raw, line in zip(raws, shown, strict=True):
            line_no += 1
            rows.add(stream, line_no, offset, True, line)
            stream += len(line) + 1
            at.tail_start = offset
            offset += len(raw) + 1
        if raws:
            at.tail_sha256 = hashlib.sha256(raws[-1]).digest()
        tail: bytes | None = None
        if last and rest:
            tail = redacted_tail(rest) if self.redact else rest
            if tail:  # (under redaction, a torn line that was one word is not kept)
                rows.add(stream, line_no + 1, offset, False, tail)
            else:
                tail = None
        copy_rows(self.conn, rows, self.staged)
        at.offset, at.line_no, at.stream = offset, line_no, stream
        return len(rows.lines), tail, len(rest) if last else 0, rows.newest


def _why_again(fd: int, row: _Row, size: int, identity: tuple[int, int], head: bytes, redact: bool) -> str | None:
    """Why a file pushed before must be sent again from its start (None: it grew, or is as it was)."""
    if size < row.size:
        return "it shrank"
    if (row.device, row.inode) != (signed(identity[0]), signed(identity[1])):
        return "another file at its path"
    if len(head) < row.head_length or hashlib.sha256(head[: row.head_length]).digest() != row.head_sha256:
        return "its first bytes changed"
    if row.redacted != redact:
        return "redaction turned " + ("on" if redact else "off")
    if not row.chunked:
        return "indexed for search (archive schema 4)"
    if row.complete_to:
        last = os.pread(fd, row.complete_to - row.tail_start - 1, row.tail_start)
        if hashlib.sha256(last).digest() != row.tail_sha256:
            return "its last pushed line changed"
    return None


def push(
    url: str,
    paths: list[str],
    machine: str | None = None,
    redact: bool = True,
    progress: Callable[[Pushed], None] | None = None,
) -> Totals:
    """Push every session file under ``paths`` to the archive at ``url``
    (raises SessionError, one line, when the archive cannot be reached or
    has no schema)."""
    with Pusher(url, machine, redact) as pusher:
        try:
            return pusher.push(paths, progress)
        except SessionError:
            raise
        except Exception as exc:
            import psycopg

            if isinstance(exc, psycopg.Error):
                raise SessionError(inert_line(describe(url, exc))) from None
            raise


__all__ = ["Pushed", "Pusher", "Totals", "push", "shown_url"]
