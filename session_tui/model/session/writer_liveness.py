"""Whether the process writing a session lives, strongest signal first: a
process holds the file open for writing; a process of its client runs with
the session (its command line names the session's id or file, or it runs
in the session's recorded directory, started before the agent's last
write, with no later session of that client there that may be its); else
it cannot be told, and the live state's time rule decides
(``live_state``)."""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from ..formats.opencode.database import written_file
from ..reading import open_writers

if TYPE_CHECKING:  # pragma: no cover
    from .session import Session


START_SLACK = 5.0  # seconds a process may have started after the last write it is taken to have made


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


_CWD = re.compile(rb'"cwd"\s*:\s*"((?:[^"\\]|\\.){1,4096})"')


HEAD_BYTES = 16 << 10  # the start of another session's file looked at for its directory


# how a state was decided (``LiveState.inferred``)
WRITER_OPEN = "writer open"  # a process holds the file open for writing


PROCESS_NAMES_IT = "process running"  # a process of its client names the session on its command line


PROCESS_IN_CWD = "process running in its directory"


WRITER_GONE = "writer gone"  # the process seen holding it open is gone, and none of its client runs with it


PROCESS_GONE = "process gone"  # no process of its client runs with it


class Liveness(NamedTuple):
    """Whether the session's writer lives: True, False, or None (cannot tell); and how that was told."""

    alive: bool | None
    how: str = ""


UNKNOWN = Liveness(None)


#: ``(session, the agent's last write)`` → the liveness of its writer
Probe = Callable[["Session", "float | None"], Liveness]


def cannot_tell(session: Session, written: float | None) -> Liveness:
    """A probe for where the writer's liveness is not to be asked: the time rule decides."""
    return UNKNOWN


@dataclass
class _Seen:
    """What the probe keeps on a session between looks (its memo)."""

    writer: bool = False  # a process was seen holding the file open for writing


def writer_liveness(session: Session, written: float | None) -> Liveness:
    """Whether the process writing ``session`` lives, strongest signal
    first (see the module's doc). ``written``: the agent's last write."""
    if session.remote:
        return UNKNOWN
    name = session.path if written_file(session.path)[1] is not None else session.files[-1]
    return file_liveness(name, session.format.name, written, lambda: session_cwd(session), session.memo.of(_Seen))


def file_liveness(
    path: str,
    format_name: str,
    written: float | None,
    cwd: Callable[[], str | None] = lambda: None,
    seen: _Seen | None = None,
) -> Liveness:
    """``writer_liveness`` for a file of ``format_name``: ``cwd`` gives the
    directory it records (None: not known); ``seen`` is kept between looks
    at one session (a writer seen holding it, then gone, is a crash). A
    session of a database (``opencode.db#ID``): a process holding the
    database does not tell whether it writes this session."""
    table = open_writers.process_table()
    if table is None:
        return UNKNOWN
    file, key = written_file(path)
    try:
        st = os.stat(file)
    except OSError:
        return UNKNOWN
    seen = _Seen() if seen is None else seen

    def look(table: open_writers.ProcessTable) -> Liveness:
        holders: Sequence[object] | None
        if path.endswith(".jsonl"):
            holders = table.writers.get((st.st_dev, st.st_ino))
            # (the table may name a file gone since, its inode reused: a file made after the table was read
            # is looked at again; by its ctime, as its mtime may be set back: ``cp -p``, ``touch -d``)
            if holders and table.taken < max(st.st_mtime, st.st_ctime):
                holders = open_writers.writers_of(st.st_dev, st.st_ino)
        elif key is None:
            holders = open_writers.writers_of(st.st_dev, st.st_ino)
        else:
            holders = None
        if holders:
            seen.writer = True
            return Liveness(True, WRITER_OPEN)
        return _client_liveness(file, format_name, st, table, written, cwd, key)

    found = look(table)
    if found.alive is False and written is not None and table.taken < written:  # seen before the last write
        found = look(open_writers.process_table(fresh_after=written) or table)
    if seen.writer and (found.alive is False or (found.alive is None and _programs(format_name) is None)):
        return Liveness(False, WRITER_GONE)  # it held the file while it ran: now no process does
    return found


def _client_liveness(
    path: str,
    format_name: str,
    st: os.stat_result,
    table: open_writers.ProcessTable,
    written: float | None,
    cwd_of: Callable[[], str | None],
    key: str | None = None,
) -> Liveness:
    """Signal 2: a process of the session's client runs with it (``key``:
    the session's id in a file of many)."""
    known = _programs(format_name)
    if known is None:
        return UNKNOWN
    programs, packages = known
    if hasattr(os, "getuid") and os.getuid() not in (
        0,
        st.st_uid,
    ):  # another user's: their processes are not ours to see
        return UNKNOWN
    ids = set(_UUID.findall(os.path.basename(path))) | ({key} if key else set())
    real = os.path.realpath(path)
    late = written + START_SLACK if written is not None else None
    clients = [  # (one started after the agent's last write did not make it: another copy's, a new session's)
        p
        for p in table.processes
        if _runs(p, programs, packages) and (late is None or p.started is None or p.started <= late)
    ]
    if any(_names_it(p, ids, path, real) for p in clients):
        return Liveness(True, PROCESS_NAMES_IT)
    eligible = [p for p in clients if not _names_another(p, ids)]
    if not eligible:
        return Liveness(False, PROCESS_GONE)
    cwd = cwd_of()
    if cwd is None:
        return UNKNOWN
    try:
        where: str | None = os.path.realpath(cwd)
    except ValueError:  # (a lone surrogate, a NUL: a directory no process can be in)
        where = None
    here = [p for p in eligible if p.cwd == where] if where is not None else []
    if not here or where is None:
        return UNKNOWN if any(p.cwd is None for p in eligible) else Liveness(False, PROCESS_GONE)
    if len(here) > _later_sessions(path, written, where):
        return Liveness(True, PROCESS_IN_CWD)
    return UNKNOWN  # as many later sessions in that directory as processes: theirs, maybe


def _runs(process: open_writers.Process, programs: tuple[str, ...], packages: tuple[str, ...]) -> bool:
    if any(name == p or name.startswith(p + ".") for name in process.names for p in programs):
        return True
    return any(part in arg for arg in process.args[:3] for part in packages)


def _names_it(process: open_writers.Process, ids: set[str], path: str, real: str) -> bool:
    for arg in process.args[1:]:
        if ids and any(i in arg for i in ids):
            return True
        if arg in (path, real) or (arg.endswith(".jsonl") and os.path.basename(arg) == os.path.basename(path)):
            return True
    return False


def _names_another(process: open_writers.Process, ids: set[str]) -> bool:
    """Its command line names a session (an id) that is not this one: it runs with that one."""
    named = {found for arg in process.args[1:] for found in _UUID.findall(arg)}
    return bool(named) and not named & ids


def session_cwd(session: Session) -> str | None:
    """The working directory the session recorded: its header's (pi; Codex's
    payload) or, from its active leaf back, the first record's that carries
    one (Claude Code)."""
    header = session.header or {}
    for holder in (header, header.get("payload")):
        found = holder.get("cwd") if isinstance(holder, dict) else None
        if isinstance(found, str) and found:
            return found
    from ..formats.base import cwd_back

    return cwd_back(session, session.active_leaf(), 64)


def _programs(format_name: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The programs of the format's client as a process table shows them (the
    basename of the program or of the script it runs, ``node …/bin/pi``) and the
    parts of their paths (``node …/pi-coding-agent/dist/cli.js``); None: no client."""
    from ..formats import client_of  # (its client alone, not its reader: the picker's first frame)

    client = client_of(format_name)
    return (client.process_names, client.packages) if client is not None and client.process_names else None


def _later_sessions(path: str, written: float | None, cwd: str) -> int:
    """How many other session files beside ``path`` were written after the
    agent's last write to it and record the directory ``cwd`` (or none:
    Claude Code's and pi's folders are one a directory)."""
    if written is None:
        return 0
    folder = os.path.dirname(os.path.abspath(path))
    now = time.monotonic()
    with _folders_lock:
        listed = _folders.get(folder)
        if listed is None or now - listed[0] >= open_writers.PROCESS_TABLE_TTL:
            files: list[tuple[str, float]] = []
            try:
                with os.scandir(folder) as it:
                    for item in it:
                        if item.name.endswith(".jsonl") and item.is_file(follow_symlinks=False):
                            files.append((item.path, item.stat(follow_symlinks=False).st_mtime))
            except OSError:
                pass
            if len(_folders) > 256:
                _folders.clear()
            listed = _folders[folder] = (now, files)
    me = os.path.abspath(path)
    return sum(
        1
        for other, mtime in listed[1]
        if other != me and mtime > written + START_SLACK and head_cwd(other) in (None, cwd)
    )


def head_cwd(path: str) -> str | None:
    """The directory the first records of ``path`` name (None: none named)."""
    try:
        st = os.stat(path)
        key = (path, st.st_ino)
        if key in _heads:
            return _heads[key]
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError:
        return None
    found = _CWD.search(head)
    cwd = None
    if found:
        import json

        try:
            cwd = os.path.realpath(json.loads(b'"' + found.group(1) + b'"'))
        except ValueError:
            cwd = None
    if len(_heads) > 4096:
        _heads.clear()
    _heads[key] = cwd
    return cwd


_folders_lock = threading.Lock()


_folders: dict[str, tuple[float, list[tuple[str, float]]]] = {}  # folder → (when listed, its *.jsonl and mtimes)


_heads: dict[tuple[str, int], str | None] = {}  # (path, inode) → the directory its head records
