"""Which other processes hold a file open for writing.

Linux only, through ``/proc/<pid>/fd`` (the inode each descriptor points at)
and ``/proc/<pid>/fdinfo`` (its open flags); only processes this user may
inspect are seen (all of them for root). Elsewhere there is no such listing
and ``writers_of`` returns None: the caller cannot tell, and says so.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

PROC = "/proc"


@dataclass(frozen=True)
class Holder:
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


PROCESS_TABLE_TTL = 5.0  # seconds a look at the process table is reused
_table: tuple[float, dict[str, set[str]]] | None = None


def _programs_by_cwd() -> dict[str, set[str]]:
    """The names of the programs (the executable's, and the script's it
    runs) of every process this user may see, by working directory; read
    at most every PROCESS_TABLE_TTL seconds."""
    global _table
    now = time.monotonic()
    if _table is not None and now - _table[0] < PROCESS_TABLE_TTL:
        return _table[1]
    found: dict[str, set[str]] = {}
    try:
        pids = [p for p in os.listdir(PROC) if p.isdigit()]
    except OSError:
        pids = []
    for pid in pids:
        try:
            cwd = os.readlink(os.path.join(PROC, pid, "cwd"))
            with open(os.path.join(PROC, pid, "cmdline"), "rb") as f:
                argv = f.read().split(b"\0")[:3]
        except OSError:
            continue
        names = found.setdefault(cwd, set())
        names.update(os.path.basename(a.decode("utf-8", "replace")) for a in argv if a)
    _table = (now, found)
    return found


def agent_running_in(cwd: str, programs: tuple[str, ...]) -> bool | None:
    """Whether a process this user may see runs one of ``programs`` (by the
    name of its executable or of the script it runs) in the directory
    ``cwd``; None where the OS does not tell (no ``/proc``)."""
    if not can_tell():
        return None
    names = _programs_by_cwd().get(os.path.realpath(cwd), set())
    return any(name == p or name.startswith(p + ".") for name in names for p in programs)
