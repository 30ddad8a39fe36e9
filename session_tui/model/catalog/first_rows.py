"""The picker's first rows: the newest rows the cache remembers of its
folders, or, when it remembers none, found by a child process while the
parent starts its UI.

With a head in the cache (``head.py``), the first frame shows it. With
none, the first rows waited for the walk of the folders (10,000 files: 65
ms) and the heads of the newest files (40 ms), in a thread that shares the
interpreter's lock with Textual's start. So the picker forks, before it
imports Textual or starts a thread, a child that walks the folders and
reads the newest heads on the other core, with the catalog's own code (its
cache, its mask), and sends back a head: the newest rows and how many files
there are. The parent shows them as it shows a remembered head, then walks
as usual (the child's reads are kept in its catalog: no head is read twice).

Only on Linux (``fork`` before any thread) and for local folders. A child
that fails, is killed or sends what does not parse gives nothing, and the
picker walks as it would have. What it sends is checked as a head read
from the cache is.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
import time
from collections.abc import Sequence

from ..reading.source import is_url
from ..sanitize import Mask
from .cache import Catalog, _info_of, _row_of, absolute
from .head import head_document, head_of
from .session_info import SessionInfo

MAX_BYTES = 16 << 20  # what a child may send (a head is 200 rows: ~60 KB)
FIRST_PAGE = 50  # heads read without a terminal to size the page by

Head = tuple[list[SessionInfo], int]  # the newest rows, and how many files there are


class FirstRows:
    """The first rows of a picker over ``roots``: ``remembered`` by the
    cache, or a child's walk under way (``take`` them)."""

    def __init__(self, roots: list[str], remembered: Head | None = None, pid: int = 0, fd: int = -1) -> None:
        self.roots, self.remembered, self.pid, self.fd = roots, remembered, pid, fd
        self._data = bytearray()
        self._taking = False
        self._lock = threading.Lock()

    @property
    def walking(self) -> bool:
        """A child walks the folders (its rows are not taken yet)."""
        return self.fd >= 0

    def take(self, timeout: float | None = None) -> Head | None:
        """The child's rows, once it has sent them (waiting at most
        ``timeout`` seconds: None, until it ends); None when it failed, or
        is not done in time (then it is still ``walking``: ask again, or
        ``close``). One thread takes at a time."""
        with self._lock:
            if self.fd < 0:
                return None
            self._taking = True
        try:
            if not self._read(timeout):
                return None
        finally:
            with self._lock:
                self._taking = False
        self.close()
        if not self._data or len(self._data) > MAX_BYTES:
            return None
        return head_of(bytes(self._data), self.roots, _info_of)

    def _read(self, timeout: float | None) -> bool:
        """Read what the child sends until it ends (True) or ``timeout`` passes (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            if not select.select([self.fd], [], [], left)[0]:
                return False
            chunk = os.read(self.fd, 1 << 16)
            self._data += chunk
            if not chunk or len(self._data) > MAX_BYTES:
                return True

    def stop(self) -> None:
        """Stop the child if it is still at work (a ``take`` waiting in
        another thread then returns, with nothing)."""
        with self._lock:
            if self.pid:
                os.kill(self.pid, signal.SIGKILL)

    def close(self) -> None:
        """Stop the child and reap it; while another thread takes, only stop
        it (that thread then closes)."""
        with self._lock:
            if self.fd < 0:
                return
            os.kill(self.pid, signal.SIGKILL)
            if self._taking:
                return
            os.close(self.fd)
            os.waitpid(self.pid, 0)
            self.fd, self.pid = -1, 0


def start(
    roots: Sequence[str], mask: Mask | None = None, cache_dir: str | None = None, page: int | None = None
) -> FirstRows | None:
    """The first rows of the picker over the folders ``roots``, as the
    catalog ``Catalog(cache_dir, mask)`` holds them: its remembered head,
    or a child forked to walk them (Linux, local folders, no thread
    started yet) and read the heads of the ``page`` newest (None: a screen
    of them); None: neither."""
    roots = [absolute(r) for r in roots]
    remembered = Catalog(cache_dir, mask).head(roots)
    if remembered is not None:
        return FirstRows(roots, remembered)
    if not sys.platform.startswith("linux") or any(is_url(r) for r in roots) or not _alone():
        return None
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns, never writes to the terminal
        code = 1
        try:
            os.close(read_fd)
            data = _first_rows(roots, mask, cache_dir, page or _screen_rows())
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
            code = 0
        except BaseException:  # noqa: S110 - (the parent walks instead: nothing to say on its screen)
            pass
        finally:
            os._exit(code)
    os.close(write_fd)
    return FirstRows(roots, pid=pid, fd=read_fd)


def _alone() -> bool:
    """No other thread runs: a fork beside one copies none of them, and may
    copy a lock one of them holds (Python 3.12 warns of it)."""
    return threading.active_count() == 1


def _screen_rows() -> int:
    """The terminal's rows (as many heads as the picker's walk reads first)."""
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).lines if sys.__stdout__ else FIRST_PAGE
    except (OSError, ValueError):
        return FIRST_PAGE


def _first_rows(roots: list[str], mask: Mask | None, cache_dir: str | None, page: int) -> bytes:
    """The child's work: the listing, the ``page`` newest unread files'
    heads read, as a head."""
    catalog = Catalog(cache_dir, mask)
    listed = catalog.listing(roots)
    unread = sorted((info for info in listed if not info.known), key=lambda info: -info.mtime_ns)[:page]
    fresh = {info.path: catalog.read(info.path) for info in unread}
    rows = [fresh.get(info.path, info) for info in listed]  # (None: gone since the listing)
    return head_document(roots, [info for info in rows if info is not None], _row_of)
