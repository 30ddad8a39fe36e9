"""Byte offsets of the physical lines of a session file, and its tail state.

One ``array('Q')`` slot per line start and one byte per line kind; nothing
else per line. The index also remembers enough about the file to notice when
appending is not what happened (shrunk, replaced, first line changed): the
caller then reloads from scratch instead of mixing old and new state.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .source import Source, SourceStat

HEAD_BYTES = 4096
MARK_BYTES = 256  # the last bytes indexed, to tell a grown file from a replaced one where no identity says
REMOTE_HEAD_CHECK = 256  # of the head, compared at each refresh of a remote file (bytes cross the network)


class LineIndex:
    def __init__(self) -> None:
        self.line_starts = array("Q")  # start offset of each committed line
        self.line_kinds = array("B")  # LineKind of each committed line
        self.end = 0  # bytes [0, end) are committed
        self.open_end = False  # the last committed line is an object lacking its "\n"
        self.torn: bytes = b""  # a final fragment that is not a record (not committed)
        self.identity: tuple[int, ...] | None = None  # (st_dev, st_ino), where the source has one
        self.remembered = False  # the file was measured once (``remember``)
        self.head = b""  # the first bytes of line 1, to notice a rewrite
        self.mark = b""  # the last MARK_BYTES bytes indexed (kept only for a source without identity)

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

    def changed(self, source: Source, st: SourceStat) -> str | None:
        """Why ``source`` is no longer the file indexed, or None if it is the
        same file, unchanged or grown by appending. Without an identity (a
        remote file), a file whose last indexed bytes changed was replaced."""
        if not self.remembered:
            return None
        if st.identity is not None and st.identity != self.identity:
            return "the file was replaced"
        if st.size < self.end:
            return "the file shrank"
        head_range, *mark_range = self.compared(st)
        head = self.head[: head_range[1]]
        if head and source.read(*head_range) != head:
            return "the first line changed"
        if mark_range and source.read(*mark_range[0]) != self.mark:
            return "the file was replaced"
        return None

    def compared(self, st: SourceStat) -> list[tuple[int, int]]:
        """The byte ranges (offset, length) ``changed`` reads for ``st``."""
        ranges = [(0, len(self.head) if st.identity is not None else min(len(self.head), REMOTE_HEAD_CHECK))]
        if st.identity is None and self.mark:
            ranges.append((self.end - len(self.mark), len(self.mark)))
        return ranges

    def remember(self, source: Source, st: SourceStat) -> None:
        self.remembered = True
        self.identity = st.identity
        if not self.head and self.line_starts and self.line_starts[0] == 0:
            first_len = self.span(0)[1]
            self.head = source.read(0, min(first_len, HEAD_BYTES))
        if st.identity is None and self.end:
            self.mark = source.read(max(self.end - MARK_BYTES, 0), min(self.end, MARK_BYTES))
