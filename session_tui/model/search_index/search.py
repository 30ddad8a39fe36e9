"""Running a query: the index gives candidates (every trigram of every
term, the filters on the documents' fields), each candidate's record is
read back by offset and checked, hits come newest first, each with a
snippet cut around the match."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..entries.view import iso_time
from ..errors import SessionError, check_stop
from ..reading.records import BadLine, parse_object
from ..reading.source import Source
from ..reading.sources import open_source
from .candidates import candidates
from .documents import string_values
from .query import Query

SNIPPET = 60  # characters each side of the match
COUNT_BUDGET = 0.05  # seconds spent checking candidates only to count them, once the hits shown are found
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
) -> Found:
    """Hits of ``query`` among the indexed files under ``roots`` (all: none
    given), newest first; ``total`` counts them all (each checked), or,
    once the hits shown are found and COUNT_BUDGET is spent, those checked
    so far (``exact`` False: at least that many)."""
    began = time.perf_counter()
    found = Found()
    for path, fmt, line, entry, role, kind, when, parts, on_branch in _checked(
        db, query, list(roots), should_stop, limit
    ):
        found.total += 1
        if len(found.hits) >= limit and time.perf_counter() - began > COUNT_BUDGET:
            found.exact = False
            break
        if len(found.hits) < limit:
            snippet = _snippet(parts, query)
            found.hits.append(
                Hit(path, line + 1, entry, role, kind, when, redact(snippet) if redact else snippet, fmt, on_branch)
            )
    found.took_ms = (time.perf_counter() - began) * 1000
    return found


def _checked(
    db: sqlite3.Connection,
    query: Query,
    roots: list[str],
    should_stop: Callable[[], bool] | None,
    look_at_branch: int,
    skip: Callable[[str], bool] | None = None,
) -> Iterator[tuple[str, str, int, str, str, str, float | None, list[str], bool | None]]:
    """The candidates that hold every term: (path, format, 0-based line,
    entry, role, kind, time, the record's strings, on the active branch or None). Whether
    a hit is on its session's active branch is looked at for the first
    ``look_at_branch`` hits (all with ``branch:active``); ``skip(path)``
    passes over a file's candidates unread."""
    sources: dict[str, Source] = {}
    branches: dict[str, set[int] | None] = {}
    told = 0
    try:
        for n, (path, fmt, line, offset, length, entry, role, kind, when) in enumerate(candidates(db, query, roots)):
            check_stop(should_stop, n)
            if skip is not None and skip(path):
                continue
            raw = _raw(sources, path, offset, length)
            if raw is None or not query.may_match(raw):
                continue
            parts = _strings(raw)
            if parts is None or not query.matches("\n".join(parts)):
                continue
            on_branch = None
            if query.active_branch or told < look_at_branch:
                on_branch = _on_active_branch(branches, path, line)
                if query.active_branch and on_branch is False:
                    continue
            told += 1
            yield path, fmt, line, entry, role, kind, when, parts, on_branch
    finally:
        for source in sources.values():
            source.close()


def matching_files(
    db: sqlite3.Connection, query: Query, roots: Iterable[str] = (), should_stop: Callable[[], bool] | None = None
) -> dict[str, int]:
    """The files under ``roots`` with at least one hit (the picker's rows),
    each with the 0-based line of its newest hit."""
    found: dict[str, int] = {}
    for hit in _checked(db, query, list(roots), should_stop, 0, skip=found.__contains__):
        found[hit[0]] = hit[2]
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


def _strings(raw: bytes) -> list[str] | None:
    try:
        return string_values(parse_object(raw))
    except BadLine:
        return None


def _on_active_branch(branches: dict[str, set[int] | None], path: str, line: int) -> bool | None:
    """Whether the entry on 0-based ``line`` is on its session's active
    branch (the session read once per query; None: not readable)."""
    if path not in branches:
        from ..session.session import Session  # (the format readers: only for a hit's branch)

        try:
            with Session(path) as session:
                session.refresh()
                branches[path] = {session.tree.entry_line[e] for e in session.active_path()}
        except (SessionError, OSError):
            branches[path] = None
    lines = branches[path]
    return None if lines is None else line in lines


def _snippet(parts: list[str], query: Query) -> str:
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
