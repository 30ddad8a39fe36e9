"""Scanning a run of complete lines into a Segment: the parse step of indexing.

A Segment holds what one region of the file contributes, in compact arrays,
with absolute byte offsets and 0-based line numbers. Scanning is a pure
function of the bytes, so a region can be scanned in another process
(see ``parallel``) and merged into the tree in file order afterwards.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate, islice
from typing import Any, BinaryIO, Protocol

from .records import BOM

BLOCK_LINES = 4096  # lines per scanned block
KEY_MASK = (1 << 60) - 1  # id keys below 2**60 are the smallest Python ints that hold them


class LineScanner(Protocol):
    """What ``scan`` needs of a format: its parse of a run of lines."""

    def scan_lines(self, pieces: list[bytes], first_line: int, seg: Segment) -> None: ...


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


class Shape:
    """One byte per entry: role (bits 0-2), tool flags, summary, aside and quiet bits."""

    ROLE_MASK = 0b111
    CALLS = 1 << 3  # the entry makes tool calls
    RESULT = 1 << 4  # the entry is a tool result
    SUMMARY = 1 << 5  # a summary / compaction node
    ASIDE = 1 << 6  # a record beside the conversation (Claude Code progress): its branch is no fork, its end no leaf
    QUIET = 1 << 7  # a record the model never sees: its row is hidden unless asked for

    NONE, SYSTEM, DEVELOPER, USER, ASSISTANT, TOOL, OTHER = range(7)
    #: role name -> shape byte (tool results carry the RESULT flag)
    OF_ROLE = {
        "system": SYSTEM,
        "developer": DEVELOPER,
        "user": USER,
        "assistant": ASSISTANT,
        "tool": TOOL | RESULT,
        "function": TOOL | RESULT,
    }


@dataclass
class ScanTally:
    """Tokens and the earliest and latest times, kept while indexing by
    formats that can (``Format.tallies_usage``): sums of the entries' usage,
    times as their ISO 8601 UTC text (``…Z``: text order is time order).
    ``exact`` turns false at an entry this cannot hold (another time form):
    then the totals are read from the records."""

    input_tokens: int = 0
    output_tokens: int = 0
    first: str | None = None
    last: str | None = None
    exact: bool = True
    #: the responses no price can be found for (no model, no recorded cost),
    #: summed: how many, and (uncached input, output, cache read, cache write)
    unpriced: int = 0
    unpriced_counts: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    #: the entries of the other responses (their records are read to price them), in file order
    priced: array[int] = field(default_factory=lambda: array("I"))

    def add(self, other: ScanTally, first_entry: int = 0) -> None:
        """Add ``other``, whose ``priced`` entries are numbered from ``first_entry``."""
        self.exact = self.exact and other.exact
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.unpriced += other.unpriced
        self.unpriced_counts = [a + b for a, b in zip(self.unpriced_counts, other.unpriced_counts, strict=True)]
        if first_entry:
            self.priced.extend(entry + first_entry for entry in other.priced)
        else:
            self.priced.extend(other.priced)
        if other.first is not None and (self.first is None or other.first < self.first):
            self.first = other.first
        if other.last is not None and (self.last is None or other.last > self.last):
            self.last = other.last


@dataclass
class Segment:
    """What a region of complete lines adds, in columns that pickle cheaply.

    Entries: ``entry_lines``, ``ids`` and ``shapes`` have one item each. The
    parent of an entry is, by default, the entry scanned just before it (a
    linear run: the common case); every other entry is listed in ``far`` as
    (position in this segment, parent id or None).
    """

    line_starts: array[int] = field(default_factory=lambda: array("Q"))
    line_kinds: array[int] = field(default_factory=lambda: array("B"))
    entry_lines: array[int] = field(default_factory=lambda: array("I"))
    ids: list[str] = field(default_factory=list)  # str per entry; empty in linear formats
    shapes: bytearray = field(default_factory=bytearray)
    far: list[tuple[int, str | None]] = field(default_factory=list)  # (position, parent id | None)
    keys: array[int] | None = None  # id keys, when computed by the scanning process
    key_check: int = 0  # hash("session-tui") in the scanning process
    keys_unique: bool = False  # no two of ``keys`` are the same (told where they were hashed)
    pointers: list[tuple[int, object]] = field(default_factory=list)  # (line, target id)
    bad: list[tuple[int, str]] = field(default_factory=list)  # (line, reason)
    header: dict[str, Any] | None = None
    #: (line, rank, title, entry id it names or None)
    titles: list[tuple[int, int, str, str | None]] = field(default_factory=list)
    #: what a ``stateful`` format carries from one line to the next (the session's, across segments)
    state: dict[str, Any] = field(default_factory=dict)
    tally: ScanTally = field(default_factory=ScanTally)  # filled by formats that tally while indexing
    last_id: str | None = None  # the last entry's id: a parent link to it is the common case, kept short
    #: the session's last entry written again (a later copy wins, Gemini CLI's): this
    #: segment's first entry takes its place instead of following it
    rewrites_last: bool = False
    superseded: list[int] = field(default_factory=list)  # lines whose record a later copy replaced (no entry now)

    def add_entry(self, line: int, entry_id: str, parent_id: str | None, shape: int) -> None:
        """Record one entry (the slow, general way; hot loops inline this)."""
        if parent_id is None or parent_id != self.last_id:
            self.far.append((len(self.shapes), parent_id))
        self.entry_lines.append(line)
        self.ids.append(entry_id)
        self.shapes.append(shape)
        self.last_id = entry_id

    @property
    def entry_count(self) -> int:
        return len(self.shapes)

    def shift_lines(self, delta: int) -> None:
        """Renumber the lines of a segment scanned from line 0 by ``delta``."""
        if delta:
            self.entry_lines = array("I", map(delta.__add__, self.entry_lines))
            self.pointers = [(line + delta, target) for line, target in self.pointers]
            self.bad = [(line + delta, reason) for line, reason in self.bad]
            self.superseded = [line + delta for line in self.superseded]
            self.titles = [(line + delta, rank, title, names) for line, rank, title, names in self.titles]

    def parent_ids(self) -> list[str | None]:
        """Parent id of each entry (rebuilt from ``far``; for the slow path)."""
        out: list[str | None] = [None, *self.ids[:-1]]
        for k, pid in self.far:
            out[k] = pid
        return out


class LineBlocks:
    """Iterate over runs of complete lines in bytes [start, stop) of a file.

    Yields (lines, starts, end): up to ``BLOCK_LINES`` lines, each with its
    newline, their start offsets, and the offset after the last. What
    follows the last newline before ``stop`` is left in ``fragment``; ``pos``
    is where reading ended. No line-length cap. A buffered file object reads
    lines faster than splitting blocks by hand (fewer copies).
    """

    def __init__(self, open_reader: Callable[[], BinaryIO], start: int, stop: int):
        self.open_reader, self.start, self.stop = open_reader, start, stop
        self.fragment = b""
        self.pos = start

    def __iter__(self) -> Iterator[tuple[list[bytes], array[int], int]]:
        stop = self.stop
        with self.open_reader() as f:
            f.seek(self.start)
            while self.pos < stop:
                lines = list(islice(f, BLOCK_LINES))
                if not lines:
                    break
                ends = array("Q", accumulate(map(len, lines), initial=self.pos))
                if ends[-1] > stop:  # the file grew since it was measured: stop at ``stop``
                    count = bisect_right(ends, stop) - 1
                    if ends[count] < stop:
                        self.fragment = lines[count][: stop - ends[count]]
                    del lines[count:]
                    del ends[count + 1 :]
                elif not lines[-1].endswith(b"\n"):  # the end of the file, no newline
                    self.fragment = lines.pop()
                    del ends[-1]
                if lines:
                    yield lines, ends[:-1], ends[-1]
                self.pos = ends[-1] + len(self.fragment)
                if self.fragment:
                    break


def scan(
    fmt: LineScanner,
    lines: list[bytes],
    starts: array[int],
    base_line: int,
    seg: Segment | None = None,
    state: dict[str, Any] | None = None,
) -> Segment:
    """Scan complete ``lines`` (newlines kept) starting at byte offsets
    ``starts``, the first being line ``base_line`` (0-based) of the file;
    ``state``: the session's scan state, for formats that carry one."""
    seg = seg or Segment()
    if state is not None:
        seg.state = state
    if not lines:
        return seg
    seg.line_starts.extend(starts)
    if starts[0] == 0 and lines[0].startswith(BOM):
        lines[0] = lines[0][len(BOM) :]
    fmt.scan_lines(lines, base_line, seg)
    return seg
