"""A session in the team archive (PostgreSQL, ``model/archive``), read as a file.

A session there is addressed as ``DB_URL#MACHINE/PATH``: the database's
libpq URL (``postgresql://…``; ``~/.pgpass``, the ``PG*`` variables and
``sslmode`` work as for psql), then, after the first ``#``, the machine it
was pushed from and its path there (taken as written: no percent-decoding).
``ArchivedFile`` serves the archived bytes — the lines as pushed, in order,
each with its newline (an unterminated last line without) — through the
same byte-range ``Source`` interface as a local or remote file, so every
reader of sessions reads it unchanged. It never writes: the connection is
read-only.

psycopg is imported only when an archive is opened (the ``[archive]`` extra).
"""

from __future__ import annotations

import io
import threading
from typing import Any, BinaryIO, NamedTuple
from urllib.parse import urlsplit, urlunsplit

from ..errors import SessionError
from ..sanitize import inert_line
from .source import READ_BUFFER, RangeStream, SourceStat

SCHEMES = ("postgresql", "postgres")
#: what a read asks for at least (one round trip per range: a sequential scan asks for READ_BUFFER)
ROWS_PER_FETCH = 2000
#: an archived file's time: its time on its machine as the push that covered it saw it (clocks of
#: machines differ: the agent's own record times are what the live state weighs first), or, while a push
#: of it is under way, when it was pushed
TIME = "CASE WHEN f.mtime_ns > 0 THEN f.mtime_ns ELSE (extract(epoch FROM f.pushed_at) * 1e9)::bigint END"
NO_SCHEMA = "no session-tui archive in this database: run `session-tui archive init DB_URL`"


class Address(NamedTuple):
    url: str  # the database's URL
    machine: str | None
    path: str | None


def is_archive_url(name: object) -> bool:
    """Whether ``name`` names a PostgreSQL database (``postgresql://…``, ``postgres://…``)."""
    return isinstance(name, str) and name.partition("://")[0].lower() in SCHEMES and "://" in name


def split_address(name: str) -> Address:
    """``DB_URL#MACHINE/PATH`` → its parts (machine and path None: the
    archive as a whole). A fragment without ``/`` after the machine, or an
    empty machine, raises SessionError."""
    url, sep, fragment = name.partition("#")
    if not sep or not fragment:
        return Address(url, None, None)
    machine, slash, rest = fragment.partition("/")
    if not machine or not slash or not rest:
        raise SessionError(f"{shown_url(name)}: a session in the archive is DB_URL#MACHINE/PATH")
    return Address(url, machine, "/" + rest)


def shown_url(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``: what is said about it."""
    head, sep, fragment = url.partition("#")
    try:
        parts = urlsplit(head)
    except ValueError:
        return inert_line(url.split("@")[-1]) if "@" in url else inert_line(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}")) + sep + fragment


def describe(url: str, exc: BaseException, connecting: bool = False) -> str:
    """One line for a failure to reach or read the archive at ``url``, never its password."""
    import psycopg

    text = " ".join(str(exc).split()) or type(exc).__name__
    password = _password(url)
    if password:
        text = text.replace(password, "***")
    if isinstance(exc, psycopg.errors.UndefinedTable):
        return f"{shown_url(url)}: {NO_SCHEMA}"
    if connecting and isinstance(exc, psycopg.ProgrammingError):  # (libpq could not parse it)
        return f"{shown_url(url)}: not a valid database URL ({text})"
    if connecting:
        return f"{shown_url(url)}: cannot connect: {text}"
    return f"{shown_url(url)}: {text}"


def _password(url: str) -> str | None:
    try:
        return urlsplit(url.partition("#")[0]).password
    except ValueError:
        return None


def connect(url: str, *, read_only: bool = False, application: str = "session-tui") -> Any:
    """A psycopg connection to the database at ``url`` (libpq conventions);
    a connection that cannot be made raises SessionError with one line."""
    try:
        import psycopg
    except ImportError:
        raise SessionError(f"{shown_url(url)}: the archive needs pip install 'session-tui[archive]'") from None
    try:
        conn = psycopg.connect(url, autocommit=True, application_name=application, connect_timeout=15)
    except Exception as exc:  # a bad URL, a refused connection, a denied role: one line
        raise SessionError(inert_line(describe(url, exc, connecting=True))) from None
    if read_only:
        conn.read_only = True
    return conn


class ArchivedFile:
    """One archived session, read by byte range from its lines. Its identity
    is the file's row and the generation of its copy (a file sent again
    from the start is a replaced file); its time is the file's on its
    machine, as last pushed (``TIME``)."""

    remote = True
    rows = False

    def __init__(self, name: str) -> None:
        self.name = name
        self.files: tuple[str, ...] = (name,)
        self.address = split_address(name)
        if self.address.machine is None:
            raise SessionError(
                f"{shown_url(name)}: names the archive, not one session in it: add #MACHINE/PATH to the URL"
            )
        self._conn: Any = None
        self._file_id: int | None = None
        #: the format the push detected (where the file's sidecars are): the session's when its records
        #: alone do not tell it
        self.format: str | None = None
        self._lock = threading.Lock()  # one query at a time (the UI and its workers read)

    def _query(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._lock:
            if self._conn is None or self._conn.closed:
                self._conn = connect(self.address.url, read_only=True)
            try:
                rows: list[tuple[Any, ...]] = self._conn.execute(sql, args).fetchall()
                return rows
            except Exception as exc:
                self._close()
                raise ArchiveReadError(inert_line(describe(self.name, exc))) from None

    def stat(self) -> SourceStat:
        found = self._query(
            f"SELECT f.id, f.generation, f.stream_size, {TIME}, f.format "
            "FROM files f JOIN machines m ON m.id = f.machine_id WHERE m.name = %s AND f.path = %s",
            (self.address.machine, self.address.path),
        )
        if not found:
            raise SessionError(
                f"{shown_url(self.name)}: no such session in the archive "
                f"(machine {inert_line(self.address.machine or '')}, path {inert_line(self.address.path or '')})"
            )
        file_id, generation, size, pushed, self.format = found[0]
        self._file_id = int(file_id)
        return SourceStat(int(size), (int(file_id), int(generation)), int(pushed))

    def read(self, offset: int, length: int) -> bytes:
        if length <= 0:
            return b""
        if self._file_id is None:
            self.stat()
        end = offset + length
        # the line holding ``offset`` (the last one starting at or before it), then every one starting before the end
        rows = self._query(
            "SELECT start, text, raw, terminated FROM lines WHERE file_id = %s AND start >= "
            "coalesce((SELECT max(start) FROM lines WHERE file_id = %s AND start <= %s), 0) AND start < %s "
            "ORDER BY start",
            (self._file_id, self._file_id, offset, end),
        )
        if not rows:
            return b""
        out = b"".join(
            (text.encode() if text is not None else bytes(raw)) + (b"\n" if terminated else b"")
            for _, text, raw, terminated in rows
        )
        first = int(rows[0][0])
        return out[offset - first : end - first]

    def reader(self) -> BinaryIO:
        return io.BufferedReader(RangeStream(self), READ_BUFFER)

    def _close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # closing a dropped connection
                pass

    def close(self) -> None:
        with self._lock:
            self._close()


class ArchiveReadError(SessionError, OSError):
    """A read of the archive failed (a dropped connection, a denied query):
    a SessionError for those who report one line, an OSError for those who
    expect what a failed read raises."""


def archive_refusal(name: str, then: str = "edit it there (or export it and edit the copy)") -> str | None:
    """Why a session of the archive is not edited here (one line, ending with ``then``), or None for any
    other name."""
    if not is_archive_url(name):
        return None
    try:
        machine = split_address(name).machine
    except SessionError:
        machine = None
    where = f"machine {inert_line(machine)}" if machine else "another machine"
    return f"this session lives on {where} in the archive: {then}"
