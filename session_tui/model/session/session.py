"""A session file: its line index, format, entry tree and problems.

``Session.refresh()`` reads only the bytes appended since the last call;
when the file shrank, was replaced or its first line changed, it reloads
from scratch. Full records are read back by offset (``Source.read``) when they
are asked for; only the skeleton of each entry is kept in memory.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..entries.tree import NeedsIds, SessionTree
from ..errors import Cancelled as Cancelled
from ..errors import SessionError as SessionError
from ..formats import DEFAULT, READERS, detect, get_format
from ..formats.base import Format
from ..formats.sources import open_source
from ..memo import Memo
from ..reading.line_index import LineIndex
from ..reading.recent_lines import RecentLines
from ..reading.records import BOM, BadLine, first_objects, is_blank, line_start_at, parse_object, read_object_file
from ..reading.remote import RemoteFile
from ..reading.segment import LineBlocks, LineKind, ScanTally, Segment, Shape, scan
from ..reading.source import Source, SourceStat, is_url

SNIFF_RECORDS = 5
READ_AHEAD_MAX = 8 << 20  # appended bytes a tail's worker reads for the UI's refresh
SNIFF_MAX_BYTES = 64 << 20


@dataclass
class Change:
    """What one ``refresh()`` did."""

    new_entries: int = 0
    reloaded: str | None = None  # why the file was read again from the start
    grew: bool = False
    bytes_read: int = 0  # bytes of the file this refresh scanned
    rewritten: set[int] = field(default_factory=set)  # entries written again in place (their last copy wins)


class Session:
    def __init__(
        self, path: str | os.PathLike[str], format: str | None = None, *, parallel_ok: bool = True, start: int = 0
    ) -> None:
        """``start``: read from the first line that begins at or after this
        byte offset (a quick look at the end of a big file; line numbers
        then count from there, see ``partial``)."""
        self.path = os.fspath(path)
        self.start = start
        self._forced = get_format(format) if format else None
        self.parallel_ok = parallel_ok
        self.bytes_scanned = 0  # over the life of this object, reloads included
        #: calls of refresh(): what is worked out from the session (the context) is kept for one
        self.refreshes = 0
        self._source: Source | None = None  # opened at the first refresh
        self.checking = threading.Lock()  # held while the problems and totals are computed (a worker or the UI)
        #: the model the context is sent to on resume, ``provider/model`` (None: the session's last;
        #: pi sends thinking from another provider's model as text)
        self.resume_model: str | None = None
        self._reset()

    def _reset(self) -> None:
        self._format: Format | None = self._forced
        self._guessed = False  # format assumed for a file with no complete line yet
        self.lines = LineIndex()
        #: a remote file's lines read last (each read there is a round trip)
        self._recent: RecentLines | None = RecentLines() if self.remote else None
        self.tree = SessionTree(linear=bool(self._forced and self._forced.linear))
        self.pointers: list[tuple[int, object]] = []
        self.bad: list[tuple[int, str]] = []
        self.header: dict[str, Any] | None = None
        self.titles: list[tuple[int, int, str, str | None]] = []  # records naming the session
        self.memo = Memo()  # what a format keeps between calls; cleared with the tree
        self.rewritten: set[int] = set()  # entries written again in place since the last refresh
        self.scan_state: dict[str, Any] = {}  # what a stateful format carries between lines
        self.scan_tally = ScanTally(exact=bool(self._forced and self._forced.tallies_usage))
        self.grew_at: float | None = None  # when this session last saw the file grow (None: not since it read it)
        self._leaf_cache: int | None = None

    # -- lifecycle ----------------------------------------------------------------
    def close(self) -> None:
        if self._source is not None:
            self._source.close()
            self._source = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:
            pass

    def _open(self) -> tuple[Source, SourceStat]:
        if self._source is None:
            self._source = open_source(self.path)
        return self._source, self._source.stat()

    @property
    def remote(self) -> bool:
        """Whether the file is on another machine (a URL): read-only here."""
        return is_url(self.path)

    @property
    def rows(self) -> bool:
        """Whether its records are rows of a database, updated in place as
        its agent works (an opencode session): a reload is its normal way."""
        return self._source.rows if self._source is not None else False

    @property
    def files(self) -> tuple[str, ...]:
        """The files read, in order: more than one for a session its client
        wrote over several files (a Codex thread with rewinds)."""
        return self._source.files if self._source is not None else (self.path,)

    def stat(self) -> SourceStat:
        """The file's size and identity now (raises SessionError)."""
        return self._open()[1]

    def read_ahead(self, st: SourceStat) -> bool:
        """For a remote file, in a worker thread: read what the next refresh
        will read (the bytes it compares, the appended ones, up to
        READ_AHEAD_MAX), so that the refresh, on the UI thread, waits on no
        network. True when the file looks replaced: then it is read again
        from the start, better in a worker too."""
        source = self._held()
        if not isinstance(source, RemoteFile):
            return False
        lines = self.lines
        ranges = [*lines.compared(st), (lines.end, min(st.size - lines.end, READ_AHEAD_MAX))]
        source.read_ahead(st, ranges)
        return st.size < lines.end + len(lines.torn) or lines.changed(source, st) is not None

    def detect(self) -> str:
        """Check the file can be read as a session, reading only its first
        lines; return the format name. Raises SessionError."""
        source, st = self._open()
        if self._format is None and st.size:
            self._sniff(source, st.size)
        return (self._format or DEFAULT).name

    # -- reading ------------------------------------------------------------------
    def refresh(
        self, should_stop: Callable[[], bool] | None = None, progress: Callable[[int, int], None] | None = None
    ) -> Change:
        """Index what was appended since the last call (everything, the first
        time). ``should_stop`` is polled between blocks (raise Cancelled);
        ``progress(done, total)`` is called after each block."""
        change = Change()
        before = self.tree.count
        scanned = self.bytes_scanned
        source, st = self._open()
        reason = self.lines.changed(source, st)
        if reason:
            self._reset()
            change.reloaded = reason
            before = 0
        lines = self.lines
        size = st.size
        if lines.open_end and size > lines.end:
            if source.read(lines.end, 1) == b"\n":
                lines.end += 1
                lines.open_end = False
            else:  # the "complete" last line goes on: read it all again
                self._reset()
                change.reloaded = "the last line was extended"
                before = 0
                lines = self.lines
        if self.start and not len(lines) and not lines.end:
            lines.end = line_start_at(source.read, min(self.start, size))
        if change.reloaded or size != lines.end + len(lines.torn):
            change.grew = size > lines.end + len(lines.torn)
            if change.grew and scanned and not change.reloaded:  # (not the first read: then nothing was seen growing)
                self.grew_at = time.time()
            if self._format is None or (self._guessed and not len(lines)):
                self._sniff(source, size)
            self._read(source, lines.end, size, should_stop, progress)
        elif self._format is None:  # an empty file: an empty native session, for now
            self._set_format(DEFAULT, guessed=True)
        lines.remember(source, st)
        change.new_entries = self.tree.count - before
        change.rewritten, self.rewritten = {e for e in self.rewritten if e < before}, set()
        change.bytes_read = self.bytes_scanned - scanned
        self.refreshes += 1
        self._leaf_cache = None
        return change

    def _sniff(self, source: Source, size: int) -> None:
        objs, whole = first_objects(source.read, size, SNIFF_RECORDS, SNIFF_MAX_BYTES)
        only = None
        if not objs and whole and b"\n" not in (head := source.read(0, min(size, 1 << 20))):
            only = head  # one torn line: a session's first, being written, decided when it completes
        told = getattr(source, "format", None)  # (the archive's: detected where the file's sidecars are)
        fmt = get_format(told) if told in READERS else detect(objs, self.path, only)  # (the picker's detection)
        if isinstance(fmt, str):
            raise SessionError(f"{self.path}: {fmt}")
        self._set_format(fmt, guessed=not objs)

    @property
    def format(self) -> Format:
        """The file's format: the native one until a first complete line
        decides (an empty or unopened file is an empty native session)."""
        return self._format or DEFAULT

    @property
    def partial(self) -> bool:
        """Only the end of the file was read: line numbers are relative."""
        return bool(len(self.lines) and self.lines.line_starts[0] > 0)

    def _set_format(self, fmt: Format, guessed: bool = False) -> None:
        self._format = fmt
        self._guessed = guessed
        self.tree = SessionTree(linear=fmt.linear)
        self.memo = Memo()
        self.scan_state = {}
        self.scan_tally = ScanTally(exact=fmt.tallies_usage)

    def _read(
        self,
        source: Source,
        start: int,
        stop: int,
        should_stop: Callable[[], bool] | None,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        far = None
        if self.parallel_ok and not self.format.stateful and start == 0:
            from . import parallel  # (its subprocess and pickle load with the first full index, after the first frame)

            far = parallel.start_far_scan(source, self.format.name, self.path, stop)
        try:
            if far:
                mid, last_nl, scanner = far
                self._read_blocks(source, start, mid, should_stop, progress, stop)
                seg = scanner.result()
                far = None
                start = mid
                if seg is not None:
                    seg.shift_lines(len(self.lines))
                    try:
                        self._merge(seg)
                    except NeedsIds:  # duplicates or links across the halves: rescan here
                        seg = None
                if seg is not None:
                    self.lines.end = start = last_nl
                    self.bytes_scanned += last_nl - mid
            self._read_blocks(source, start, stop, should_stop, progress, stop)
        finally:
            if far:
                far[2].cancel()

    def _read_blocks(
        self,
        source: Source,
        start: int,
        stop: int,
        should_stop: Callable[[], bool] | None,
        progress: Callable[[int, int], None] | None,
        total: int,
    ) -> None:
        lines = self.lines
        blocks = LineBlocks(source.reader, start, stop)
        recent = self._recent
        for block, starts, end in blocks:
            first = len(lines)
            self._merge(scan(self.format, block, starts, first, state=self.scan_state))
            if recent is not None:  # the rows near the end are drawn next: no round trip for them
                for line, raw in enumerate(block, first):
                    recent.put(line, raw[:-1] if raw.endswith(b"\n") else raw)
            lines.end = end
            if progress is not None:
                progress(end, total)
            if should_stop is not None and should_stop():
                raise Cancelled()
        self.bytes_scanned += blocks.pos - start
        lines.torn = b""
        if blocks.fragment and blocks.pos >= stop:
            self._tail(blocks.fragment)

    def _tail(self, fragment: bytes) -> None:
        """The bytes after the last newline: a record lacking only its
        newline is committed; anything else is a torn tail, held back."""
        lines = self.lines
        if is_blank(fragment):
            return
        raw = fragment[len(BOM) :] if lines.end == 0 and fragment.startswith(BOM) else fragment
        try:
            parse_object(raw)
        except BadLine:
            lines.torn = fragment
            return
        base = lines.end
        self._merge(scan(self.format, [fragment], array("Q", [base]), len(lines), state=self.scan_state))
        lines.end = base + len(fragment)
        lines.open_end = True

    def _merge(self, seg: Segment) -> None:
        """Add a scanned segment. The tree may refuse a segment from the scan
        worker (NeedsIds): then the lines are taken back out."""
        lines = self.lines
        before, first_entry = len(lines), self.tree.count
        if seg.rewrites_last and first_entry:  # the last entry written again: it reads its new copy
            self.tree.rewrite_last(seg.entry_lines[0], seg.shapes[0])
            self.rewritten.add(first_entry - 1)
            self.memo = Memo()  # (what was kept of the entries was built on the old copy)
            seg.entry_lines, seg.shapes = seg.entry_lines[1:], seg.shapes[1:]
        lines.line_starts.extend(seg.line_starts)
        lines.line_kinds.extend(seg.line_kinds)
        try:
            rejected = self.tree.extend(seg, self._read_id)
        except NeedsIds:
            del lines.line_starts[before:]
            del lines.line_kinds[before:]
            raise
        if seg.header is not None and self.header is None:
            self.header = seg.header
        if seg.pointers:
            self.pointers.extend(seg.pointers)
        if seg.titles:
            self.titles.extend(seg.titles)
        if seg.bad:
            self.bad.extend(seg.bad)
        for line in seg.superseded:
            lines.line_kinds[line] = LineKind.META
        self.scan_tally.add(seg.tally, first_entry)  # (renumbered as the tree numbers them: no duplicate dropped)
        for line, reason in rejected:
            if reason == "duplicate id":
                lines.line_kinds[line] = LineKind.DUPLICATE
            else:
                lines.line_kinds[line] = LineKind.BAD
                self.bad.append((line, reason))

    # -- records ------------------------------------------------------------------
    def _held(self) -> Source:
        """The source the session holds; a closed (or never opened) session
        reads as a closed descriptor does: OSError (EBADF)."""
        if self._source is None:
            raise OSError(errno.EBADF, f"{self.path}: session file is not open")
        return self._source

    def pread(self, length: int, offset: int) -> bytes:
        """``length`` bytes of the file at ``offset`` (from the file it
        indexed, even if renamed since)."""
        return self._held().read(offset, length)

    def raw_line(self, line: int) -> bytes:
        """The bytes of 0-based committed ``line`` (no newline)."""
        recent = self._recent
        data = recent.get(line) if recent is not None else None
        if data is None:
            offset, length = self.lines.span(line)
            data = self._held().read(offset, length)
            if recent is not None:
                recent.put(line, data)
        if line == 0 and data.startswith(BOM):
            data = data[len(BOM) :]
        return data.removesuffix(b"\r")

    def record(self, entry: int) -> dict[str, Any]:
        """The full record of entry ``entry``, read back from disk."""
        return parse_object(self.raw_line(self.tree.entry_line[entry]))

    def _read_id(self, entry: int) -> str | None:
        return self.format.entry_id(self.record(entry))

    def find(self, entry_id: str) -> int | None:
        """Entry index of ``entry_id``, verified against the record on disk."""
        if self.format.linear:
            return None
        found = self.tree.find(entry_id)
        if found is not None and self._read_id(found) != entry_id:
            return None
        return found

    def line_of(self, entry: int) -> int:
        """1-based physical line of ``entry``."""
        return self.tree.entry_line[entry] + 1

    def sidecar(self) -> tuple[str, dict[str, Any]] | None:
        """(path, object) of the format's metadata sidecar when it exists and
        holds a JSON object; it is shown, never required, never changed."""
        path = self.format.sidecar_path(self.path)
        if not path or self.remote:  # (not looked for beside a remote file)
            return None
        obj = read_object_file(path)
        return (path, obj) if obj is not None else None

    # -- views --------------------------------------------------------------------
    @property
    def entries(self) -> int:
        """Tree-node records: session-tui's own leaf pointers (pi keeps each
        as an entry) are not, as no pointer line is (``check``'s ``entries``)."""
        return self.tree.count - self.format.leaf_pointers(self)

    def active_leaf(self) -> int:
        if self._leaf_cache is None:
            self._leaf_cache = self.format.active_leaf(self)
        return self._leaf_cache

    def shown_leaf(self) -> int:
        """The active leaf as every screen names it: past session-tui's own
        leaf pointer (pi's is an entry, the active leaf by pi's rule) to the
        entry it points at."""
        leaf, tree = self.active_leaf(), self.tree
        while leaf >= 0 and tree.parent[leaf] >= 0 and tree.shape[leaf] == Shape.OTHER | Shape.QUIET:
            if not self.format.is_leaf_pointer(self.record(leaf)):
                break
            leaf = tree.parent[leaf]
        return leaf

    def title(self) -> str | None:
        """The session's name from its own records (a title record, a
        session-info name), if it has one."""
        return self.format.title(self)

    def origin(self) -> str | None:
        """Where this session was forked from, as its files record it."""
        return self.format.origin(self)

    def active_path(self) -> Sequence[int]:
        """Entry indexes root → the active leaf (a compact array; empty without one)."""
        leaf = self.active_leaf()
        return self.tree.path_to(leaf) if leaf >= 0 else []


def open_session(
    path: str | os.PathLike[str], format: str | None = None, *, parallel_ok: bool = True, start: int = 0
) -> Session:
    """Open and fully index a session file; raise SessionError with a
    one-line reason if it cannot be read as one."""
    session = Session(path, format, parallel_ok=parallel_ok, start=start)
    session.refresh()
    return session
