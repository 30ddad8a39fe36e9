"""A session's usage, one type for every screen and export: tokens summed
over its responses (every branch: money was spent on abandoned ones too),
its sub-agents' apart and rolled up, their cost, and the span of its
times (``session_usage``: the status line, the fleet, ``check``;
``spending``: priced, for ``check``, ``usage``, ``U`` and the branch list)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..entries.tokens import Response, TokenCounts, tokens_text
from ..entries.view import parse_time
from ..errors import check_stop
from ..session.usage import TimeTally, responses, session_tokens, subagent_responses, tallied_responses
from ..words import human_seconds
from .prices import priced_by, response_cost

NO_MODEL = "(no model recorded)"  # the name of a response's model that none is recorded for

if TYPE_CHECKING:  # pragma: no cover
    from ..session.session import Session


@dataclass
class Usage:
    input: int = 0  # uncached input only (``sent``: with the cache)
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost_usd: float | None = None  # None: no response could be priced (or, from ``session_usage``, none was)
    recorded_cost_usd: float | None = None  # the client's own figure, where it writes one (pi)
    responses: int = 0
    unpriced_models: list[str] = field(default_factory=list)
    unpriced_responses: int = 0
    first: float | None = None  # the earliest entry time (``session_usage``)
    last: float | None = None

    @property
    def sent(self) -> int:
        """Every input token the model read, the cache's included."""
        return self.input + self.cache_read + self.cache_write

    @property
    def seconds(self) -> float | None:
        return self.last - self.first if self.first is not None and self.last is not None else None

    def add(self, other: Usage) -> None:
        self.input += other.input
        self.output += other.output
        self.cache_read += other.cache_read
        self.cache_write += other.cache_write
        self.responses += other.responses
        self.unpriced_responses += other.unpriced_responses
        self.cost_usd = _plus(self.cost_usd, other.cost_usd)
        self.recorded_cost_usd = _plus(self.recorded_cost_usd, other.recorded_cost_usd)
        self.unpriced_models = sorted({*self.unpriced_models, *other.unpriced_models})
        self.first = _either(min, self.first, other.first)
        self.last = _either(max, self.last, other.last)

    @property
    def tokens(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    @property
    def counts(self) -> TokenCounts:
        """Its tokens as the session's count holds them (``session_tokens``): said by ``tokens_text``."""
        return TokenCounts(self.input, self.output, self.cache_read, self.cache_write)

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "input": self.input,
            "output": self.output,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "priced_by": priced_by(),
            "unpriced_models": self.unpriced_models,
        }
        if self.recorded_cost_usd is not None:  # (shown beside ours; ours is the one used)
            data["recorded_cost_usd"] = round(self.recorded_cost_usd, 6)
        return data


def spent_text(usage: Usage) -> str:
    """One line for people: the money, the tokens it paid for, what was not priced."""
    from ..sanitize import inert_line

    cost = "cost unknown" if usage.cost_usd is None else f"cost ${usage.cost_usd:,.2f}"
    tokens = tokens_text(usage.counts) or "no tokens"
    parts = [f"{cost} · {usage.responses} responses: {tokens}"]
    if usage.recorded_cost_usd is not None:
        parts.append(f"the client recorded ${usage.recorded_cost_usd:,.2f} (the table's is shown)")
    if usage.unpriced_models:
        names = ", ".join(map(inert_line, usage.unpriced_models))  # (a model's name is the file's: inert)
        parts.append(f"not priced: {names} ({usage.unpriced_responses} responses)")
    return " · ".join(parts)


def _either(pick: Callable[[float, float], float], a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else pick(a, b)


def _plus(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else a + b


def usage_of(responses: Iterable[Response], format_name: str) -> Usage:
    """The sum of ``responses``; a response whose model the table does not
    know is left out of the cost (its model listed), never guessed."""
    total = Usage()
    unpriced: set[str] = set()
    for response in responses:
        total.responses += 1
        total.input += response.input
        total.output += response.output
        total.cache_read += response.cache_read
        total.cache_write += response.cache_write
        if response.recorded_cost is not None:
            total.recorded_cost_usd = _plus(total.recorded_cost_usd, response.recorded_cost)
        cost = response_cost(response, format_name)
        if cost is None:
            total.unpriced_responses += 1
            unpriced.add(response.model or NO_MODEL)
        else:
            total.cost_usd = _plus(total.cost_usd, cost)
    total.unpriced_models = sorted(unpriced)
    return total


@dataclass
class Spending:
    """What a session spent: its own responses, and each sub-agent's apart."""

    own: Usage
    subagents: dict[str, Usage]  # each sub-agent transcript's, by path

    @property
    def subagents_total(self) -> Usage | None:
        """The sub-agents' part (None: it has none)."""
        if not self.subagents:
            return None
        out = Usage()
        for usage in self.subagents.values():
            out.add(usage)
        return out

    @property
    def total(self) -> Usage:
        """The session with its sub-agents rolled up."""
        out = Usage()
        out.add(self.own)
        if (part := self.subagents_total) is not None:
            out.add(part)
        return out


def responses_of(session: Session, should_stop: Callable[[], bool] | None = None) -> list[Response]:
    """The session's responses, each once: the same list the session's token
    count sums (``session.usage.responses``), so the cost and the tokens agree."""
    return responses(session, should_stop)


def entries_usage(session: Session, entries: Iterable[int]) -> Usage:
    """The usage of the responses recorded by ``entries`` (a branch's own, the
    steps after a fork)."""
    wanted = set(entries)
    return usage_of([r for r in responses_of(session) if r.entry in wanted], session.format.name)


def spending(session: Session, should_stop: Callable[[], bool] | None = None) -> Spending:
    """The session's usage and each of its sub-agents' (Claude Code's
    transcripts beside it), counted once each: the responses
    ``session_tokens`` counts, priced."""
    tallied = tallied_responses(session, should_stop)
    if tallied is None:
        own = usage_of(responses_of(session, should_stop), session.format.name)
    else:  # (the same sum: the summed responses are each unpriced, with no model recorded)
        counts = tallied.unpriced_counts
        own = Usage(counts.input, counts.output, counts.cache_read, counts.cache_write)
        if tallied.unpriced:
            own.responses = own.unpriced_responses = tallied.unpriced
            own.unpriced_models = [NO_MODEL]
        own.add(usage_of(tallied.priced, session.format.name))
    subagents = {
        path: usage_of(found, name) for path, (name, found) in subagent_responses(session, should_stop).items()
    }
    return Spending(own, subagents)


# -- the tokens and the span, unpriced (the status line, the fleet) ------------------------
def session_usage(session: Session, should_stop: Callable[[], bool] | None = None, read_records: bool = True) -> Usage:
    """The session's tokens (``session_tokens``: the one count every screen
    and export says, sub-agents rolled up; not priced: ``spending`` prices
    them) and the span of its timestamps. Each entry is read
    once, what was found kept with the session, so a live file costs only
    its new entries. ``read_records=False``: only what the index kept
    (the native format's tally while indexing; nothing where it keeps
    none: a remote file's records are not read again for a status line)."""
    scanned = session.scan_tally
    if not read_records:
        if not (scanned.exact and not session.tree.duplicates):
            return Usage()
        return Usage(
            scanned.input_tokens, scanned.output_tokens, first=parse_time(scanned.first), last=parse_time(scanned.last)
        )
    tokens = session_tokens(session, should_stop)
    if scanned.exact and not session.tree.duplicates:
        first, last = parse_time(scanned.first), parse_time(scanned.last)  # kept by the index
    else:
        tally = session.memo.of(TimeTally)
        for entry in range(tally.entries, session.tree.count):
            check_stop(should_stop, entry - tally.entries)
            tally.add(session.format.view(session.record(entry)))
            tally.entries = entry + 1
        first, last = tally.first, tally.last
    return Usage(tokens.input, tokens.output, tokens.cache_read, tokens.cache_write, first=first, last=last)


def usage_text(usage: Usage, tokens: bool = True) -> str:
    """``tokens in 2.5k · out 40.4k · cache read 16.2M · span 3.1 h``
    (``tokens=False``: the span only, where the tokens are said beside it)."""
    parts: list[str] = []
    said = tokens_text(usage.counts) if tokens else ""
    if said:
        parts.append(f"tokens {said}")
    if usage.seconds is not None:
        parts.append(f"span {human_seconds(usage.seconds)}")
    return " · ".join(parts)
