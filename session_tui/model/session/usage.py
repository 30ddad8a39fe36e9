"""Token usage and step timing, from the entries' own fields."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..entries.pairing import partner
from ..entries.tokens import Response, TokenCounts, counts_of
from ..entries.view import EntryView, parse_time
from ..errors import check_stop
from ..formats.base import add_response
from ..reading.segment import Shape

if TYPE_CHECKING:  # pragma: no cover
    from .session import Session


def entry_tokens(session: Session, entry: int, view: EntryView | None = None) -> dict[str, Any] | None:
    """Usage recorded for ``entry``: where its format keeps it outside the
    entry's record (Codex: the token_count after an assistant entry), else
    the view's own ``tokens``."""
    found = session.format.entry_tokens(session, entry)
    if found is not None:
        return found
    return (view or session.format.view(session.record(entry))).tokens


def step_seconds(session: Session, entry: int) -> tuple[str, float] | None:
    """("model", seconds) for an assistant entry (its time minus its
    parent's), ("tool", seconds) for a tool result (its time minus the
    call's); None when the times are not recorded."""
    tree, fmt = session.tree, session.format
    view = fmt.view(session.record(entry))
    mine = parse_time(view.time)
    if mine is None:
        return None
    if view.result_for is not None:
        call = partner(session, entry)
        other = parse_time(fmt.view(session.record(call)).time) if call is not None else None
        return ("tool", mine - other) if other is not None else None
    if tree.shape[entry] & Shape.ROLE_MASK == Shape.ASSISTANT and tree.parent[entry] >= 0:
        before = fmt.view(session.record(tree.parent[entry]))
        for _ in range(1000):  # a response recorded over several entries: from before its first one
            if view.step is None or before.step != view.step or before.parent_id is None:
                break
            up = session.find(before.parent_id)
            if up is None:
                break
            before = fmt.view(session.record(up))
        other = parse_time(before.time)
        return ("model", mine - other) if other is not None else None
    return None


# -- the responses: one count of a session's tokens -----------------------------------
@dataclass
class KeptResponses:
    """The session's responses as found so far: formats that find them entry
    by entry (``Format.responses_by_entry``) go on from ``entries``; the
    others find them again after each refresh."""

    refreshes: int = -1
    entries: int = 0
    found: dict[str | int, Response] = field(default_factory=dict)
    responses: list[Response] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)  # (the status line, U and the branch list ask at once)


def responses(session: Session, should_stop: Callable[[], bool] | None = None) -> list[Response]:
    """Every model response the file records, each once (``Format.responses``),
    every branch; a file that grew costs its new entries only."""
    kept, fmt = session.memo.of(KeptResponses), session.format
    with _held(kept.lock, should_stop):
        if not fmt.responses_by_entry:
            if kept.refreshes != session.refreshes:
                kept.responses = fmt.responses(session, should_stop)  # (Codex's scan goes on where it stopped)
                kept.refreshes = session.refreshes
            return kept.responses
        if kept.entries < session.tree.count or kept.refreshes < 0:
            times = session.memo.of(TimeTally)
            for entry in range(kept.entries, session.tree.count):
                check_stop(should_stop, entry - kept.entries)
                record = session.record(entry)  # read once: for the response and the time span
                add_response(kept.found, fmt.entry_response(session, entry, record))
                if times.entries == entry:
                    times.add(fmt.view(record))
                    times.entries = entry + 1
                kept.entries = entry + 1
            kept.responses = list(kept.found.values())
            kept.refreshes = session.refreshes
        return kept.responses


@dataclass
class TimeTally:
    """The earliest and latest times of the first ``entries`` entries of a
    session (kept with it: ``responses`` fills it as it reads each record,
    so a session's span costs no second read)."""

    entries: int = 0
    first: float | None = None
    last: float | None = None

    def add(self, view: EntryView) -> None:
        when = parse_time(view.time)
        if when is not None:
            self.first = when if self.first is None else min(self.first, when)
            self.last = when if self.last is None else max(self.last, when)


@dataclass
class KeptPriced:
    """The responses of the first ``entries`` of the scan's priced entries (``ScanTally.priced``)."""

    entries: int = 0
    responses: list[Response] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class TalliedResponses:
    """A session's responses as its scan tallied them: those no price can be
    found for summed (``unpriced`` of them, ``unpriced_counts`` their tokens),
    the others read (``priced``, in file order). Together: ``responses``."""

    unpriced: int
    unpriced_counts: TokenCounts
    priced: list[Response]


def tallied_responses(session: Session, should_stop: Callable[[], bool] | None = None) -> TalliedResponses | None:
    """What ``responses`` sums, from what the index kept, where its format
    tallies the responses while scanning (``Format.tallies_responses``): only
    the records of responses that may be priced are read. None: it does not."""
    fmt, tally = session.format, session.scan_tally
    if not (fmt.tallies_responses and tally.exact and not session.tree.duplicates):
        return None
    kept = session.memo.of(KeptPriced)
    with _held(kept.lock, should_stop):
        priced = tally.priced
        for done, entry in enumerate(priced[kept.entries :]):
            check_stop(should_stop, done)
            part = fmt.entry_response(session, entry)
            if part is not None:
                kept.responses.append(part[1])
            kept.entries += 1
        found = list(kept.responses)
    return TalliedResponses(tally.unpriced, TokenCounts(*tally.unpriced_counts), found)


def subagent_files(session: Session) -> list[str]:
    """The sub-agent transcripts of a session: those its calls spawned, and
    every other beside it (Claude Code's ``<id>/subagents/``: a compaction's
    own agent spends too, with no call naming it)."""
    import glob
    import os

    found = set(session.format.subagents(session).values())
    client = session.format.client
    if client is not None and client.subagents_folder and not session.remote:
        folder = os.path.join(os.path.dirname(session.path), os.path.basename(session.path).removesuffix(".jsonl"))
        found.update(glob.glob(os.path.join(glob.escape(folder), "subagents", "*.jsonl")))
    return sorted(found)


@dataclass
class KeptSubagents:
    """Each sub-agent transcript's (format, responses), by path, as of its (size, mtime)."""

    found: dict[str, tuple[tuple[int, int], str, list[Response]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def subagent_responses(
    session: Session, should_stop: Callable[[], bool] | None = None
) -> dict[str, tuple[str, list[Response]]]:
    """(format name, responses) of each sub-agent transcript of the session;
    one is read again only when it changed. A transcript that cannot be
    read is left out."""
    kept = session.memo.of(KeptSubagents)
    with _held(kept.lock, should_stop):
        return _subagent_responses(session, kept, should_stop)


@contextmanager
def _held(lock: threading.Lock, should_stop: Callable[[], bool] | None) -> Iterator[None]:
    """``lock``, waited for while ``should_stop`` says go on (a frame's budget
    is not spent waiting on a worker: it stops, and the worker's answer comes)."""
    while not lock.acquire(timeout=0.02):
        check_stop(should_stop, 0)
    try:
        yield
    finally:
        lock.release()


def _subagent_responses(
    session: Session, kept: KeptSubagents, should_stop: Callable[[], bool] | None
) -> dict[str, tuple[str, list[Response]]]:
    import os

    from .session import Session as Opened

    out: dict[str, tuple[str, list[Response]]] = {}
    for path in subagent_files(session):
        try:
            st = os.stat(path)
        except OSError:
            continue
        stamp = (st.st_size, st.st_mtime_ns)
        known = kept.found.get(path)
        if known is None or known[0] != stamp:
            try:
                with Opened(path) as sub:
                    sub.refresh(should_stop)
                    known = kept.found[path] = (stamp, sub.format.name, list(responses(sub, should_stop)))
            except (OSError, ValueError):
                continue
        out[path] = (known[1], known[2])
    return out


def session_tokens(session: Session, should_stop: Callable[[], bool] | None = None) -> TokenCounts:
    """The one count of a session's tokens, said by every screen and export
    (the status line, ``U``, ``check``, ``export``, the fleet): every
    response once (one written over several records, each carrying its
    usage, counted once), every branch, its sub-agents' responses rolled up."""
    tallied = tallied_responses(session, should_stop)
    if tallied is None:
        total = counts_of(responses(session, should_stop))
    else:
        total = counts_of(tallied.priced)
        total.add(tallied.unpriced_counts)
    for _, found in subagent_responses(session, should_stop).values():
        total.add(counts_of(found))
    return total
