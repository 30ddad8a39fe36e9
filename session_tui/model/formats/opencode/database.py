"""opencode's SQLite database read as one JSONL stream per session.

opencode 1.18 keeps every session in ``~/.local/share/opencode/opencode.db``
(WAL mode: after a kill -9 everything may still be in the un-checkpointed
``-wal``). The rest of session-tui reads a session as lines with offsets,
so a session of a database, named ``…/opencode.db#ses_…``, is presented
as a synthesized read-only stream: a header line (the ``session`` row),
then one line per ``message`` row and per ``part`` row, in the order
opencode keeps them (by id: ids are time-ordered), each the child of the
line before (``parentId``).

The database is opened ``file:…?mode=ro``: SQLite's own protocol for a
reader beside a writer, WAL respected. A read-only connection never
checkpoints someone else's WAL and never writes the database or the WAL
(checked: bytes and times the same after a read); like any reader it
keeps its read marks in the ``-shm`` (shared memory, which opencode
rebuilds). Each read is one transaction, one consistent snapshot. A
session is read again when one of the three files changed (size or time)
or the WAL index's header in ``-shm`` did: a writer appends a commit's
frames to the WAL first and makes them visible in that header after, so a
read between the two sees the WAL at its new size without the commit, and
nothing on disk but the header says the commit came (a writer that then
closes beside a reader leaves every file as it was).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from typing import Any, BinaryIO, TypeVar

import orjson

from ...errors import SessionError
from ...reading.source import RangeStream, SourceStat

DB_NAME = "opencode.db"
SIDE_FILES = ("", "-wal", "-shm")
#: opencode's id grammar: a prefix, ``_``, 26 characters of [0-9A-Za-z] (a time part and a random part)
SESSION_ID = re.compile(r"ses_[0-9A-Za-z]{12,40}\Z")
HEADER = "opencode.session"
#: the WAL index's header at the start of ``-shm``: two 48-byte copies (its frame count, salts, checksums)
WAL_INDEX_HEADER = 96
T = TypeVar("T")


def split_name(name: str) -> tuple[str, str | None] | None:
    """``(database, session id or None)`` for a name that is an opencode
    database (``…/opencode.db``) or one of its sessions (``…/opencode.db#ID``);
    None for any other name. A malformed id raises SessionError."""
    base, sep, sid = name.partition("#")
    if os.path.basename(base) != DB_NAME:
        return None
    if not sep:
        return base, None
    if not SESSION_ID.match(sid):
        raise SessionError(f"{name}: not an opencode session id (want ses_ and 12-40 letters or digits)")
    return base, sid


def written_file(name: str) -> tuple[str, str | None]:
    """The file a writer of the session ``name`` writes, and the session's
    id within it when that file holds many sessions (an opencode database:
    who holds it open does not tell which of them is written)."""
    found = split_name(name.removeprefix("file://")) if "#" in name else None
    if found is not None and found[1] is not None:
        return found[0], found[1]
    return name, None


def changed_database(path: str) -> str | None:
    """The database a changed file belongs to (its ``-wal`` or itself), else None."""
    name = os.path.basename(path)
    for suffix in ("", "-wal"):
        if name == DB_NAME + suffix:
            return path.removesuffix(suffix) if suffix else path
    return None


def _stats(db: str) -> tuple[tuple[int, int], ...]:
    """The size and time of the database and its side files ((-1, 0): none)."""
    out = []
    for suffix in SIDE_FILES:
        try:
            st = os.stat(db + suffix)
        except FileNotFoundError:
            out.append((-1, 0))
            continue
        out.append((st.st_size, st.st_mtime_ns))
    return tuple(out)


def _wal_index_header(db: str) -> bytes:
    """The WAL index's header, where a commit becomes visible (written in
    the mapped ``-shm``: no file time changes); empty without one."""
    try:
        with open(db + "-shm", "rb") as shm:
            return shm.read(WAL_INDEX_HEADER)
    except OSError:
        return b""


def _connect(db: str) -> Any:
    """A read-only connection to ``db`` (``mode=ro``: SQLite's WAL protocol
    for a reader beside the writer; it never checkpoints, never writes the
    database or its WAL; like every reader it keeps its marks in ``-shm``)."""
    import sqlite3  # (only when a database is read: not on every start)
    from urllib.parse import quote

    if not os.path.isfile(db):
        raise SessionError(f"{db}: no such file")
    conn = sqlite3.connect(f"file:{quote(os.path.abspath(db))}?mode=ro", uri=True, timeout=5.0)
    conn.row_factory = sqlite3.Row
    return conn


def _reading(db: str, read: Callable[[Any], T]) -> T:
    """``read(connection)`` in one read transaction (one snapshot of the
    database, its WAL included); a file that is not an opencode database
    raises one clear SessionError."""
    import sqlite3

    try:
        conn = _connect(db)
    except sqlite3.Error as exc:
        raise SessionError(f"{db}: not a readable opencode database ({exc})") from None
    try:
        conn.execute("begin")
        tables = {row[0] for row in conn.execute("select name from sqlite_master where type='table'")}
        if not {"session", "message", "part"} <= tables:
            raise SessionError(f"{db}: not an opencode database (no session, message and part tables)")
        return read(conn)
    except sqlite3.Error as exc:
        raise SessionError(f"{db}: not a readable opencode database ({exc})") from None
    finally:
        conn.close()


def _rows(conn: Any, where: str = "", args: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    """The sessions (``where`` on their id): each its row, messages and parts."""
    out: dict[str, dict[str, Any]] = {}
    for row in conn.execute(f"select * from session {where and 'where id = ?'} order by id", args):
        out[row["id"]] = {"session": dict(row), "messages": [], "parts": {}}
    messages = "select id, session_id, time_created, time_updated, data from message"
    parts = "select id, message_id, session_id, time_created, time_updated, data from part"
    filtered = " where session_id = ?" if where else ""
    for row in conn.execute(messages + filtered + " order by id", args):
        found = out.get(row["session_id"])
        if found is not None:
            found["messages"].append(dict(row))
    for row in conn.execute(parts + filtered + " order by id", args):
        found = out.get(row["session_id"])
        if found is not None:
            found["parts"].setdefault(row["message_id"], []).append(dict(row))
    return out


def session_rows(db: str, session_id: str) -> dict[str, Any] | None:
    """One session's rows (None: no such session in the database)."""
    return _reading(db, lambda conn: _rows(conn, "id", (session_id,))).get(session_id)


def session_ids(db: str) -> list[str]:
    return _reading(db, lambda conn: [row[0] for row in conn.execute("select id from session order by id")])


def _json(text: object) -> object:
    if not isinstance(text, str):
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return {"unparsed": text[:2000]}


def render(found: dict[str, Any]) -> bytes:
    """The JSONL stream of one session."""
    session = found["session"]
    lines = []
    header = {"type": HEADER, "id": session["id"], "parentId": None, "session": session}
    if isinstance(session.get("directory"), str) and session["directory"]:
        header["cwd"] = session["directory"]  # (where it runs: what every client's header calls it)
    lines.append(header)
    previous = session["id"]
    for message in found["messages"]:
        data = _json(message["data"])
        record = {
            "type": "message",
            "id": message["id"],
            "parentId": previous,
            "time_created": message["time_created"],
            "time_updated": message["time_updated"],
            "data": data,
        }
        lines.append(record)
        previous = message["id"]
        for part in found["parts"].get(message["id"], ()):
            record = {
                "type": "part",
                "id": part["id"],
                "parentId": previous,
                "messageID": message["id"],
                "role": data.get("role") if isinstance(data, dict) else None,
                "time_created": part["time_created"],
                "time_updated": part["time_updated"],
                "data": _json(part["data"]),
            }
            lines.append(record)
            previous = part["id"]
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


def updated_ns(found: dict[str, Any], snap_mtime_ns: int) -> int:
    """When opencode last wrote the session (its rows' ``time_updated``, ms),
    as a file's mtime in ns; no later than the database's files were
    written. (The files' own time is any session's last write.)"""
    stamps = [found["session"].get("time_updated")]
    stamps += [m.get("time_updated") for m in found["messages"]]
    stamps += [p.get("time_updated") for parts in found["parts"].values() for p in parts]
    known = [s for s in stamps if isinstance(s, int) and not isinstance(s, bool) and s > 0]
    return min(max(known) * 1_000_000, snap_mtime_ns) if known else snap_mtime_ns


#: (database, session id) → (its rows' version, its stream's size and time) as last listed
_listed: dict[tuple[str, str], tuple[tuple[object, ...], int, int]] = {}
_listed_lock = threading.Lock()
_VERSION = "select session_id, count(*), max(time_updated), sum(length(cast(data as blob))) from {} group by session_id"


def _versions(conn: Any) -> dict[str, tuple[object, ...]]:
    """Each session's rows summed up (counts, last ``time_updated``, bytes of
    ``data``): one aggregate over the tables, no row decoded. A session
    whose version did not change has the same stream."""
    out: dict[str, tuple[object, ...]] = {row[0]: tuple(row) for row in conn.execute("select * from session")}
    for table in ("message", "part"):
        for row in conn.execute(_VERSION.format(table)):
            if row[0] in out:
                out[row[0]] += tuple(row[1:])
    return out


def list_sessions(db: str) -> list[tuple[str, int, int]]:
    """``(db#id, size, mtime_ns)`` of each session of a database (none:
    unreadable). Only the sessions whose rows changed since the last
    listing in this process are read again (a database written as an agent
    streams changes one session at a time)."""

    def read(conn: Any) -> list[tuple[str, int, int]]:
        versions = _versions(conn)
        with _listed_lock:
            stale = [sid for sid, version in versions.items() if _listed.get((db, sid), ((),))[0] != version]
        if stale:
            found = _rows(conn) if len(stale) > 8 else {sid: _rows(conn, "id", (sid,))[sid] for sid in stale}
            mtime = max(mt for _, mt in _stats(db))
            with _listed_lock:
                if len(_listed) > 100_000:
                    _listed.clear()
                for sid in stale:
                    rows = found[sid]
                    _listed[(db, sid)] = (versions[sid], len(render(rows)), updated_ns(rows, mtime))
        with _listed_lock:
            return [(f"{db}#{sid}", *_listed[(db, sid)][1:]) for sid in versions]

    try:
        return _reading(db, read)
    except SessionError:
        return []


class OpencodeSession:
    """One session of an opencode database as a read-only source of JSONL bytes."""

    remote = False
    rows = True  # (a part is written again as its call runs, its text as it streams)

    def __init__(self, name: str, db: str, session_id: str) -> None:
        self.name = name
        self.db = db
        self.session_id = session_id
        self.files: tuple[str, ...] = (db, db + "-wal")
        self._data: bytes | None = None
        self._signature: tuple[tuple[tuple[int, int], ...], bytes] | None = None
        self._generation = 0  # bumped when the stream changed other than by growing
        self._mtime_ns = 0

    def stat(self) -> SourceStat:
        signature = _stats(self.db), _wal_index_header(self.db)
        if self._data is None or signature != self._signature:
            found = session_rows(self.db, self.session_id)
            if found is None:
                raise SessionError(f"{self.name}: no such session in the database")
            data = render(found)
            if self._data is not None and not data.startswith(self._data):
                self._generation += 1  # (a part updated in place: read again from the start)
            self._data, self._signature = data, signature
            self._mtime_ns = updated_ns(found, max(mt for _, mt in signature[0]))
        st = os.stat(self.db)
        return SourceStat(len(self._data), (st.st_dev, st.st_ino, self._generation), self._mtime_ns)

    def read(self, offset: int, length: int) -> bytes:
        if self._data is None:
            self.stat()
        assert self._data is not None
        return self._data[offset : offset + length]

    def reader(self) -> BinaryIO:
        import io

        return io.BufferedReader(RangeStream(self), buffer_size=1 << 20)

    def close(self) -> None:
        self._data = None
        self._signature = None


def database_refusal(db: str) -> str:
    """What a verb given a bare database says: name one of its sessions."""
    try:
        ids = session_ids(db)
    except SessionError as exc:
        return str(exc)
    listed = ", ".join(f"{os.path.basename(db)}#{sid}" for sid in ids[:5]) or "none"
    return f"{db}: an opencode database: name one of its sessions as {DB_NAME}#ID ({len(ids)}: {listed})"
