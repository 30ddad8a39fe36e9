"""Work done in a forked child while this process goes on starting.

The picker's first frame waits for work that needs no part of the UI (the
walk of its folders, the process table its badges ask): done in a thread,
it takes the interpreter's lock from Textual's start; done in a child
forked before Textual is imported, it runs on the other core. The child
runs one function, sends the bytes it returns through a pipe and ends;
the parent takes them when it needs them, or stops it.

Only on Linux, and only while no other thread runs: a fork copies the
calling thread alone, and may copy a lock another one holds (Python 3.12
warns of it on stderr, which is the picker's screen). A child that fails
sends nothing; what a child sends is this program's own bytes, but a
caller still checks them as it checks its own cache.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable

from .pipes import write_all


def alone() -> bool:
    """No other thread runs (a fork now copies every thread there is)."""
    return threading.active_count() == 1


class Forked:
    """A child at work: ``take`` what it sends, once it ends."""

    def __init__(self, pid: int, fd: int, max_bytes: int) -> None:
        self.pid, self.fd, self.max_bytes = pid, fd, max_bytes
        self._data = bytearray()
        self._status: int | None = None  # the child's exit status, once reaped
        self._sent = False  # it closed its end: all it sends is read
        self._taking = False
        self._lock = threading.Lock()

    @property
    def ended(self) -> bool:
        """Taken (what it sent, or nothing) or closed: nothing more comes."""
        return self.fd < 0

    def take(self, timeout: float | None = None) -> bytes | None:
        """What the child sent, once it ended (waiting at most ``timeout``
        seconds; None: until it ends); None when it failed, sent more than
        ``max_bytes``, or is not done in time (then it has not ``ended``:
        ask again, or ``close``). One thread takes at a time."""
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
        if self._status != 0 or len(self._data) > self.max_bytes:
            return None
        return bytes(self._data)

    def _read(self, timeout: float | None) -> bool:
        """Read what the child sends until it ends (True) or ``timeout`` passes (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            if not select.select([self.fd], [], [], left)[0]:
                return False
            chunk = os.read(self.fd, 1 << 16)
            self._data += chunk
            self._sent = not chunk
            if not chunk or len(self._data) > self.max_bytes:
                return True

    def stop(self) -> None:
        """Stop the child if it is still at work (a ``take`` waiting in
        another thread then returns, with nothing)."""
        with self._lock:
            if self.pid:
                os.kill(self.pid, signal.SIGKILL)

    def close(self) -> None:
        """Reap the child (stopped first if still at work); while another
        thread takes, only stop it (that thread then closes)."""
        with self._lock:
            if self.fd < 0:
                return
            if self._taking:
                os.kill(self.pid, signal.SIGKILL)
                return
            os.close(self.fd)
            if not self._sent:  # (still at work: what it sent so far is not all)
                os.kill(self.pid, signal.SIGKILL)
            self._status = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
            self.fd, self.pid = -1, 0


def fork(work: Callable[[], bytes], max_bytes: int) -> Forked | None:
    """``work()`` in a forked child, its bytes sent back; None where no
    child is forked (not Linux, another thread runs)."""
    if not sys.platform.startswith("linux") or not alone():
        return None
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns, never writes to the terminal
        code = 1
        try:
            os.close(read_fd)
            write_all(write_fd, work())
            os.close(write_fd)
            code = 0
        except BaseException:  # noqa: S110 - (the parent does the work itself: nothing to say on its screen)
            pass
        finally:
            os._exit(code)
    os.close(write_fd)
    return Forked(pid, read_fd, max_bytes)
