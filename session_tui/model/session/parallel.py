"""Scanning the far part of a big file in a second process.

Parsing JSON is most of the cost of indexing and ``orjson`` holds the GIL,
so on a multi-core machine the initial index of a large file scans its
second part in another process (see ``FarScan``) while this process scans
the first. The child returns a Segment numbered from line 0; the caller
renumbers and merges it in file order, so the result is exactly that of one
sequential scan. If the child fails, the caller scans that part itself.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from array import array
from typing import TYPE_CHECKING

from ..formats import get_format
from ..pipes import write_all
from ..reading.segment import KEY_MASK, LineBlocks, Segment, scan
from ..reading.source import READ_BUFFER, Source

if TYPE_CHECKING:  # pragma: no cover
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

PARALLEL_MIN_BYTES = 48 << 20
#: of the bytes, read here: this process also merges the child's part, and a
#: new interpreter takes longer to start and to send its ids than a fork
FIRST_SHARE = {"fork": 0.47, "interpreter": 0.53}
#: from this size on, a forked child also tells whether its ids' keys are all
#: different, and this process merges them without adding them to its id set
#: (``SessionTree._extend_unsettled``: on 5 GB, 2.2 s of adding become 0.8 s of
#: asking); the child's 1.2 s of telling then calls for an even split. Below it
#: the set is small enough that adding is cheaper than telling.
KEYS_TOLD_BYTES = 2 << 30
KEYS_TOLD_SHARE = 0.50


def available() -> bool:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return cores > 1


def child_kind() -> str:
    """How a far scan starts now: "fork" when this process runs no other
    thread, else "interpreter"."""
    import multiprocessing  # here: most sessions are small, and start-up time counts

    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return "fork"
    return "interpreter"


def split_point(source: Source, start: int, stop: int, share: float | None = None) -> int | None:
    """A line start near ``share`` (default FIRST_SHARE) of [start, stop), or
    None if none is found."""
    pos = start + int((stop - start) * (FIRST_SHARE[child_kind()] if share is None else share))
    while pos < stop:
        block = source.read(pos, min(1 << 20, stop - pos))
        if not block:
            return None
        cut = block.find(b"\n")
        if cut >= 0:
            point = pos + cut + 1
            return point if point < stop else None
        pos += len(block)
    return None


def start_far_scan(source: Source, fmt_name: str, path: str, stop: int) -> tuple[int, int, FarScan] | None:
    """For a local file of ``stop`` bytes worth it, start scanning its far
    part in another process: (where that part starts, where it ends: a line
    end, the scan). What is before it and after it is read by the caller."""
    if source.remote or stop < PARALLEL_MIN_BYTES or not available():
        return None
    window = min(stop, 1 << 20)
    cut = source.read(stop - window, window).rfind(b"\n")
    if cut < 0:
        return None
    last_nl = stop - window + cut + 1
    told = stop >= KEYS_TOLD_BYTES and child_kind() == "fork"
    mid = split_point(source, 0, last_nl, KEYS_TOLD_SHARE if told else None)
    return None if mid is None else (mid, last_nl, FarScan(fmt_name, path, mid, last_nl, told))


def _forked_child(conn: Connection, fmt_name: str, path: str, start: int, stop: int, tell: bool) -> None:
    try:
        seg = scan_file_range(fmt_name, path, start, stop)
        if seg.ids:  # hashed here: a forked child shares the parent's hash seed (key_check proves it)
            seg.keys = array("q", map(KEY_MASK.__and__, map(hash, seg.ids)))
            seg.key_check = hash("session-tui")
            if tell:  # (beside the parent's scan: the parent then asks its id set about them, adds none)
                seg.keys_unique = len(set(seg.keys)) == len(seg.keys)
            seg.ids = []
        conn.send(seg)
    except BaseException as exc:  # report, never hang the parent
        conn.send(RuntimeError(f"scan worker failed: {exc!r}"))
    finally:
        conn.close()


class FarScan:
    """A scan of bytes [start, stop) of ``path`` in another process: a fork
    when this process runs no other thread (the command line), else a new
    interpreter (``python -m session_tui.model.session.parallel``, in the app, whose
    index runs in a thread: forking a process that has threads can copy a
    held lock into the child)."""

    def __init__(self, fmt_name: str, path: str, start: int, stop: int, tell_keys: bool = False) -> None:
        """``tell_keys``: a forked child tells whether its ids' keys are all different (KEYS_TOLD_BYTES)."""
        self._fork: tuple[BaseProcess, Connection] | None = None
        self._child: subprocess.Popen[bytes] | None = None
        if child_kind() == "fork":
            import multiprocessing

            ctx = multiprocessing.get_context("fork")
            conn, child_conn = ctx.Pipe(duplex=False)
            proc = ctx.Process(
                target=_forked_child, args=(child_conn, fmt_name, path, start, stop, tell_keys), daemon=True
            )
            proc.start()
            child_conn.close()
            self._fork = (proc, conn)
            return
        package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
        self._child = subprocess.Popen(
            [sys.executable, "-m", __name__, fmt_name, path, str(start), str(stop)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )

    def result(self) -> Segment | None:
        """The child's Segment, or None if it failed (scan the part here)."""
        result: object = None
        if self._fork is not None:
            proc, conn = self._fork
            try:
                result = conn.recv()
            except (EOFError, OSError):
                pass
            finally:
                conn.close()
                proc.join()
        elif self._child is not None:
            data, _ = self._child.communicate()
            if self._child.returncode == 0:
                try:
                    result = pickle.loads(data)  # from our own child, over its pipe
                except (pickle.UnpicklingError, EOFError, ValueError):
                    pass
        return result if isinstance(result, Segment) else None

    def cancel(self) -> None:
        if self._fork is not None:
            proc, conn = self._fork
            proc.kill()
            proc.join()
            conn.close()
        elif self._child is not None:
            self._child.kill()
            self._child.communicate()


def scan_file_range(fmt_name: str, path: str, start: int, end: int) -> Segment:
    """Scan bytes [start, end) of a file (complete lines); runs in a worker
    process. Line numbers start at 0 (the caller shifts them)."""
    fmt = get_format(fmt_name)
    seg = Segment()
    for lines, starts, _end in LineBlocks(lambda: open(path, "rb", buffering=READ_BUFFER), start, end):
        scan(fmt, lines, starts, len(seg.line_kinds), seg)
    return seg


if __name__ == "__main__":  # the child: FORMAT PATH START STOP
    name, file, first, last = sys.argv[1:5]
    write_all(sys.stdout.fileno(), pickle.dumps(scan_file_range(name, file, int(first), int(last)), protocol=5))
