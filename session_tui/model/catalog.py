"""What the session picker knows about each session file, without parsing it.

Every ``*.jsonl`` under the given folders is listed with its size and
modification time; its metadata (format, title, entries, problems) come from
its head and tail only — the first and last ~64 KiB — never a full parse, and
are cached on disk, keyed by path, size and ``mtime_ns``.
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import orjson

from .formats import DEFAULT, Format, sniff
from .formats.base import best_title
from .records import BOM, BadLine, parse_object, read_object_file
from .sanitize import UNDECODABLE
from .segment import LineKind, Segment

SESSION_SUFFIX = ".jsonl"
SAMPLE_BYTES = 64 << 10  # read from each end of a file
SAMPLE_MAX_BYTES = 1 << 20  # an end is read further back (or on) until it holds MIN_LINES lines
MIN_LINES = 4
LIVE_SECONDS = 5.0  # a file written this recently is live
CACHE_VERSION = 1
CACHE_ENV = "SESSION_TUI_CACHE_DIR"
CACHE_NAME = "catalog.json"
SEARCH_BLOCK = 1 << 20
TITLE_MAX = 200  # characters of a title kept
_MARKS = re.compile(r"\A(?:\[(?:sidechain|compact summary)\]\s*)+")  # what the entry view puts before a text
_MARKER = re.compile(r"\[[\w ]+\]")  # a line that only stands for a part, e.g. "[image]"
FUZZY_SPAN = 3  # a fuzzy match's letters lie within this many times the query's length


@dataclass(slots=True)
class SessionInfo:
    """One session file as the picker shows it. Until ``known``, only the
    path, size and modification time are."""

    path: str
    size: int
    mtime_ns: int
    known: bool = False
    format: str | None = None  # None: not a session (see ``error``)
    title: str = ""  # a title record, a sidecar title or the first user prompt's first line
    entries: int = 0
    exact: bool = True  # False: ``entries`` is estimated from the head and tail
    bad_lines: int = 0  # in the head and tail
    torn: bool = False  # the last line is incomplete
    dangling: bool = False  # the last records are tool calls without results
    error: str | None = None  # why the file is not readable as a session
    subagent: bool = False  # a Claude Code sub-agent transcript (<id>/subagents/agent-*.jsonl)

    def problems(self) -> list[str]:
        """Short labels of what is wrong, worst first."""
        out = []
        if self.error:
            out.append(self.error)
        if self.dangling:
            out.append("dangling")
        if self.torn:
            out.append("torn")
        if self.bad_lines:
            out.append(f"{self.bad_lines} bad line{'s' if self.bad_lines > 1 else ''}")
        return out

    def severity(self) -> int:
        """How much is wrong, for sorting: a dangling call or a torn line
        (a crash) outweighs damaged lines."""
        return 8 * bool(self.error) + 4 * self.dangling + 4 * self.torn + min(self.bad_lines, 3)

    def live(self, now: float | None = None) -> bool:
        """Written in the last LIVE_SECONDS."""
        return (time.time() if now is None else now) - self.mtime_ns / 1e9 < LIVE_SECONDS


FIELDS = list(SessionInfo.__dataclass_fields__)[1:]  # as cached: all but the path


def list_session_files(paths: Iterable[str]) -> list[tuple[str, os.stat_result]]:
    """(absolute path, stat) of every ``*.jsonl`` under ``paths`` (a file
    given is kept as it is), not following symlinked folders; by path."""
    found = []
    for given in map(os.path.abspath, paths):
        if not os.path.isdir(given):
            try:
                found.append((given, os.stat(given)))
            except OSError:
                pass
            continue
        folders = [given]
        while folders:
            try:
                with os.scandir(folders.pop()) as entries:
                    for entry in entries:
                        try:
                            if entry.name.endswith(SESSION_SUFFIX) and entry.is_file():
                                found.append((entry.path, entry.stat()))
                            elif entry.is_dir(follow_symlinks=False):
                                folders.append(entry.path)
                        except OSError:  # e.g. a symlink loop, or gone: only this entry is passed over
                            continue
            except OSError:
                continue
    found.sort(key=lambda item: item[0])
    return found


def default_cache_dir() -> str:
    override = os.environ.get(CACHE_ENV)
    if override:
        return override
    from platformdirs import user_cache_dir

    return user_cache_dir("session-tui")


class Catalog:
    """Session infos by path, backed by a cache file; safe to use from a
    worker thread and the UI at once."""

    def __init__(self, cache_dir: str | None = None) -> None:
        self.cache_path = os.path.join(cache_dir or default_cache_dir(), CACHE_NAME)
        self._lock = threading.Lock()
        self._cached: dict[str, list] = self._load()
        self._seen: set[str] = set()
        self._changed = False

    def _load(self) -> dict[str, list]:
        try:
            with open(self.cache_path, "rb") as f:
                data = orjson.loads(f.read())
        except (OSError, orjson.JSONDecodeError):
            return {}
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION or not isinstance(
                data.get("files"), dict):
            return {}
        return data["files"]

    def listing(self, paths: Iterable[str]) -> list[SessionInfo]:
        """Every session file under ``paths`` (absolute paths): from the
        cache when its size and mtime still match, else not yet ``known``."""
        found = list_session_files(paths)
        with self._lock:
            self._seen.update(path for path, _ in found)
        return [self._cached_info(path, st) or _unknown(path, st) for path, st in found]

    def remembered(self, paths: Iterable[str]) -> list[SessionInfo]:
        """What the cache holds for files under the folders ``paths``,
        unchecked (no stat, no walk): rows to show at once, before
        ``listing`` confirms them."""
        prefixes = tuple(os.path.join(os.path.abspath(p), "") for p in paths)
        out = []
        with self._lock:
            rows = [(path, row) for path, row in self._cached.items() if path.startswith(prefixes)]
        for path, row in rows:
            if isinstance(row, list) and len(row) == len(FIELDS):
                try:
                    out.append(SessionInfo(path, *row))
                except TypeError:
                    continue
        return out

    def _cached_info(self, path: str, st: os.stat_result) -> SessionInfo | None:
        """The cached info of absolute ``path`` if its size and mtime match."""
        row = self._cached.get(path)
        if not isinstance(row, list) or len(row) != len(FIELDS) or row[0] != st.st_size or row[1] != st.st_mtime_ns:
            return None
        try:
            return SessionInfo(path, *row)
        except TypeError:
            return None

    def read(self, path: str) -> SessionInfo | None:
        """The info of ``path`` now (cached, or read from its head and tail),
        or None when it is gone. Its path is made absolute."""
        path = os.path.abspath(path)
        try:
            st = os.stat(path)
        except OSError:
            with self._lock:
                self._changed |= self._cached.pop(path, None) is not None
            return None
        cached = self._cached_info(path, st)
        if cached is not None:
            return cached
        info = read_info(path)
        with self._lock:
            self._seen.add(path)
            self._cached[path] = [getattr(info, name) for name in FIELDS]
            self._changed = True
        return info

    def save(self, roots: Iterable[str] = ()) -> None:
        """Write the cache atomically (temp file + ``os.replace``). Entries
        of files under ``roots`` that were not seen since loading are
        dropped (the files are gone); others are kept, but for files whose
        names are not UTF-8 (read again each time)."""
        prefixes = tuple(os.path.join(os.path.abspath(r), "") for r in roots)
        with self._lock:
            stale = [p for p in self._cached if p not in self._seen and p.startswith(prefixes)]
            for path in stale:
                del self._cached[path]
            if not (self._changed or stale):
                return
            # JSON holds only UTF-8: names with undecodable bytes are read again next time
            files = {path: row for path, row in self._cached.items() if not UNDECODABLE.search(path)}
            data = orjson.dumps({"version": CACHE_VERSION, "files": files})
            self._changed = False
        folder = os.path.dirname(self.cache_path)
        try:
            os.makedirs(folder, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=".catalog-", dir=folder)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(temp, self.cache_path)
            except BaseException:
                os.unlink(temp)
                raise
        except OSError:
            pass  # a cache that cannot be written is only slower next time


def _unknown(path: str, st: os.stat_result) -> SessionInfo:
    return SessionInfo(path, st.st_size, st.st_mtime_ns, subagent=_is_subagent(path))


def _is_subagent(path: str) -> bool:
    return os.path.basename(os.path.dirname(path)) == "subagents" and os.path.basename(path).startswith("agent-")


# -- reading one file ---------------------------------------------------------------


@dataclass
class _Sample:
    """Complete lines from the head and the tail (the same list when the
    file was read whole), and what follows the last newline."""

    head: list[bytes]
    tail: list[bytes]
    whole: bool
    torn: bool
    line_bytes: int  # bytes of the sampled lines, newlines included


def read_info(path: str) -> SessionInfo:
    """Metadata of one file from its first and last ~64 KiB."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        return SessionInfo(path, 0, 0, known=True, error=f"unreadable: {exc.strerror or exc}")
    try:
        st = os.fstat(fd)
        info = SessionInfo(path, st.st_size, st.st_mtime_ns, known=True, subagent=_is_subagent(path))
        try:
            sample = _read_sample(fd, st.st_size)
        except OSError as exc:
            info.error = f"unreadable: {exc.strerror or exc}"
            return info
    finally:
        os.close(fd)
    if not st.st_size:
        info.format = DEFAULT.name
        return info
    info.torn = sample.torn
    fmt = _sniff(sample.head, path)
    if fmt is None:
        info.error = "not a session"
        return info
    info.format = fmt.name
    head = _scan(fmt, sample.head)
    tail = head if sample.whole else _scan(fmt, sample.tail)
    ids = set(head.ids) | set(tail.ids)
    info.bad_lines = len(head.bad) + (0 if sample.whole else len(tail.bad))
    if sample.whole:
        info.entries = len(ids) if head.ids else head.entry_count  # the first copy of an id wins
    else:
        sampled_entries = head.entry_count + tail.entry_count
        info.entries = round(st.st_size * sampled_entries / max(sample.line_bytes, 1))
        info.exact = False
    info.title = (_title_record(head.titles + tail.titles, ids) or _sidecar_title(fmt, path)
                  or _first_prompt(fmt, sample.head, head) or "")
    info.dangling = _ends_in_dangling_call(fmt, sample.tail, tail)
    return info


def _read_sample(fd: int, size: int) -> _Sample:
    if size <= 2 * SAMPLE_BYTES:
        return _split_whole(os.pread(fd, size, 0))
    head = _grow(fd, size, from_end=False)
    tail = _grow(fd, size, from_end=True)
    if len(head) + len(tail) >= size:
        return _split_whole(os.pread(fd, size, 0))
    head_lines = head.split(b"\n")[:-1]  # the last piece is cut by the window
    pieces = tail.split(b"\n")
    fragment = pieces.pop()
    tail_lines = pieces[1:]  # the first piece is cut by the window
    if not pieces:  # one last line longer than the window: complete if it closes an object
        torn = bool(fragment.strip()) and not fragment.rstrip().endswith(b"}")
    else:
        torn = _is_torn(fragment, tail_lines)
    sampled = head_lines + tail_lines
    return _Sample(head_lines, tail_lines, False, torn, sum(map(len, sampled)) + len(sampled))


def _grow(fd: int, size: int, from_end: bool) -> bytes:
    """The first (or last) SAMPLE_BYTES of the file, or more, up to
    SAMPLE_MAX_BYTES, until they hold MIN_LINES newlines."""
    want = SAMPLE_BYTES
    while True:
        want = min(want, size)
        data = os.pread(fd, want, size - want if from_end else 0)
        if data.count(b"\n") >= MIN_LINES or want >= min(size, SAMPLE_MAX_BYTES):
            return data
        want *= 4


def _split_whole(data: bytes) -> _Sample:
    lines = data.split(b"\n")
    fragment = lines.pop()
    torn = _is_torn(fragment, lines)
    return _Sample(lines, lines, True, torn, len(data))


def _is_torn(fragment: bytes, lines: list[bytes]) -> bool:
    """Whether the bytes after the last newline are a torn line; a complete
    record lacking only its newline joins ``lines``."""
    if not fragment.strip():
        return False
    try:
        parse_object(fragment.removeprefix(BOM))
    except BadLine:
        return True
    lines.append(fragment)
    return False


def _sniff(lines: list[bytes], path: str) -> Format | None:
    """The format of the records in the head window: all of them, as a
    session sniffs every record of its first block (a file may open with
    many records that tell nothing)."""
    objs = []
    for raw in lines:
        try:
            objs.append(parse_object(raw.removeprefix(BOM) if not objs else raw))
        except BadLine:
            continue
    return sniff(objs, path)


def _scan(fmt: Format, lines: list[bytes]) -> Segment:
    seg = Segment()
    if lines:
        lines = [lines[0].removeprefix(BOM), *lines[1:]]
        fmt.scan_lines(lines, 0, seg)
    return seg


def _title_record(titles: list, ids: set) -> str | None:
    """The title records' choice (as a session's, ``Format.title``), a record
    naming a leaf counting only when that leaf was seen in the sample."""
    best = best_title(titles, ids.__contains__)
    return _first_line(best) if best else None


def _sidecar_title(fmt: Format, path: str) -> str | None:
    sidecar = fmt.sidecar_path(path)
    meta = read_object_file(sidecar) if sidecar else None
    if meta is None:
        return None
    title = meta.get("title")
    if not isinstance(title, str) and isinstance(meta.get("metadata"), dict):
        title = meta["metadata"].get("title")
    return _first_line(title) if isinstance(title, str) else None


def _first_prompt(fmt: Format, lines: list[bytes], seg: Segment) -> str | None:
    """The first line of the first user message typed by a person (not
    injected context such as ``<environment_context>``, a record Claude Code
    marks ``isMeta``, or a compaction's summary), without the marks the entry
    view puts before its text (``[sidechain] ``)."""
    for line in seg.entry_lines:
        record = _record(lines[line])
        if record is None or record.get("isMeta") is True or record.get("isCompactSummary"):
            continue
        view = _view(fmt, lines[line], record)
        if view is None or view.role != "user":
            continue
        for text in _MARKS.sub("", view.text.lstrip(), count=1).splitlines():
            text = text.strip()
            if not text or _MARKER.fullmatch(text):
                continue
            if text.startswith("<"):
                break
            return text[:TITLE_MAX]
    return None


def _first_line(text: str) -> str | None:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:TITLE_MAX]
    return None


def _ends_in_dangling_call(fmt: Format, lines: list[bytes], seg: Segment) -> bool:
    """Whether the last tool calls in ``lines`` have results after them.
    Walks back from the end: results, then the calls they answer (one
    response may span several records); rows that are neither messages nor
    tool traffic (progress, events, reasoning) are passed over."""
    answered: set[str] = set()
    calls: set[str] = set()
    kinds = seg.line_kinds
    for line in range(len(kinds) - 1, -1, -1):
        if kinds[line] != LineKind.ENTRY:
            continue
        record = _record(lines[line])
        view = _view(fmt, lines[line], record)
        if view is None:
            continue
        made = {call.id for call in view.tool_calls}
        if made:
            calls |= made
        elif view.role in ("user", "assistant", "tool"):
            results = _results(fmt, record, view)
            if calls or not results:
                break
            answered |= results
    return bool(calls - answered)


def _record(raw: bytes) -> dict | None:
    try:
        return parse_object(raw)
    except BadLine:
        return None


def _view(fmt: Format, raw: bytes, record: dict | None = None):
    record = _record(raw) if record is None else record
    if record is None:
        return None
    try:
        return fmt.view(record)
    except Exception:  # a record of an odd shape: it tells nothing here
        return None


def _results(fmt: Format, record: dict, view) -> set[str]:
    """Every call id ``record`` answers (one message may answer several)."""
    found = {view.result_for} if view.result_for else set()
    for message in (record, record.get("message"), record.get("payload")):
        if isinstance(message, dict):
            found.update(fmt.tool_result_ids(message))
    return found


# -- finding files --------------------------------------------------------------------


def match_rank(query: str, title: str, path: str) -> int | None:
    """How well a typed ``query`` finds a file, best 0: every word in the
    title (0) or in the title or path (1), or the query's letters in order in
    the title within FUZZY_SPAN times their number of characters (2, fuzzy);
    None: no match. Case-insensitive."""
    words = query.lower().split()
    if not words:
        return 0
    title, path = title.lower(), path.lower()
    if all(w in title for w in words):
        return 0
    if all(w in title or w in path for w in words):
        return 1
    letters = "".join(words)
    return 2 if _fuzzy_span(letters, title, FUZZY_SPAN * len(letters)) is not None else None


def _fuzzy_span(letters: str, text: str, limit: int) -> int | None:
    """The length of the shortest stretch of ``text`` holding ``letters`` in
    order, if one is at most ``limit`` long; else None."""
    best = None
    start = text.find(letters[0])
    while start >= 0:
        end = start
        for char in letters[1:]:  # the earliest end from this start: take each letter as soon as it comes
            end = text.find(char, end + 1, start + limit)
            if end < 0:
                break
        else:
            span = end - start + 1
            if best is None or span < best:
                best = span
                limit = span  # only a shorter one matters now
        start = text.find(letters[0], start + 1)
    return best


def file_contains(path: str, text: str, should_stop: Callable[[], bool] | None = None) -> bool:
    """Whether the file holds ``text`` (case-insensitive for ASCII letters),
    as written or JSON-escaped. Reads blocks; ``should_stop`` is polled
    between them (then False)."""
    forms = {text.lower().encode(), orjson.dumps(text)[1:-1].lower()}
    overlap = max(map(len, forms)) - 1
    try:
        with open(path, "rb") as f:
            carry = b""
            while block := f.read(SEARCH_BLOCK):
                window = carry + block.lower()
                if any(form in window for form in forms):
                    return True
                if should_stop is not None and should_stop():
                    return False
                carry = window[-overlap:] if overlap else b""
    except OSError:
        return False
    return False
