"""Which other processes hold a file open for writing, and which run.

Linux only, through ``/proc/<pid>/fd`` (the inode each descriptor points at)
and ``/proc/<pid>/fdinfo`` (its open flags); only processes this user may
inspect are seen (all of them for root). Elsewhere there is no such listing
and ``writers_of`` returns None: the caller cannot tell, and says so.

``writers_of`` looks now (the store, before a rewrite); ``process_table``
is the cheap look the live state takes for many sessions: every process's
command line, working directory and start, and the session files
(``*.jsonl``) held open for writing, read at most every few seconds.
"""

from __future__ import annotations

import marshal
import os
import threading
import time
from typing import NamedTuple

from .. import forked
from ..forked import Forked

PROC = "/proc"


class Holder(NamedTuple):
    pid: int
    name: str  # the command name (``/proc/<pid>/comm``), for the message

    def __str__(self) -> str:
        return f"{self.name} (pid {self.pid})"


def can_tell() -> bool:
    return os.path.isdir(os.path.join(PROC, "self", "fdinfo"))


def _write_mode(pid: str, fd: str) -> bool:
    try:
        with open(os.path.join(PROC, pid, "fdinfo", fd), "rb") as f:
            for line in f:
                if line.startswith(b"flags:"):
                    return int(line.split()[1], 8) & os.O_ACCMODE in (os.O_WRONLY, os.O_RDWR)
    except (OSError, ValueError, IndexError):
        pass
    return False


def _name(pid: str) -> str:
    try:
        with open(os.path.join(PROC, pid, "comm"), "rb") as f:
            return f.read().decode(errors="replace").strip() or "?"
    except OSError:
        return "?"


def writers_of(device: int, inode: int) -> list[Holder] | None:
    """The other processes with the file (``device``, ``inode``) open for
    writing, or None where that cannot be told (no ``/proc``)."""
    if not can_tell():
        return None
    me = str(os.getpid())
    holders = []
    for pid in os.listdir(PROC):
        if not pid.isdigit() or pid == me:
            continue
        fd_dir = os.path.join(PROC, pid, "fd")
        try:
            fds = os.listdir(fd_dir)
        except OSError:  # gone, or not ours to look at
            continue
        for fd in fds:
            link = os.path.join(fd_dir, fd)
            try:
                if not os.readlink(link).startswith("/"):  # pipes, sockets, anonymous inodes
                    continue
                st = os.stat(link)
            except OSError:
                continue
            if st.st_ino == inode and st.st_dev == device and _write_mode(pid, fd):
                holders.append(Holder(int(pid), _name(pid)))
                break
    return holders


PROCESS_TABLE_TTL = 2.0  # seconds a look at the process table is reused (the fleet asks for many sessions)
ARGS_KEPT = 64  # arguments of a command line kept (a session's id or file is named early)


class Process(NamedTuple):
    """One process this user may see, as the process table shows it."""

    pid: int
    cwd: str | None  # None: not ours to see
    names: frozenset[str]  # the basenames of its first three arguments (the program, the script it runs)
    args: tuple[str, ...]  # its command line (the first ARGS_KEPT arguments)
    started: float | None  # when it started (epoch seconds), if the OS says


class ProcessTable(NamedTuple):
    taken: float  # when it was read (epoch seconds)
    processes: tuple[Process, ...]
    #: (device, inode) of each ``*.jsonl`` file a process holds open for writing → those processes
    writers: dict[tuple[int, int], tuple[Holder, ...]]


_lock = threading.Lock()
_table: tuple[float, ProcessTable] | None = None  # (monotonic time read, the table)


def _boot_time() -> float | None:
    try:
        with open(os.path.join(PROC, "stat"), "rb") as f:
            for line in f:
                if line.startswith(b"btime "):
                    return float(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _started(pid: str, boot: float | None, ticks: float) -> float | None:
    """When ``pid`` started (``/proc/<pid>/stat``'s 22nd field: clock ticks after boot)."""
    if boot is None:
        return None
    try:
        with open(os.path.join(PROC, pid, "stat"), "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return boot + int(fields[19]) / ticks
    except (OSError, ValueError, IndexError):
        return None


def _session_writes(pid: str, holder: Holder, found: dict[tuple[int, int], list[Holder]]) -> None:
    """Note the ``*.jsonl`` files ``pid`` holds open for writing."""
    fd_dir = os.path.join(PROC, pid, "fd")
    try:
        fds = os.listdir(fd_dir)
    except OSError:  # gone, or not ours to look at
        return
    for fd in fds:
        link = os.path.join(fd_dir, fd)
        try:
            if not os.readlink(link).endswith(".jsonl"):  # (a session file; deleted ones end in " (deleted)")
                continue
            st = os.stat(link)
        except OSError:
            continue
        if _write_mode(pid, fd):
            found.setdefault((st.st_dev, st.st_ino), []).append(holder)


def _read_table(left_out: frozenset[str] | None = None) -> ProcessTable:
    """The table as the processes are now; ``left_out``: the pids not in it (default: this process)."""
    left_out = frozenset((str(os.getpid()),)) if left_out is None else left_out
    boot = _boot_time()
    try:
        ticks = float(os.sysconf("SC_CLK_TCK"))
    except (ValueError, OSError):
        ticks = 100.0
    taken = time.time()
    processes: list[Process] = []
    writers: dict[tuple[int, int], list[Holder]] = {}
    try:
        pids = [p for p in os.listdir(PROC) if p.isdigit() and p not in left_out]
    except OSError:
        pids = []
    for pid in pids:
        try:
            with open(os.path.join(PROC, pid, "cmdline"), "rb") as f:
                raw = f.read(1 << 16).split(b"\0")
        except OSError:
            continue
        args = tuple(a.decode("utf-8", "replace") for a in raw[:ARGS_KEPT] if a)
        if not args:  # a kernel thread
            continue
        try:
            cwd: str | None = os.readlink(os.path.join(PROC, pid, "cwd"))
        except FileNotFoundError:  # ended since its command line was read: it runs no session now
            continue
        except OSError:  # (not ours to look at: its directory cannot be told)
            cwd = None
        names = frozenset(os.path.basename(a) for a in args[:3])
        processes.append(Process(int(pid), cwd, names, args, _started(pid, boot, ticks)))
        _session_writes(pid, Holder(int(pid), _name(pid)), writers)
    return ProcessTable(taken, tuple(processes), {k: tuple(v) for k, v in writers.items()})


def process_table(fresh_after: float | None = None) -> ProcessTable | None:
    """The processes this user may see and the session files they hold
    open for writing, read at most every PROCESS_TABLE_TTL seconds (and
    again when it was read before ``fresh_after``, epoch seconds: what
    says a process is gone must have been seen after the file's last
    write); None where the OS does not tell (no ``/proc``)."""
    global _table, _reading
    if not can_tell():
        return None
    with _lock:
        if _reading is not None:  # (``prefetch``'s child: its table, if it sends one)
            _table = _table_sent(_reading.take(PREFETCH_WAIT)) or _table
            _reading.close()
            _reading = None
        now = time.monotonic()
        if _table is not None and now - _table[0] < PROCESS_TABLE_TTL:
            if fresh_after is None or _table[1].taken >= fresh_after:
                return _table[1]
        table = _read_table()
        _table = (now, table)
        return table


PREFETCH_WAIT = 2.0  # seconds the first look waits for the prefetching child (then it reads /proc itself)
_reading: Forked | None = None  # a child reading the table (``prefetch``)


def prefetch() -> None:
    """Read the process table now, beside the interpreter's start of the
    UI (the picker's first rows ask it for their badges): in a forked
    child where one can be (``forked.fork``: its Python work then takes
    nothing from Textual's start), else in a thread (a caller meanwhile
    waits for this read under the lock, then shares it)."""
    global _reading
    if not can_tell():
        return
    parent = os.getpid()
    _reading = forked.fork(lambda: _sent(parent), 16 << 20)
    if _reading is None:
        threading.Thread(target=process_table, name="process-table", daemon=True).start()


def _sent(parent: int) -> bytes:
    """The child's work: the table as ``parent`` would read it, with when (monotonic), as plain values."""
    at = time.monotonic()
    table = _read_table(left_out=frozenset((str(parent), str(os.getpid()))))  # (the picker, and this child)
    processes = [(p.pid, p.cwd, p.names, p.args, p.started) for p in table.processes]
    writers = [(key, [(h.pid, h.name) for h in holders]) for key, holders in table.writers.items()]
    return marshal.dumps((at, table.taken, processes, writers))


def _table_sent(data: bytes | None) -> tuple[float, ProcessTable] | None:
    """``_sent``'s table again (None: nothing sent, or not of its shape)."""
    if data is None:
        return None
    try:
        at, taken, processes, writers = marshal.loads(data)
        table = ProcessTable(
            taken,
            tuple(Process(pid, cwd, names, args, started) for pid, cwd, names, args, started in processes),
            {tuple(key): tuple(Holder(pid, name) for pid, name in holders) for key, holders in writers},
        )
    except (EOFError, ValueError, TypeError):
        return None
    return at, table
