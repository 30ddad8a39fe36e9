"""Copying what another process appends to a file being replaced: the
bytes between two offsets, the whole lines at its end, and whether the
writers have let go of it; and, once the rewrite replaced it, the lines
a writer still holding the old file writes, kept in order (``settle``:
``store.Store.rewrite`` uses them)."""

from __future__ import annotations

import errno
import os
import stat
import time

from ..model.reading import open_writers
from .safe_files import fsync_dir, give_to, open_nofollow, utc_stamp, write_all

#: how long a rewrite waits for writers of the replaced file to let go
CATCH_UP_SECONDS = 30.0
#: how long a rewrite waits for them before it copies their lines as they come (their order then not kept)
SETTLE_SECONDS = 2.0
#: at most so many new files in a row, each fixing the order of the last one's race
MAX_ROUNDS = 8
#: without /proc: how long the replaced file must be still before the rewrite is done
QUIET_SECONDS = 0.5
COPY_CHUNK = 1 << 20


class Release:
    """Whether other processes have let go of a file: none holds it open
    for writing, seen twice in a row (a writer between its open() and the
    first look shows the second time); without /proc, the file has been
    still for QUIET_SECONDS."""

    def __init__(self, fd: int, st: os.stat_result) -> None:
        self.fd, self.st = fd, st
        self.empty_looks, self.size, self.still_since = 0, -1, time.monotonic()

    def done(self) -> bool:
        holders = open_writers.writers_of(self.st.st_dev, self.st.st_ino)
        if holders is None:
            size = os.fstat(self.fd).st_size
            if size != self.size:
                self.size, self.still_since = size, time.monotonic()
            return time.monotonic() - self.still_since >= QUIET_SECONDS
        self.empty_looks = 0 if holders else self.empty_looks + 1
        return self.empty_looks >= 2

    def wait(self, timeout: float) -> bool:
        """``done()`` within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not self.done():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002 if self.empty_looks else 0.01)
        return True


def copy_range(source: int, target: int, start: int, end: int) -> None:
    """Append ``source``'s bytes ``start``..``end`` to ``target``."""
    while start < end:
        chunk = os.pread(source, min(COPY_CHUNK, end - start), start)
        if not chunk:
            raise OSError(errno.EIO, "the file ended before the bytes to copy")
        write_all(target, chunk)
        start += len(chunk)


def copy_tail(source: int, target: int, start: int, *, whole_lines: bool, whole_only: bool = False) -> int:
    """Append ``source``'s bytes from ``start`` to its end (up to its last
    newline if ``whole_lines``) to ``target``; returns the offset copied to.
    A line longer than a chunk is copied in parts unless ``whole_only``
    (``target`` is live: another writer's line could land between them)."""
    end = os.fstat(source).st_size
    while start < end:
        chunk = os.pread(source, min(COPY_CHUNK, end - start), start)
        if not chunk:
            break
        if whole_lines:
            cut = chunk.rfind(b"\n") + 1
            if not cut:
                if len(chunk) == COPY_CHUNK and not whole_only:  # a line longer than a chunk: copy on
                    cut = len(chunk)
                else:
                    break
            chunk = chunk[:cut]
        write_all(target, chunk)
        start += len(chunk)
    return start


def settle(path: str, old: int, new: int, consumed: int, renamed_at: int, st: os.stat_result) -> tuple[int, int]:
    """After ``new`` replaced ``old`` at ``path`` (of which ``consumed`` bytes are in
    it): a writer that opened the old file before the rename may still
    write to it, and its next line already to the new one. Wait until no
    process holds the old file; if it grew meanwhile, those lines came
    before anything others appended to the new file: a new file is made
    in that order and renamed in turn (the race is microseconds wide: a
    round is rarely needed, more than one hardly ever). A writer that
    holds the old file longer than SETTLE_SECONDS has its lines appended
    as they come instead, until it lets go (none is lost); so does one
    when a process holds the new file open (a new file in its place would
    take what it writes away from it). ``renamed_at``: the size of
    ``new`` when it was renamed. Closes ``new``; returns the inode of the
    file left in place and how much of it this rewrite wrote."""
    directory = os.path.dirname(os.path.abspath(path))
    ours: list[int] = [new]  # descriptors to close (``old`` is the caller's)
    try:
        for _ in range(MAX_ROUNDS):
            if not Release(old, st).wait(SETTLE_SECONDS):
                break
            size = os.fstat(old).st_size
            if size == consumed:  # nothing reached the old file after the rename
                return os.fstat(new).st_ino, renamed_at
            current = os.fstat(new)
            if open_writers.writers_of(current.st_dev, current.st_ino):
                break  # someone writes to the new file through its own descriptor: it stays
            temp = os.path.join(directory, f".{os.path.basename(path)}.tmp-{os.getpid()}-{utc_stamp()}")
            following = open_nofollow(temp, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o600)
            ours.append(following)
            try:
                give_to(following, current.st_uid, current.st_gid)
                os.fchmod(following, stat.S_IMODE(current.st_mode))
                copy_range(new, following, 0, renamed_at)  # the rewrite and what it caught up
                copy_range(old, following, consumed, size)  # the old file's late lines
                now = copy_tail(new, following, renamed_at, whole_lines=True)  # then what others appended
                os.fsync(following)
                now = copy_tail(new, following, now, whole_lines=True)  # (appended during the fsync)
                following_at = os.fstat(following).st_size
                os.replace(temp, path)
                fsync_dir(directory)
            except BaseException:
                if os.path.lexists(temp):
                    os.unlink(temp)
                raise
            old, new, consumed, renamed_at = new, following, now, following_at
            st = os.fstat(old)
        return os.fstat(new).st_ino, catch_up(old, new, consumed, st)
    finally:
        for fd in ours:
            os.close(fd)


def catch_up(old: int, new: int, copied: int, st: os.stat_result) -> int:
    """Copy to ``new`` what is appended to the replaced file, line by
    line as it comes, until no other process holds it open for writing;
    returns where the last copy ended in ``new``."""
    release, deadline = Release(old, st), time.monotonic() + CATCH_UP_SECONDS
    while not release.done():
        copied = copy_tail(old, new, copied, whole_lines=True, whole_only=True)  # others append to ``new`` too
        if time.monotonic() > deadline:
            raise OSError(errno.EBUSY, f"still held open for writing after {CATCH_UP_SECONDS:.0f} s")
        time.sleep(0.01)
    copy_tail(old, new, copied, whole_lines=False)
    os.fsync(new)
    return os.lseek(new, 0, os.SEEK_CUR)
