"""Copying what another process appends to a file being replaced: the
bytes between two offsets, the whole lines at its end, and whether the
writers have let go of it (``store.Store.rewrite`` uses them)."""

from __future__ import annotations

import errno
import os
import time

from ..model.reading import open_writers


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (the kernel may write less at a time)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if not written:
            raise OSError(errno.EIO, "the write wrote nothing")
        view = view[written:]


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
