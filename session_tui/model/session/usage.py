"""Token usage and step timing, from the entries' own fields."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..entries.pairing import partner
from ..entries.tokens import ResponseTokens, tokens_of
from ..entries.view import EntryView, parse_time
from ..errors import check_stop
from ..reading.segment import Shape
from ..words import human_seconds, human_tokens

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


@dataclass
class SessionUsage:
    input_tokens: int = 0
    output_tokens: int = 0
    first: float | None = None  # earliest entry time
    last: float | None = None

    @property
    def seconds(self) -> float | None:
        return self.last - self.first if self.first is not None and self.last is not None else None


def session_usage(
    session: Session, should_stop: Callable[[], bool] | None = None, read_records: bool = True
) -> SessionUsage:
    """Tokens over every entry of the file (all branches: what was spent;
    a response recorded over several entries once, with its highest output
    count) or, where the format records a session total (Codex), that;
    and the span of its timestamps. Formats that tally while indexing
    (``ScanTally``) need no record read again; the others read each entry
    once, the tally kept with the session, so a live file costs only its
    new entries. ``read_records=False``: only what the index kept (nothing
    where it keeps no tally: a remote file's records are not read again
    for a status line)."""
    fmt = session.format
    scanned = session.scan_tally
    if scanned.exact and not session.tree.duplicates and fmt.session_tokens(session, should_stop) is None:
        return SessionUsage(
            scanned.input_tokens, scanned.output_tokens, parse_time(scanned.first), parse_time(scanned.last)
        )  # kept by the index: no record read again
    if not read_records:
        return SessionUsage()
    tally = session.memo.of(UsageTally)
    for entry in range(tally.entries, session.tree.count):
        check_stop(should_stop, entry - tally.entries)
        tally.add(fmt.view(session.record(entry)))
        tally.entries = entry + 1
    total = SessionUsage(first=tally.first, last=tally.last)
    recorded = fmt.session_tokens(session, should_stop)
    if recorded is not None:
        total.input_tokens, total.output_tokens = recorded
    else:
        total.input_tokens, total.output_tokens = tally.tokens.total
    return total


@dataclass
class UsageTally:
    """Tokens and times of the first ``entries`` entries of a session."""

    entries: int = 0
    tokens: ResponseTokens = field(default_factory=ResponseTokens)
    first: float | None = None
    last: float | None = None

    def add(self, view: EntryView) -> None:
        self.tokens.add(view.step, tokens_of(view))
        when = parse_time(view.time)
        if when is not None:
            self.first = when if self.first is None else min(self.first, when)
            self.last = when if self.last is None else max(self.last, when)


def usage_text(usage: SessionUsage) -> str:
    parts: list[str] = []
    if usage.input_tokens or usage.output_tokens:
        parts.append(f"tokens in {human_tokens(usage.input_tokens)} · out {human_tokens(usage.output_tokens)}")
    if usage.seconds is not None:
        parts.append(f"span {human_seconds(usage.seconds)}")
    return " · ".join(parts)
