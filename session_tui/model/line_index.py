"""Byte offsets of the physical lines of a session file, and its tail state.

One ``array('Q')`` slot per line start and one byte per line kind; nothing
else per line. The index also remembers enough about the file to notice when
appending is not what happened (shrunk, replaced, first line changed): the
caller then reloads from scratch instead of mixing old and new state.
"""

from __future__ import annotations

import os
from array import array

HEAD_BYTES = 4096


class LineIndex:
    def __init__(self) -> None:
        self.line_starts = array("Q")  # start offset of each committed line
        self.line_kinds = array("B")  # LineKind of each committed line
        self.end = 0  # bytes [0, end) are committed
        self.open_end = False  # the last committed line is an object lacking its "\n"
        self.torn: bytes = b""  # a final fragment that is not a record (not committed)
        self.identity: tuple[int, int] | None = None  # (st_dev, st_ino)
        self.head = b""  # the first bytes of line 1, to notice a rewrite

    def __len__(self) -> int:
        return len(self.line_starts)

    def span(self, line: int) -> tuple[int, int]:
        """(offset, length) of 0-based committed ``line``, without its newline."""
        start = self.line_starts[line]
        if line + 1 < len(self.line_starts):
            stop = self.line_starts[line + 1] - 1
        else:
            stop = self.end if self.open_end else self.end - 1
        return start, stop - start

    def changed(self, fd: int, st: os.stat_result) -> str | None:
        """Why the file at ``fd`` is no longer the one indexed, or None if it
        is the same file, unchanged or grown by appending."""
        if self.identity is None:
            return None
        if (st.st_dev, st.st_ino) != self.identity:
            return "the file was replaced"
        if st.st_size < self.end:
            return "the file shrank"
        if self.head and os.pread(fd, len(self.head), 0) != self.head:
            return "the first line changed"
        return None

    def remember(self, fd: int, st: os.stat_result) -> None:
        self.identity = (st.st_dev, st.st_ino)
        if not self.head and self.line_starts and self.line_starts[0] == 0:
            first_len = self.span(0)[1]
            self.head = os.pread(fd, min(first_len, HEAD_BYTES), 0)
