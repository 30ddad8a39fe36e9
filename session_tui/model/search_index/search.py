"""Running a query: the index gives candidates (the documents holding the
words of the index that may hold each word of each term, and the filters
on the documents' fields), each candidate's record is read back by offset
and checked, hits come newest first, each with a snippet cut around the
match."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from array import array
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import SessionError, check_stop
from ..formats.sources import open_source
from ..reading.record_text import string_values
from ..reading.records import BadLine, parse_object
from ..reading.source import Source, is_url
from .candidates import candidates
from .database import hour_of
from .documents import entry_of
from .query import Query

SNIPPET = 60  # characters each side of the match
COUNT_BUDGET = 0.015  # seconds spent checking candidates only to count them, once the hits shown are found
MARK = ("«", "»")


@dataclass
class Hit:
    file: str
    line: int  # 1-based
    entry: str
    role: str
    kind: str
    time: float | None
    snippet: str
    format: str
    active_branch: bool | None = None  # None: not looked at

    def as_json(self) -> dict[str, Any]:
        from ..entries.view import iso_time  # (the entries' views: not needed to find the hits)

        return {
            "file": self.file,
            "line": self.line,
            "entry": self.entry,
            "role": self.role,
            "kind": self.kind,
            "time": iso_time(self.time),
            "snippet": self.snippet,
        }


@dataclass
class Found:
    hits: list[Hit] = field(default_factory=list)
    total: int = 0
    took_ms: float = 0.0
    exact: bool = True  # False: past the counting budget, ``total`` counts the hits checked so far (at least)


def run_query(
    db: sqlite3.Connection,
    query: Query,
    roots: Iterable[str] = (),
    limit: int = 50,
    should_stop: Callable[[], bool] | None = None,
    redact: Callable[[str], str] | None = None,
    mark_branches: bool = True,
) -> Found:
    """Hits of ``query`` among the indexed files under ``roots`` (all: none
    given), newest first; ``total`` counts them all (each checked), or,
    once the hits shown are found and COUNT_BUDGET is spent, those checked
    so far (``exact`` False: at least that many). ``mark_branches``: whether
    each hit shown is on its session's active branch is looked at (it reads
    the session of each file with a hit)."""
    began = time.perf_counter()
    found = Found()
    kept: list[_Hit] = []  # the newest so far
    window = _Window()
    for hit in _checked(db, query, list(roots), should_stop, window=window):
        found.total += 1
        if len(kept) < limit:
            kept.append(hit)
            if len(kept) == limit:  # (ids order hours; an hour's documents come as indexed)
                window.hour, window.cutoff = hour_of(hit.doc_id) or None, _newest(kept, limit)[-1].time
            continue
        if window.hour is not None and hour_of(hit.doc_id) == window.hour and _newer(hit.time, window.cutoff):
            kept = _newest([*kept, hit], limit)
            window.cutoff = kept[-1].time
        if not window.armed and time.perf_counter() - began > COUNT_BUDGET:
            found.exact = False  # (counting stops; the rest of the last hour shown is looked through, unread)
            if window.hour is None or hour_of(hit.doc_id) != window.hour:
                break
            window.armed = True
    branches: dict[str, array[int] | None] = {}
    for hit in _newest(kept, limit):
        # masked before it is cut: a secret cut short or marked is no longer seen
        shown = cut_snippet([redact(part) for part in hit.parts] if redact else hit.parts, query)
        on_branch = on_active_branch(branches, hit.path, hit.line) if mark_branches else None
        found.hits.append(
            Hit(
                hit.path,
                hit.line + 1,
                hit.entry,
                hit.role,
                hit.kind,
                hit.time,
                shown,
                hit.format,
                on_branch,
            )
        )
    found.took_ms = (time.perf_counter() - began) * 1000
    return found


def _newer(when: float | None, cutoff: float | None) -> bool:
    return when is not None and (cutoff is None or when > cutoff)


def _newest(hits: list[_Hit], limit: int) -> list[_Hit]:
    return sorted(hits, key=lambda h: (h.time is None, -(h.time or 0.0), -h.doc_id))[:limit]


@dataclass
class _Window:
    """Once the hits to show are found: the hour of the last of them (the
    index gives that hour's documents as indexed, so a newer one may come)
    and the time a later one must beat."""

    hour: int | None = None
    cutoff: float | None = None
    armed: bool = False  # counting has stopped: only a newer document of ``hour`` is still wanted

    def passes_over(self, when: float | None) -> bool:
        return self.armed and not _newer(when, self.cutoff)

    def ended(self, doc_id: int) -> bool:
        return self.armed and hour_of(doc_id) != self.hour


@dataclass
class _Hit:
    path: str
    format: str
    line: int  # 0-based
    entry: str
    role: str
    kind: str
    time: float | None
    doc_id: int
    parts: list[str]  # the record's strings


def _checked(
    db: sqlite3.Connection,
    query: Query,
    roots: list[str],
    should_stop: Callable[[], bool] | None,
    skip: Callable[[str], bool] | None = None,
    window: _Window | None = None,
) -> Iterator[_Hit]:
    """The candidates that hold every term (and, with ``branch:active``, are
    on their session's active branch), in the index's order; ``skip(path)``
    passes over a file's candidates unread. Once ``window`` is armed (the
    count stopped), a candidate of its hour no newer than its cutoff is
    passed over unread, and the candidates end with that hour."""
    sources: dict[str, Source] = {}
    branches: dict[str, array[int] | None] = {}
    try:
        for n, row in enumerate(candidates(db, query, roots)):
            path, fmt, line, offset, length, entry, role, kind, when, escaped, doc_id = row
            check_stop(should_stop, n)
            if skip is not None and skip(path):
                continue
            if window is not None and window.ended(doc_id):
                return
            if window is not None and window.passes_over(when):
                continue
            raw = _raw(sources, path, offset, length)
            if raw is None or not query.may_match(raw, bool(escaped)):
                continue
            parts = record_strings(raw)
            if parts is None or not query.matches("\n".join(parts)):
                continue
            if query.active_branch and on_active_branch(branches, path, line) is False:
                continue
            yield _Hit(path, fmt, line, entry_of(entry), role, kind, when, doc_id, parts)
    finally:
        for source in sources.values():
            source.close()


def matching_files(
    db: sqlite3.Connection, query: Query, roots: Iterable[str] = (), should_stop: Callable[[], bool] | None = None
) -> dict[str, int]:
    """The files under ``roots`` with at least one hit (the picker's rows),
    each with the 0-based line of its newest hit."""
    found: dict[str, int] = {}
    for hit in _checked(db, query, list(roots), should_stop, skip=found.__contains__):
        found[hit.path] = hit.line
    return found


def _raw(sources: dict[str, Source], path: str, offset: int, length: int) -> bytes | None:
    source = sources.get(path)
    try:
        if source is None:
            source = sources[path] = open_source(path)
            source.stat()  # (opens it)
        return source.read(offset, length)
    except (OSError, SessionError):
        return None  # changed since it was indexed: the next catch-up says how


def record_strings(raw: bytes) -> list[str] | None:
    try:
        return string_values(parse_object(raw))
    except BadLine:
        return None


def on_active_branch(branches: dict[str, array[int] | None], path: str, line: int) -> bool | None:
    """Whether the entry on 0-based ``line`` is on its session's active
    branch (None: not readable). Each session is read once per query, and
    its active path kept for the next queries while the file is unchanged
    (the picker asks again as you type)."""
    if path not in branches:
        branches[path] = _active_lines(path)
    lines = branches[path]
    if lines is None:
        return None
    at = bisect_left(lines, line)
    return at < len(lines) and lines[at] == line


_KEPT_PATHS: OrderedDict[tuple[str, int, int], array[int] | None] = OrderedDict()
_KEPT_LOCK = threading.Lock()  # (the picker's searches run in threads)
KEPT_PATHS = 16  # sessions whose active path is kept between queries (4 bytes an entry)


def _active_lines(path: str) -> array[int] | None:
    """The sorted lines of the entries on the session's active path."""
    from ..session.session import Session  # (the format readers: only for a hit's branch)

    try:
        st = os.stat(path) if not is_url(path) else None
    except OSError:
        return None
    key = (path, st.st_size, st.st_mtime_ns) if st is not None else None
    with _KEPT_LOCK:
        if key is not None and key in _KEPT_PATHS:
            _KEPT_PATHS.move_to_end(key)
            return _KEPT_PATHS[key]
    try:
        with Session(path) as session:
            session.refresh()
            found: array[int] | None = array("q", sorted(session.tree.entry_line[e] for e in session.active_path()))
    except (SessionError, OSError):
        found = None
    if key is not None:
        with _KEPT_LOCK:
            _KEPT_PATHS[key] = found
            while len(_KEPT_PATHS) > KEPT_PATHS:
                _KEPT_PATHS.popitem(last=False)
    return found


def cut_snippet(parts: list[str], query: Query) -> str:
    """The text around the first match, on one line, the match marked: cut
    from the longest of the record's strings that holds it (the message or
    output, not an id beside it), what follows it running on into the next."""
    holding = [k for k, part in enumerate(parts) if _match_in(part, query)[0] >= 0]
    if holding:
        k = max(holding, key=lambda k: len(parts[k]))
        text = "\n".join(parts[k:])
    else:  # (a phrase across two strings)
        text = "\n".join(parts)
    at, size = _match_in(text, query)
    if at < 0:
        return " ".join(text[: 2 * SNIPPET].split())
    before = " ".join(text[max(0, at - SNIPPET) : at].split())
    match = " ".join(text[at : at + size].split())
    after = " ".join(text[at + size : at + size + SNIPPET].split())
    lead = "…" if at > SNIPPET else ""
    tail = "…" if at + size + SNIPPET < len(text) else ""
    return f"{lead}{before} {MARK[0]}{match}{MARK[1]} {after}{tail}".strip()


def _match_in(text: str, query: Query) -> tuple[int, int]:
    """Where the first of the query's phrases (or else words, any case) is
    in ``text``, and its length; (-1, 0): none is."""
    for phrase in [*query.phrases, *query.paths]:
        at = text.find(phrase)
        if at >= 0:
            return at, len(phrase)
    if query.words:
        folded = text.lower()
        for word in query.words:
            at = folded.find(word.lower())
            if at >= 0:
                return at, len(word)
    return -1, 0
