"""Safe writes to one session file.

* One writer: an advisory ``fcntl`` lock on a sidecar ``<name>.lock`` file,
  held while writing; refused (with the reason) when another process holds
  it, or when the file grew within the last ``LIVE_SECONDS`` (an agent is
  writing), unless forced.
* Appends: the file must end with a newline first (a complete last record
  missing it gets one; a torn fragment refuses: drop it first). Each record
  is one ``write()`` on an ``O_APPEND`` descriptor, then ``fsync``.
* Rewrites: a backup copy first (``<name>.bak-<UTC timestamp>``), a temp file
  in the same directory, ``fsync``, ``os.replace``, ``fsync`` of the
  directory; permission bits kept. New files are ``0600`` and never replace
  an existing path.
* No write goes through a symlink (the session file, its lock, a new file):
  refused, with the reason.
* Before writing, the file must still be what the plan was made from
  (``Fingerprint``: size, inode, mtime, hash of the last line).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from ..model import json_text
from ..model.source import is_url

LIVE_SECONDS = 2.0
TAIL_WINDOW = 1 << 16
#: why a file given as a URL is never written
REMOTE_READ_ONLY = (
    "a remote file is read-only here (one writer, an atomic replace and a lock cannot be guaranteed "
    "over SSH or object storage); fork -o LOCAL_PATH or export it, then edit the copy"
)


class Refused(Exception):
    """A write that must not happen now; ``str()`` says why, in one line."""


class LiveWriter(Refused):
    """The file changed a moment ago: an agent may be writing it (forcing writes anyway)."""


class NothingToDo(Refused):
    """The repair asked for does not apply: the file has nothing it would change."""


class DanglingInside(Refused):
    """A dangling call with later messages after it on the branch: closing it
    at the end would not answer it (``Form.close_inside`` does)."""


@dataclass(frozen=True)
class Fingerprint:
    size: int
    inode: int
    mtime_ns: int
    last_line: str  # sha256 of the last line (or fragment)

    @classmethod
    def of(cls, path: str) -> Fingerprint:
        if is_url(path):
            raise Refused(f"{path}: {REMOTE_READ_ONLY}")
        st = os.stat(path)
        return cls(st.st_size, st.st_ino, st.st_mtime_ns, hashlib.sha256(_last_line(path, st.st_size)).hexdigest())


def _last_line(path: str, size: int) -> bytes:
    if not size:
        return b""
    with open(path, "rb") as f:
        f.seek(max(0, size - TAIL_WINDOW))
        tail = f.read()
    body = tail[:-1] if tail.endswith(b"\n") else tail
    return body[body.rfind(b"\n") + 1 :]


def utc_stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")


def _symlink_refused(path: str) -> Refused:
    return Refused(f"{path}: is a symbolic link; not followed")


def open_nofollow(path: str, flags: int, mode: int = 0o600) -> int:
    """``os.open`` that never follows a symlink at ``path``: refused instead."""
    try:
        return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _symlink_refused(path) from None
        raise


def create_exclusive(path: str, data: bytes, mode: int = 0o600) -> None:
    """Write a new file at ``path``: never over an existing file or through
    a symlink; fsync the file and its directory."""
    try:
        fd = open_nofollow(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise Refused(f"{path}: already exists; not overwritten") from None
    try:
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    fsync_dir(os.path.dirname(os.path.abspath(path)))


def fsync_dir(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class Store:
    """The writer of one session file."""

    def __init__(self, path: str | os.PathLike[str], *, force: bool = False):
        self.path = os.fspath(path)
        self.force = force
        self.lock_path = self.path + ".lock"

    # -- guards -------------------------------------------------------------------
    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the writer lock, or refuse if another process holds it."""
        fd = open_nofollow(self.lock_path, os.O_RDWR | os.O_CREAT)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise Refused(f"{self.path}: another process is writing it (lock held)") from None
                raise
            yield
        finally:
            os.close(fd)

    def check_quiet(self) -> None:
        """Refuse when the file changed within LIVE_SECONDS, unless forced."""
        if self.force:
            return
        try:
            age = time.time() - os.stat(self.path).st_mtime
        except OSError:  # gone, a symlink loop: ``verify`` says so
            return
        if age < LIVE_SECONDS:
            raise LiveWriter(f"{self.path}: changed {age:.1f} s ago: a live agent may be writing it (wait, or force)")

    def verify(self, expected: Fingerprint | None) -> None:
        """Refuse if the file is a symlink (before anything is written; no
        write follows one either) or no longer what a plan was made from."""
        if os.path.islink(self.path):
            raise _symlink_refused(self.path)
        if expected is None:
            return
        try:
            now = Fingerprint.of(self.path)
        except OSError as exc:  # gone
            raise Refused(
                f"{self.path}: changed since the edit was planned ({exc.strerror or exc}); plan it again"
            ) from None
        if now != expected:
            raise Refused(f"{self.path}: changed since the edit was planned; plan it again")

    # -- writes -------------------------------------------------------------------
    def ends_with_newline(self) -> bool | None:
        """True / False, or None for an empty file."""
        size = os.path.getsize(self.path)
        if not size:
            return None
        with open(self.path, "rb") as f:
            f.seek(size - 1)
            return f.read(1) == b"\n"

    def append_lines(self, records: list[dict[str, Any]], *, expected: Fingerprint | None = None) -> int:
        """Append ``records`` as JSON lines; returns the offset they start at."""
        with self.locked():
            self.check_quiet()
            self.verify(expected)
            fd = open_nofollow(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                if self.ends_with_newline() is False:
                    last = _last_line(self.path, os.path.getsize(self.path))
                    try:
                        orjson.loads(last)
                    except orjson.JSONDecodeError:
                        raise Refused(f"{self.path}: ends in a torn line; drop it first") from None
                    _write_all(fd, b"\n")  # a complete record that only lacked its newline
                start = os.fstat(fd).st_size
                for record in records:  # one write() per record
                    _write_all(fd, json_text.dumps(record).encode() + b"\n")
                os.fsync(fd)
            finally:
                os.close(fd)
        return start

    def rewrite(self, data: bytes, *, expected: Fingerprint | None = None) -> str:
        """Replace the file's content atomically after a backup; returns the
        backup's path."""
        with self.locked():
            self.check_quiet()
            self.verify(expected)
            st = os.lstat(self.path)
            backup = f"{self.path}.bak-{utc_stamp()}"
            with open(self.path, "rb") as f:
                create_exclusive(backup, f.read(), stat.S_IMODE(st.st_mode))
            directory = os.path.dirname(os.path.abspath(self.path))
            temp = os.path.join(directory, f".{os.path.basename(self.path)}.tmp-{os.getpid()}-{utc_stamp()}")
            create_exclusive(temp, data, stat.S_IMODE(st.st_mode))
            os.chmod(temp, stat.S_IMODE(st.st_mode))
            os.replace(temp, self.path)
            fsync_dir(directory)
            return backup
