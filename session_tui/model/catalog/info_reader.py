"""A session file's metadata (format, title, entries, problems) from its
head and tail only — the first and last ~64 KiB — never a full parse.

Imported when a file is read, not with the catalog: a picker started with
a warm cache shows its first rows without the format readers loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..entries.view import EntryView, parse_time, typed_prompt
from ..errors import SessionError
from ..formats import DEFAULT, detect
from ..formats.base import Format, best_title
from ..formats.sources import open_source
from ..reading.records import BOM, BadLine, parse_object, read_object_file
from ..reading.segment import LineKind, Segment, Shape
from ..reading.source import Source
from ..sanitize import Mask, masked_cut
from .session_info import SessionInfo, is_subagent

SAMPLE_BYTES = 64 << 10  # read from each end of a file
SAMPLE_MAX_BYTES = 1 << 20  # an end is read further back (or on) until it holds MIN_LINES lines
MIN_LINES = 4
TITLE_MAX = 200  # characters of a title kept


@dataclass
class _Sample:
    """Complete lines from the head and the tail (the same list when the
    file was read whole), and what follows the last newline."""

    head: list[bytes]
    tail: list[bytes]
    whole: bool
    torn: bool
    line_bytes: int  # bytes of the sampled lines, newlines included
    fragment: bytes = b""  # (read whole) what follows the last newline


def read_info(path: str, mask: Mask | None = None) -> SessionInfo:
    """Metadata of one file from its first and last ~64 KiB; ``mask``
    (``--redact``): its title's secrets masked before the title is cut."""
    try:
        source = open_source(path)
        st = source.stat()
    except SessionError as exc:
        return SessionInfo(path, 0, 0, known=True, error=f"unreadable: {str(exc).removeprefix(path + ': ')}")
    try:
        info = SessionInfo(path, st.size, st.mtime_ns, known=True, subagent=is_subagent(path))
        try:
            sample = _read_sample(source, st.size)
        except OSError as exc:
            info.error = f"unreadable: {exc.strerror or exc}"
            return info
    finally:
        source.close()
    if not st.size:
        info.format = DEFAULT.name
        return info
    fmt = _sniff(sample, path)
    if isinstance(fmt, str):
        info.error = fmt
        return info
    info.torn = sample.torn
    info.format = fmt.name
    head = _scan(fmt, sample.head)
    tail = head if sample.whole else _scan(fmt, sample.tail)
    ids = set(head.ids) | set(tail.ids)
    info.bad_lines = len(head.bad) + (0 if sample.whole else len(tail.bad))
    if sample.whole:
        info.entries = len(ids) if head.ids else head.entry_count  # the first copy of an id wins
    else:
        sampled_entries = head.entry_count + tail.entry_count
        info.entries = round(st.size * sampled_entries / max(sample.line_bytes, 1))
        info.exact = False
    info.title = (
        _title_record(head.titles + tail.titles, ids, mask)
        or _sidecar_title(fmt, path, mask)
        or _first_prompt(fmt, sample.head, head, mask)
        or ""
    )
    info.dangling = _ends_in_dangling_call(fmt, sample.tail, tail)
    info.answered = _ends_in_answer(fmt, sample.tail, tail)
    info.damage = _damage(fmt, sample, head, tail) + (_refused(path, fmt) if sample.whole else [])
    info.fork = _forked(fmt, path, sample.head, head)
    info.last_time = _last_time(fmt, sample.tail, tail)
    return info


def _refused(path: str, fmt: Format) -> list[str]:
    """``refused on resume`` when the format's client would send a request
    its API refuses (Gemini CLI 0.61's doubled function responses): told
    only by the client's own fold of the whole file, made here for a file
    read whole anyway, and only for a format whose client has such a bug."""
    refusals = getattr(fmt, "resume_refusals", None)
    if refusals is None:
        return []
    from ..session.problems import ProblemKind
    from ..session.session import open_session

    try:
        with open_session(path, fmt.name) as session:
            return [ProblemKind.REFUSED_ON_RESUME.words] if refusals(session) else []
    except SessionError:
        return []


def _damage(fmt: Format, sample: _Sample, head: Segment, tail: Segment) -> list[str]:
    """The structural problems the sample shows for sure: an id used twice,
    a parent that no line before its child holds (in the head, every line
    before is read), a result answering no call before it (in a file read
    whole). What lies between head and tail is not looked at."""
    out = []
    ids = head.ids + ([] if sample.whole else tail.ids)
    if not fmt.duplicates_expected and len(set(ids)) < len(ids):
        out.append("duplicate id")
    seen: set[str] = set()
    far = dict(head.far)
    for k, entry_id in enumerate(head.ids):
        parent = far[k] if k in far else head.ids[k - 1]
        if parent is not None and parent not in seen:
            record = _record(sample.head[head.entry_lines[k]])
            if record is not None and not fmt.expected_root(record):
                out.append("missing parent")
                break
        seen.add(entry_id)
    if sample.whole and _orphan_result(fmt, sample.head, head):
        out.append("result without call")
    return out


_TOOL_MARKS = (b"tool_", b"toolCall", b"toolResult", b"call_id", b"function_call", b"shell_call")


def _orphan_result(fmt: Format, lines: list[bytes], seg: Segment) -> bool:
    """Whether a record answers a call no record before it made (the
    format's own call and result ids; no entry view is built)."""
    calls: set[str] = set()
    for line in seg.entry_lines:
        raw = lines[line]
        if not any(mark in raw for mark in _TOOL_MARKS):  # (only the records that call or answer a tool are parsed)
            continue
        record = _record(raw)
        if record is None:
            continue
        for message in (record, record.get("message"), record.get("payload")):
            if isinstance(message, dict):
                calls.update(fmt.tool_call_ids(message))
                if any(result not in calls for result in fmt.tool_result_ids(message)):
                    return True
    return False


def _forked(fmt: Format, path: str, lines: list[bytes], seg: Segment) -> bool:
    """Whether the session says it was forked from another: a header's
    ``parentSession`` (tree, pi) or ``forked_from_id`` (Codex), a first
    record's ``forkedFrom`` (Claude Code), a sidecar's ``parentId``."""
    header = seg.header or {}
    payload = header.get("payload")
    if header.get("parentSession") or (isinstance(payload, dict) and payload.get("forked_from_id")):
        return True
    first = _record(lines[seg.entry_lines[0]]) if seg.entry_lines else None
    if first is not None and isinstance(first.get("forkedFrom"), dict):
        return True
    sidecar = fmt.sidecar_path(path)
    meta = read_object_file(sidecar) if sidecar else None
    return bool(meta and meta.get("parentId") not in (None, ""))


def _last_time(fmt: Format, lines: list[bytes], seg: Segment) -> float:
    """The time of the last entry in ``lines`` that records one (a tail
    without its file's header, where a format finds no entry in it, by its
    lines: the agent's last write is told by it)."""
    for line in reversed(seg.entry_lines) if seg.entry_lines else range(len(lines) - 1, -1, -1):
        view = _view(fmt, lines[line])
        found = parse_time(view.time) if view is not None else None
        if found is not None:
            return found
    return 0.0


def _read_sample(source: Source, size: int) -> _Sample:
    if size <= 2 * SAMPLE_BYTES:
        return _split_whole(source.read(0, size))
    head = _grow(source, size, from_end=False)
    tail = _grow(source, size, from_end=True)
    if len(head) + len(tail) >= size:
        return _split_whole(source.read(0, size))
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


def _grow(source: Source, size: int, from_end: bool) -> bytes:
    """The first (or last) SAMPLE_BYTES of the file, or more, up to
    SAMPLE_MAX_BYTES, until they hold MIN_LINES newlines."""
    want = SAMPLE_BYTES
    while True:
        want = min(want, size)
        data = source.read(size - want if from_end else 0, want)
        if data.count(b"\n") >= MIN_LINES or want >= min(size, SAMPLE_MAX_BYTES):
            return data
        want *= 4


def _split_whole(data: bytes) -> _Sample:
    lines = data.split(b"\n")
    fragment = lines.pop()
    torn = _is_torn(fragment, lines)
    return _Sample(lines, lines, True, torn, len(data), fragment)


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


def _sniff(sample: _Sample, path: str) -> Format | str:
    """The format of the records in the head window (all of them, as a
    session sniffs every record of its first block: a file may open with
    many records that tell nothing), or why the file is no session: the
    session's own detection (``detect``), so both say the same."""
    objs: list[dict[str, Any]] = []
    for raw in sample.head:
        try:
            objs.append(parse_object(raw.removeprefix(BOM) if not objs else raw))
        except BadLine:
            continue
    return detect(objs, path, sample.fragment if sample.whole and not sample.head else None)


def _scan(fmt: Format, lines: list[bytes]) -> Segment:
    seg = Segment()
    if lines:
        lines = [lines[0].removeprefix(BOM), *lines[1:]]
        fmt.scan_lines(lines, 0, seg)
    return seg


def _title_record(titles: list[tuple[int, int, str, str | None]], ids: set[str], mask: Mask | None) -> str | None:
    """The title records' choice (as a session's, ``Format.title``), a record
    naming a leaf counting only when that leaf was seen in the sample."""
    best = best_title(titles, ids.__contains__)
    return _first_line(best, mask) if best else None


def _sidecar_title(fmt: Format, path: str, mask: Mask | None) -> str | None:
    sidecar = fmt.sidecar_path(path)
    meta = read_object_file(sidecar) if sidecar else None
    if meta is None:
        return None
    title = meta.get("title")
    if not isinstance(title, str) and isinstance(meta.get("metadata"), dict):
        title = meta["metadata"].get("title")
    return _first_line(title, mask) if isinstance(title, str) else None


def _first_prompt(fmt: Format, lines: list[bytes], seg: Segment, mask: Mask | None) -> str | None:
    """The first line of the first user message typed by a person (``typed_prompt``)."""
    for line in seg.entry_lines:
        record = _record(lines[line])
        view = _view(fmt, lines[line], record) if record is not None else None
        typed = typed_prompt(record, view) if record is not None and view is not None else None
        if typed:
            return masked_cut(typed, TITLE_MAX, mask)
    return None


def _first_line(text: str, mask: Mask | None) -> str | None:
    for line in text.splitlines():
        if line.strip():
            return masked_cut(line.strip(), TITLE_MAX, mask)
    return None


def _ends_in_dangling_call(fmt: Format, lines: list[bytes], seg: Segment) -> bool:
    """Whether the last tool calls in ``lines`` have results after them.
    Walks back from the end: results, then the calls they answer (one
    response may span several records); rows that are neither messages nor
    tool traffic (progress, events, reasoning) are passed over, and so is
    text the model wrote after its calls with no result yet (the live
    state's ``awaited_calls``: it has not gone on from them). A tail where
    the format finds no entry (a pi version-1 file's, without its header)
    is read by its lines."""
    answered: set[str] = set()
    calls: set[str] = set()
    kinds = seg.line_kinds
    entries = [line for line in range(len(kinds)) if kinds[line] == LineKind.ENTRY] or range(len(lines))
    for line in reversed(entries):
        record = _record(lines[line])
        if record is None:
            continue
        view = _view(fmt, lines[line], record)
        if view is None:
            continue
        made = {call.id for call in view.tool_calls}
        if made:
            calls |= made
        elif view.role in ("user", "assistant", "tool"):
            results = _results(fmt, record, view)
            if not calls and not answered and not results and view.role == "assistant":
                continue  # (its text after calls not answered yet: they may still be awaited)
            if calls or not results:
                break
            answered |= results
    return bool(calls - answered)


def _ends_in_answer(fmt: Format, lines: list[bytes], seg: Segment) -> bool:
    """Whether the last entry the model sees (records it never sees and
    records beside the conversation passed over, as the live state's
    active leaf does) is an answer without calls: the turn is done. A tail
    where the format finds no entry is read by its lines' messages."""
    if seg.shapes:
        for k in range(len(seg.shapes) - 1, -1, -1):
            shape = seg.shapes[k]
            if not shape & (Shape.QUIET | Shape.ASIDE):
                if shape & (Shape.ROLE_MASK | Shape.CALLS) == Shape.ASSISTANT:
                    return True
                record = _record(lines[seg.entry_lines[k]]) if seg.entry_lines[k] < len(lines) else None
                return record is not None and fmt.ends_turn(record)  # (an interrupt, a local command)
        return False
    for raw in reversed(lines):
        view = _view(fmt, raw)
        if view is not None and view.role in ("user", "assistant", "tool"):
            return view.role == "assistant" and not view.tool_calls and not view.result_for
    return False


def _record(raw: bytes) -> dict[str, Any] | None:
    try:
        return parse_object(raw)
    except BadLine:
        return None


def _view(fmt: Format, raw: bytes, record: dict[str, Any] | None = None) -> EntryView | None:
    record = _record(raw) if record is None else record
    if record is None:
        return None
    try:
        return fmt.view(record)
    except Exception:  # a record of an odd shape: it tells nothing here
        return None


def _results(fmt: Format, record: dict[str, Any], view: EntryView) -> set[str]:
    """Every call id ``record`` answers (one message may answer several)."""
    found: set[str] = {view.result_for} if view.result_for else set()
    for message in (record, record.get("message"), record.get("payload")):
        if isinstance(message, dict):
            found.update(fmt.tool_result_ids(message))
    return found
