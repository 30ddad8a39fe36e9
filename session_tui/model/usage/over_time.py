"""The context over time: each response along the active branch with the
context it was sent with and the cost so far, the model's window, where
compactions and branch points fall; and per tool, its calls, errors, time
and output."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..entries.pairing import partner
from ..entries.view import model_named, parse_time
from ..errors import check_stop
from .prices import context_window, provider_for, response_cost
from .totals import responses_of

if TYPE_CHECKING:  # pragma: no cover
    from ..session.session import Session


@dataclass
class Point:
    entry: int
    context: int  # input + cache read + cache write of the response
    cost_so_far: float  # USD, the responses along the branch up to this one (unpriced ones add nothing)


@dataclass
class ContextOverTime:
    points: list[Point] = field(default_factory=list)
    window: int | None = None  # the last response's model's context window, where the table knows it
    compactions: list[int] = field(default_factory=list)  # indexes into ``points``: a compaction just before
    branch_points: list[int] = field(default_factory=list)  # indexes into ``points``: a fork just before
    model: str | None = None

    @property
    def last_fill(self) -> str | None:
        """``143k/200k`` for the status line (None: no response recorded)."""
        if not self.points:
            return None
        from ..words import human_tokens

        shown = human_tokens(self.points[-1].context)
        return f"{shown}/{human_tokens(self.window)}" if self.window else shown


def context_over_time(session: Session, should_stop: Callable[[], bool] | None = None) -> ContextOverTime:
    path = list(session.active_path())
    on_path = set(path)
    responses = [r for r in responses_of(session, should_stop) if r.entry in on_path]
    order = {entry: k for k, entry in enumerate(path)}
    responses.sort(key=lambda r: order[r.entry])
    out = ContextOverTime()
    cost, k = 0.0, 0
    for response in responses:
        check_stop(should_stop, k)
        cost += response_cost(response, session.format.name) or 0.0
        out.points.append(Point(response.entry, response.context, cost))
        k += 1
    forks = set(session.tree.branch_point_entries())  # (parallel calls' siblings are asides, not forks)
    marks: list[tuple[int, str]] = []
    for entry in path:
        if session.format.view(session.record(entry)).kind == "summary":
            marks.append((order[entry], "compaction"))
        elif entry in forks:
            marks.append((order[entry], "fork"))
    positions = [order[p.entry] for p in out.points]
    for at, kind in marks:
        index = next((n for n, position in enumerate(positions) if position > at), None)
        if index is not None:
            (out.compactions if kind == "compaction" else out.branch_points).append(index)
    if responses and responses[-1].model:
        last = responses[-1]
        out.model = last.model
        out.window = session.format.client_window(session, last.entry) or context_window(
            last.model, provider_for(last.provider, session.format.name)
        )
    return out


LOOK_BACK = 200  # entries before the leaf looked at for the last response's usage


def last_response(session: Session, leaf: int) -> tuple[int, int] | None:
    """(entry, context) of the last response before ``leaf`` (on its path,
    within LOOK_BACK entries): the context it was sent with, its input with
    its cache reads and writes, as every format records it."""
    from ..entries.tokens import response_counts
    from ..reading.segment import Shape
    from ..session.usage import entry_tokens

    node, seen = leaf, 0
    while node >= 0 and seen < LOOK_BACK:
        shape = session.tree.shape[node]
        if shape & Shape.ROLE_MASK == Shape.ASSISTANT:
            usage = entry_tokens(session, node)
            if usage:
                uncached, _, cache_read, cache_write = response_counts(usage)
                if uncached + cache_read + cache_write:
                    return node, uncached + cache_read + cache_write
        elif shape & Shape.QUIET:  # a record beside the messages that holds a response's usage (Copilot, opencode)
            found = session.format.entry_response(session, node)
            if found is not None and found[1].context:
                return node, found[1].context
        node, seen = session.tree.parent[node], seen + 1
    return None


def window_at(session: Session, entry: int, model: str | None = None) -> int | None:
    """The context window of the response at ``entry``: the one its client
    counts against where it says (``Format.client_window``), else its model's
    (the response's, or ``model``) in the price table."""
    fmt = session.format
    recorded = fmt.client_window(session, entry)
    if recorded:
        return recorded
    found = fmt.entry_response(session, entry)
    response = found[1] if found is not None else None
    name = (response.model if response is not None else None) or model
    provider = response.provider if response is not None else None
    return context_window(name, provider_for(provider, fmt.name)) if name else None


def context_fill(session: Session) -> str | None:
    """``ctx 143k/200k`` for the status line: the last response's context
    over its model's window where the table knows it (None: not recorded)."""
    from ..words import human_tokens

    leaf = session.active_leaf()
    found = last_response(session, leaf) if leaf >= 0 else None
    if found is None:
        return None
    window = window_at(session, found[0], model_named(session.record(found[0]), ("model",)))
    used = human_tokens(found[1])
    return f"ctx {used}/{human_tokens(window)}" if window else f"ctx {used}"


@dataclass
class ToolStats:
    name: str
    calls: int = 0
    errors: int = 0
    seconds: float = 0.0
    output_bytes: int = 0


def tool_stats(session: Session, should_stop: Callable[[], bool] | None = None) -> list[ToolStats]:
    """Per tool, over every entry of the file: calls, failed results, the time
    from each call to its result, the bytes of its results; most calls first."""
    fmt = session.format
    names: dict[str, str] = {}
    found: dict[str, ToolStats] = {}
    for entry in range(session.tree.count):
        check_stop(should_stop, entry)
        view = fmt.view(session.record(entry))
        for call in view.tool_calls:
            names[call.id] = call.name
            found.setdefault(call.name, ToolStats(call.name)).calls += 1
        if view.result_for is None:
            continue
        stats = found.setdefault(names.get(view.result_for, "?"), ToolStats(names.get(view.result_for, "?")))
        stats.errors += view.is_error
        stats.output_bytes += len(view.text.encode("utf-8", "replace"))
        call_entry = partner(session, entry)
        began = parse_time(fmt.view(session.record(call_entry)).time) if call_entry is not None else None
        ended = parse_time(view.time)
        if began is not None and ended is not None and ended >= began:
            stats.seconds += ended - began
    return sorted(found.values(), key=lambda s: (-s.calls, s.name))
