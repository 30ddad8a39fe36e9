"""What edits leave beside a session file, found and removed (``session-tui clean``).

An edit leaves ``<name>.bak-<UTC>`` (the file before a rewrite),
``<name>.bad-<UTC>`` (bad lines removed), ``<name>.torn-<UTC>`` (a torn
tail cut), ``<name>.lock`` (the writer lock) and, if it was killed
mid-rewrite, ``.<name>.tmp-<pid>-<UTC>``. Only names of exactly these forms
are touched, never a session file itself; a lock is removed only while it
can be taken, a temp file only once its process is gone.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from .safe_files import open_nofollow

_STAMP = r"(?P<stamp>\d{8}T\d{6}\.\d{6}Z)"
_SAVED = re.compile(r"(?P<session>.+)\.(?P<kind>bak|bad|torn)-" + _STAMP)
_TEMP = re.compile(r"\.(?P<session>.+)\.tmp-(?P<pid>\d+)-" + _STAMP)
_LOCK = re.compile(r"(?P<session>.+)\.lock")

KINDS = {"bak": "backup", "bad": "bad lines", "torn": "torn tail", "tmp": "unfinished rewrite", "lock": "lock"}
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


@dataclass(frozen=True)
class Leftover:
    path: str
    kind: str  # a key of KINDS
    session: str  # the session file it belongs to (it may be gone)
    age: float  # seconds since it was made
    size: int


def parse_age(text: str) -> float:
    """``7d``, ``12h``, ``30m``, ``90s``, ``2w`` in seconds; ValueError otherwise."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*", text)
    if not match:
        raise ValueError(f"{text!r} is not an age such as 7d, 12h, 30m (s, m, h, d, w)")
    return float(match.group(1)) * _UNITS[match.group(2)]


def _stamp_age(stamp: str, now: float) -> float:
    made = datetime.strptime(stamp, "%Y%m%dT%H%M%S.%fZ").replace(tzinfo=UTC).timestamp()
    return max(0.0, now - made)


def _classify(directory: str, name: str, now: float) -> Leftover | None:
    if name.endswith(".jsonl"):  # a session's own name is never a leftover
        return None
    path = os.path.join(directory, name)
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not os.path.isfile(path) or os.path.islink(path):
        return None
    if match := _SAVED.fullmatch(name):
        kind, age = match.group("kind"), _stamp_age(match.group("stamp"), now)
    elif match := _TEMP.fullmatch(name):
        kind, age = "tmp", _stamp_age(match.group("stamp"), now)
    elif (match := _LOCK.fullmatch(name)) and match.group("session").endswith(".jsonl"):
        kind, age = "lock", max(0.0, now - st.st_mtime)
    else:
        return None
    return Leftover(path, kind, os.path.join(directory, match.group("session")), age, st.st_size)


def find(path: str, older_than: float = 0.0) -> Iterator[Leftover]:
    """The leftovers of the session file ``path``, or of every session under
    the folder ``path``, made at least ``older_than`` seconds ago."""
    now = time.time()
    walk: Iterator[tuple[str, list[str]]]
    if os.path.isdir(path):
        walk = ((d, names) for d, _, names in os.walk(path))
        owner = None
    else:
        walk = iter([(os.path.dirname(path) or ".", os.listdir(os.path.dirname(path) or "."))])
        owner = os.path.abspath(path)
    for directory, names in walk:
        for name in sorted(names):
            found = _classify(directory, name, now)
            if found is None or found.age < older_than:
                continue
            if owner is not None and os.path.abspath(found.session) != owner:
                continue
            yield found


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove(leftover: Leftover) -> str | None:
    """Remove ``leftover``; None when done, else why it was kept."""
    if leftover.kind == "tmp":
        match = _TEMP.fullmatch(os.path.basename(leftover.path))
        if match and _pid_alive(int(match.group("pid"))):
            return f"process {match.group('pid')} may still be writing it"
    if leftover.kind == "lock":
        return _remove_lock(leftover.path)
    os.unlink(leftover.path)
    return None


def _remove_lock(path: str) -> str | None:
    """A lock is removed while held, so no writer holds it meanwhile (a
    writer that opened it before checks after locking that it is still the
    lock file, see ``Store.locked``)."""
    fd = open_nofollow(path, os.O_RDWR)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                return "a process holds it (an edit is under way)"
            raise
        os.unlink(path)
        return None
    finally:
        os.close(fd)
