"""session-tui's own writes to session files, remembered: a leaf move, a
repair or an undo changes the file's time (and may append a record with
today's time) without the agent having written anything.

The store records, after each write of its own, the file as the write left
it (path, inode, size, ``mtime_ns``) and when the agent had last written it
before (``agent_written``). While the file is still exactly that, the live
state takes the agent's last write from here instead of the file's time or
last record. Kept in a small ledger in the trusted cache dir (0600, ours);
one that is damaged, too big, not ours or open to others is ignored, never
trusted (a record there could make a live session look dead).
"""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

from ..cache_dir import trusted_cache_dir, write_cache_file

LEDGER = "own-writes.json"
VERSION = 1
MAX_WRITES = 256  # files remembered (the oldest forgotten first)
MAX_BYTES = 256 << 10  # a bigger ledger is not read


class OwnWrite(NamedTuple):
    inode: int
    size: int
    mtime_ns: int
    agent_written: float | None  # the agent's last write before session-tui's (epoch seconds), if known
    at: float  # when session-tui wrote
    state: str | None = None  # the live state's activity before session-tui's write, if it was told
    tool: str | None = None  # the tools its calls awaited then (``LiveState.tools``), if any


_lock = threading.Lock()
_read: tuple[tuple[int, int, int, int], dict[str, OwnWrite]] | None = None  # (the ledger's stat, what it holds)


def _ledger_path() -> str | None:
    folder = trusted_cache_dir()
    return os.path.join(folder, LEDGER) if folder else None


def _key(path: str) -> str:
    return os.path.realpath(path)


_looking = threading.local()  # within ``one_look``: its depth, and the ledger as read once (``_held``)


@contextmanager
def one_look() -> Iterator[None]:
    """Within it, the ledger is read (opened, checked) once however many
    files are asked about (``agent_written_for``): a sort of the picker's
    2,000 rows opened it 2,000 times."""
    depth = getattr(_looking, "depth", 0)
    _looking.depth = depth + 1
    try:
        yield
    finally:
        _looking.depth = depth
        if not depth:
            _looking.held = None


def _held() -> tuple[dict[str, OwnWrite], frozenset[tuple[int, int]]]:
    """What the ledger holds, and the (size, mtime) of every file it names;
    within ``one_look``, as read at its first ask (its path too: finding the
    cache dir costs a stat, 2,000 rows 25 ms)."""
    looking = getattr(_looking, "depth", 0)
    held = getattr(_looking, "held", None) if looking else None
    if held is None:
        ledger = _ledger_path()
        writes = _load(ledger) if ledger is not None else {}
        held = (writes, frozenset((w.size, w.mtime_ns) for w in writes.values()))
        if looking:
            _looking.held = held
    return held


def _load(ledger: str) -> dict[str, OwnWrite]:
    """What the ledger holds; nothing when it is missing, damaged, too big,
    not ours or writable by others."""
    global _read
    try:
        fd = os.open(ledger, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return {}
    try:
        st = os.fstat(fd)
        if (
            not stat.S_ISREG(st.st_mode)
            or (hasattr(os, "getuid") and st.st_uid != os.getuid())
            or st.st_mode & 0o077
            or st.st_size > MAX_BYTES
        ):
            return {}
        seen = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        with _lock:
            if _read is not None and _read[0] == seen:  # (read before, unchanged: its checks passed again above)
                return _read[1]
        data = os.read(fd, MAX_BYTES + 1)
    except OSError:
        return {}
    finally:
        os.close(fd)
    writes = _parse(data)
    with _lock:
        _read = (seen, writes)
    return writes


def _parse(data: bytes) -> dict[str, OwnWrite]:
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return {}
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(doc.get("writes"), dict):
        return {}
    out: dict[str, OwnWrite] = {}
    for path, item in doc["writes"].items():
        if not isinstance(path, str) or not isinstance(item, dict):
            continue
        inode, size, mtime_ns = item.get("inode"), item.get("size"), item.get("mtime_ns")
        agent, at = item.get("agent_written"), item.get("at")
        if not (type(inode) is int and type(size) is int and type(mtime_ns) is int):
            continue
        if min(inode, size, mtime_ns) < 0 or type(at) not in (int, float):
            continue
        if agent is not None and type(agent) not in (int, float):
            continue
        state, tool = item.get("state"), item.get("tool")
        out[path] = OwnWrite(
            inode,
            size,
            mtime_ns,
            None if agent is None else float(agent),
            float(at),  # type: ignore[arg-type]
            state if isinstance(state, str) and len(state) < 40 else None,
            tool if isinstance(tool, str) and len(tool) < 200 else None,
        )
    return out


def _forget() -> None:
    global _read
    with _lock:
        _read = None


def own_write(path: str, st: os.stat_result | None = None) -> OwnWrite | None:
    """The write of session-tui's that left ``path`` as it is now (same
    inode, size and mtime), or None: the file is not as our last write left
    it (the agent, or anyone, wrote since; or we never wrote it)."""
    ledger = _ledger_path()
    if ledger is None:
        return None
    try:
        st = os.stat(path) if st is None else st
    except OSError:
        return None
    found = _load(ledger).get(_key(path))
    if found is None or (found.inode, found.size, found.mtime_ns) != (st.st_ino, st.st_size, st.st_mtime_ns):
        return None
    return found


def record(path: str, agent_written: float | None, state: str | None = None, tool: str | None = None) -> None:
    """After a write of ours: remember the file as it is now, when the
    agent had last written it and (``state``, ``tool``) what the live state
    said before our write, if it was asked. A ledger that cannot be written is only a
    wrong time next time (the file looks written now)."""
    ledger = _ledger_path()
    if ledger is None:
        return
    try:
        st = os.stat(path)
    except OSError:
        return
    lock = ledger + ".lock"
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        return
    try:
        import fcntl  # (POSIX; the store that calls this needs it too)

        fcntl.flock(fd, fcntl.LOCK_EX)
        _forget()
        writes = dict(_load(ledger))
        writes[_key(path)] = OwnWrite(
            st.st_ino, st.st_size, st.st_mtime_ns, agent_written, time.time(), state, (tool or None) and tool[:199]
        )
        kept = sorted(writes.items(), key=lambda item: item[1].at)[-MAX_WRITES:]
        doc = {
            "version": VERSION,
            "writes": {
                key: {
                    "inode": w.inode,
                    "size": w.size,
                    "mtime_ns": w.mtime_ns,
                    "agent_written": w.agent_written,
                    "at": w.at,
                    "state": w.state,
                    "tool": w.tool,
                }
                for key, w in kept
            },
        }
        write_cache_file(ledger, json.dumps(doc, separators=(",", ":")).encode())
        _forget()
    except OSError:
        pass
    finally:
        os.close(fd)


def agent_written_for(path: str, size: int, mtime_ns: int) -> tuple[bool, float | None]:
    """For a file listed with ``size`` and ``mtime_ns`` (the picker's rows,
    not opened): (True, the agent's last write) when our own last write left
    it so, else (False, None)."""
    found = own_write_for(path, size, mtime_ns)
    return (False, None) if found is None else (True, found.agent_written)


def own_write_for(path: str, size: int, mtime_ns: int) -> OwnWrite | None:
    """``own_write`` for a file listed with ``size`` and ``mtime_ns`` (the picker's rows, not opened)."""
    writes, stamps = _held()
    if (size, mtime_ns) not in stamps:  # (a realpath costs a syscall per part of the path: 2,000 rows 0.5 s)
        return None
    found = writes.get(_key(path))
    if found is None or (found.size, found.mtime_ns) != (size, mtime_ns):
        return None
    return found
