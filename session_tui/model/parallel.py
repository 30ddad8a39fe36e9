"""Scanning the far part of a big file in a second process.

Parsing JSON is most of the cost of indexing and ``orjson`` holds the GIL,
so on a multi-core machine the initial index of a large file scans its
second part in a forked process while this process scans the first. The
child returns a Segment numbered from line 0, with the id keys already
hashed (a forked child shares this process's hash seed; ``key_check``
proves it); the caller renumbers and merges it in file order, so the result is
exactly that of one sequential scan. If the child fails, the caller scans
that part itself.
"""

from __future__ import annotations

import os
from array import array
from typing import TYPE_CHECKING

from .formats import get_format
from .segment import KEY_MASK, LineBlocks, Segment, scan

if TYPE_CHECKING:  # pragma: no cover
    from multiprocessing.connection import Connection

PARALLEL_MIN_BYTES = 48 << 20
FIRST_SHARE = 0.47  # of the bytes: this process also merges the child's part


def available() -> bool:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    import multiprocessing  # here: most sessions are small, and start-up time counts

    return cores > 1 and "fork" in multiprocessing.get_all_start_methods()


def split_point(fd: int, start: int, stop: int, share: float | None = None) -> int | None:
    """A line start near ``share`` (default FIRST_SHARE) of [start, stop), or
    None if none is found."""
    pos = start + int((stop - start) * (FIRST_SHARE if share is None else share))
    while pos < stop:
        block = os.pread(fd, min(1 << 20, stop - pos), pos)
        if not block:
            return None
        cut = block.find(b"\n")
        if cut >= 0:
            point = pos + cut + 1
            return point if point < stop else None
        pos += len(block)
    return None


def _child(conn: Connection, fmt_name: str, path: str, start: int, stop: int) -> None:
    try:
        conn.send(scan_file_range(fmt_name, path, start, stop))
    except BaseException as exc:  # report, never hang the parent
        conn.send(RuntimeError(f"scan worker failed: {exc!r}"))
    finally:
        conn.close()


class FarScan:
    """A scan of bytes [start, stop) of ``path`` in a forked process."""

    def __init__(self, fmt_name: str, path: str, start: int, stop: int) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self._conn, child_conn = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_child, args=(child_conn, fmt_name, path, start, stop), daemon=True)
        self._proc.start()
        child_conn.close()

    def result(self) -> Segment | None:
        """The child's Segment, or None if it failed (scan the part here)."""
        try:
            result = self._conn.recv()
        except (EOFError, OSError):
            result = None
        finally:
            self._conn.close()
            self._proc.join()
        return result if isinstance(result, Segment) else None

    def cancel(self) -> None:
        self._proc.kill()
        self._proc.join()
        self._conn.close()


def scan_file_range(fmt_name: str, path: str, start: int, end: int) -> Segment:
    """Scan bytes [start, end) of a file (complete lines); runs in a worker
    process. Line numbers start at 0 (the caller shifts them). Returns id
    keys instead of ids: all the merge needs."""
    fmt = get_format(fmt_name)
    fd = os.open(path, os.O_RDONLY)
    try:
        seg = Segment()
        for lines, starts, _end in LineBlocks(fd, start, end):
            scan(fmt, lines, starts, len(seg.line_kinds), seg)
        if seg.ids:
            seg.keys = array("q", map(KEY_MASK.__and__, map(hash, seg.ids)))
            seg.key_check = hash("session-tui")
            seg.ids = []
        return seg
    finally:
        os.close(fd)
