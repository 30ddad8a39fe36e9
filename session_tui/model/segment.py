"""Scanning a run of complete lines into a Segment: the parse step of indexing.

A Segment holds what one region of the file contributes, in compact arrays,
with absolute byte offsets and 0-based line numbers. Scanning is a pure
function of the bytes, so a region can be scanned in another process
(see ``parallel``) and merged into the tree in file order afterwards.
"""

from __future__ import annotations

import os
from array import array
from dataclasses import dataclass, field
from itertools import accumulate, chain

from .records import BOM

BLOCK = 1 << 20  # small enough to stay in cache; a longer line is carried over
KEY_MASK = (1 << 60) - 1  # id keys below 2**60 are the smallest Python ints that hold them


class LineKind:
    """What a physical line is. One byte per line in ``Segment.line_kinds``."""

    BLANK = 0
    ENTRY = 1  # a node of the conversation tree
    HEADER = 2  # the session header (not part of the tree)
    POINTER = 3  # an active-leaf pointer
    META = 4  # a known record that is not a tree node
    UNKNOWN = 5  # a JSON object of a type the format does not know: kept, shown
    BAD = 6  # not one JSON object
    DUPLICATE = 7  # an entry whose id was already used (the first one wins)

    NAMES = ("blank", "entry", "header", "pointer", "meta", "unknown", "bad line", "duplicate")


class Shape:
    """One byte per entry: role (bits 0-2), tool flags, summary bit."""

    ROLE_MASK = 0b111
    CALLS = 1 << 3  # the entry makes tool calls
    RESULT = 1 << 4  # the entry is a tool result
    SUMMARY = 1 << 5  # a summary / compaction node

    NONE, SYSTEM, DEVELOPER, USER, ASSISTANT, TOOL, OTHER = range(7)
    ROLE_NAMES = ("", "system", "developer", "user", "assistant", "tool", "other")
    #: role name -> shape byte (tool results carry the RESULT flag)
    OF_ROLE = {"system": SYSTEM, "developer": DEVELOPER, "user": USER, "assistant": ASSISTANT,
               "tool": TOOL | RESULT, "function": TOOL | RESULT}

    @staticmethod
    def role(shape: int) -> str:
        return Shape.ROLE_NAMES[shape & Shape.ROLE_MASK]


@dataclass
class Segment:
    """What a region of complete lines adds, in columns that pickle cheaply.

    Entries: ``entry_lines``, ``ids`` and ``shapes`` have one item each. The
    parent of an entry is, by default, the entry scanned just before it (a
    linear run: the common case); every other entry is listed in ``far`` as
    (position in this segment, parent id or None).
    """

    line_starts: array = field(default_factory=lambda: array("Q"))
    line_kinds: array = field(default_factory=lambda: array("B"))
    entry_lines: array = field(default_factory=lambda: array("I"))
    ids: list = field(default_factory=list)  # str per entry; empty in linear formats
    shapes: bytearray = field(default_factory=bytearray)
    far: list = field(default_factory=list)  # (position, parent id | None)
    keys: array | None = None  # id keys, when computed by the scanning process
    key_check: int = 0  # hash("session-tui") in the scanning process
    pointers: list = field(default_factory=list)  # (line, target id)
    bad: list = field(default_factory=list)  # (line, reason)
    header: dict | None = None
    _last_id: object = None

    def add_entry(self, line: int, entry_id, parent_id, shape: int) -> None:
        """Record one entry (the slow, general way; hot loops inline this)."""
        if parent_id is None or parent_id != self._last_id:
            self.far.append((len(self.shapes), parent_id))
        self.entry_lines.append(line)
        self.ids.append(entry_id)
        self.shapes.append(shape)
        self._last_id = entry_id

    @property
    def entry_count(self) -> int:
        return len(self.shapes)

    def parent_ids(self) -> list:
        """Parent id of each entry (rebuilt from ``far``; for the slow path)."""
        out = [None] + self.ids[:-1]
        for k, pid in self.far:
            out[k] = pid
        return out



class LineBlocks:
    """Iterate over runs of complete lines in bytes [start, stop) of a file.

    Yields (lines, offset of the first, offset after the last newline); the
    bytes after the last newline are left in ``fragment`` at the end. No
    line-length cap: a line longer than a block is carried over.
    """

    def __init__(self, fd: int, start: int, stop: int, block: int | None = None):
        self.fd, self.start, self.stop, self.block = fd, start, stop, block or BLOCK
        self.fragment = b""
        self.pos = start

    def __iter__(self):
        fd, stop = self.fd, self.stop
        carry = b""
        while self.pos < stop:
            data = os.pread(fd, min(self.block, stop - self.pos), self.pos)
            if not data:
                break
            self.pos += len(data)
            buf = carry + data if carry else data
            pieces = buf.split(b"\n")
            carry = pieces.pop()
            if pieces:
                yield pieces, self.pos - len(buf), self.pos - len(carry)
        self.fragment = carry


def scan(fmt, pieces: list[bytes], base_offset: int, base_line: int, seg: Segment | None = None) -> Segment:
    """Scan complete lines ``pieces`` (newlines stripped) that start at byte
    ``base_offset`` and line ``base_line`` (0-based) of the file."""
    seg = seg or Segment()
    if not pieces:
        return seg
    seg.line_starts.extend(
        accumulate(chain((base_offset,), map((1).__add__, map(len, pieces[:-1]))))
    )
    if base_offset == 0 and pieces[0].startswith(BOM):
        pieces[0] = pieces[0][len(BOM):]
    fmt.scan_lines(pieces, base_line, seg)
    return seg


def count_lines(fd: int, stop: int) -> int:
    """Newlines in bytes [0, stop)."""
    count = pos = 0
    while pos < stop:
        data = os.pread(fd, min(BLOCK, stop - pos), pos)
        if not data:
            break
        count += data.count(b"\n")
        pos += len(data)
    return count


def scan_file_range(fmt_name: str, path: str, start: int, end: int) -> Segment:
    """Scan bytes [start, end) of a file (complete lines); runs in a worker
    process. Line numbers are absolute (the lines before ``start`` are
    counted first). Returns id keys instead of ids: all the merge needs."""
    from .formats import get_format

    fmt = get_format(fmt_name)
    fd = os.open(path, os.O_RDONLY)
    try:
        base_line = count_lines(fd, start)
        seg = Segment()
        for pieces, base, _end in LineBlocks(fd, start, end):
            scan(fmt, pieces, base, base_line + len(seg.line_kinds), seg)
        if seg.ids:
            seg.keys = array("q", map(KEY_MASK.__and__, map(hash, seg.ids)))
            seg.key_check = hash("session-tui")
            seg.ids = []
        return seg
    finally:
        os.close(fd)
