"""Pairing tool calls with their results: in a sequence of context messages,
and in the tree (a result's call, a call's results).

In a context, a call is dangling when no result with its id follows before the next
message that is not a tool result (docs/formats.md#tree-tool-pairing, and #chat); a result whose
id is not among the calls it follows is an orphan.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from ..reading.segment import Shape
from .tree import SessionTree
from .view import EntryView

#: (entry index, message) of a context
ContextItem = tuple[int, dict[str, Any]]


class ToolFormat(Protocol):
    """What pairing needs of a format (``formats.base.Format`` has it)."""

    results_anywhere: bool

    def same_step(self, previous: dict[str, Any], message: dict[str, Any]) -> bool: ...

    def tool_call_ids(self, message: dict[str, Any]) -> list[str]: ...

    def tool_result_ids(self, message: dict[str, Any]) -> list[str]: ...

    def view(self, record: dict[str, Any]) -> EntryView: ...


class Entries(Protocol):
    """What ``partner`` reads of a session: ``Session`` has it, and so has
    the session a format adapter is given."""

    @property
    def tree(self) -> SessionTree: ...

    @property
    def format(self) -> ToolFormat: ...

    def record(self, entry: int) -> dict[str, Any]: ...


@dataclass(frozen=True)
class ToolIssue:
    entry: int  # entry index of the call (dangling) or result (orphan)
    call_id: str


class Pairing:
    """Tool pairing fed a context as it grows: ``feed`` reads only the
    messages it has not seen, so a live file costs what was appended."""

    def __init__(self, fmt: ToolFormat) -> None:
        self.fmt = fmt
        self.anywhere = fmt.results_anywhere
        self.consumed = 0  # messages of the context read so far
        self.last: ContextItem | None = None  # the last of them (same object: the context was extended, not rebuilt)
        self.dangling: list[ToolIssue] = []  # calls closed without a result
        self.orphans: list[ToolIssue] = []
        self.open_calls: dict[str, int] = {}  # call id -> entry
        self.previous: dict[str, Any] | None = None  # the last message that was not a result

    def continues(self, context: list[ContextItem]) -> bool:
        """Whether ``context`` begins with every message this pairing has read."""
        return len(context) >= self.consumed and (not self.consumed or context[self.consumed - 1] is self.last)

    def feed(self, context: list[ContextItem]) -> tuple[list[ToolIssue], list[ToolIssue]]:
        """Read the messages of ``context`` after those already read (it must
        continue them); (dangling calls, orphan results) at its end."""
        found = self.read(context[self.consumed :])
        if len(context) > self.consumed:
            self.consumed, self.last = len(context), context[-1]
        return found

    def read(self, items: Iterable[ContextItem]) -> tuple[list[ToolIssue], list[ToolIssue]]:
        """Read ``items`` (any iterable: a stream is never held whole) after
        what was read; (dangling calls, orphan results) at their end."""
        fmt = self.fmt
        for item in items:
            entry, message = item
            if self.anywhere:
                self.open_calls.update((c, entry) for c in fmt.tool_call_ids(message))
                for result_id in fmt.tool_result_ids(message):
                    if self.open_calls.pop(result_id, None) is None:
                        self.orphans.append(ToolIssue(entry, result_id))
                continue
            result_ids = fmt.tool_result_ids(message)
            if result_ids:
                for result_id in result_ids:
                    if self.open_calls.pop(result_id, None) is None:
                        self.orphans.append(ToolIssue(entry, result_id))
                continue  # results between the lines of one response leave its calls open
            if self.previous is None or not fmt.same_step(self.previous, message):
                self.dangling.extend(ToolIssue(e, c) for c, e in self.open_calls.items())
                self.open_calls = {}
            self.open_calls.update((c, entry) for c in fmt.tool_call_ids(message))
            self.previous = message
        open_now = [ToolIssue(e, c) for c, e in self.open_calls.items()]
        return self.dangling + open_now, list(self.orphans)


def partner(session: Entries, entry: int) -> int | None:
    """For a tool result, the entry that made its call; for an entry making
    calls, the entry with the first result. None if there is none."""
    tree, fmt = session.tree, session.format
    view = fmt.view(session.record(entry))
    if view.result_for is not None and not any(c.id == view.result_for for c in view.tool_calls):
        node = tree.parent[entry]
        for _ in range(10_000):
            if node < 0:
                return None
            if tree.shape[node] & Shape.CALLS and any(
                c.id == view.result_for for c in fmt.view(session.record(node)).tool_calls
            ):
                return node
            node = tree.parent[node]
        return None
    found = results_of(session, entry, first_only=True)
    return min(found.values()) if found else None


def results_of(session: Entries, entry: int, first_only: bool = False) -> dict[str, int]:
    """The results of the calls ``entry`` makes: call id -> the entry
    answering it (the nearest), searched breadth-first over its descendants
    (results follow their call). ``first_only``: stop at the first found."""
    tree, fmt = session.tree, session.format
    view = fmt.view(session.record(entry))
    ids = {c.id for c in view.tool_calls}
    found: dict[str, int] = {view.result_for: entry} if view.result_for in ids else {}  # (opencode: one record)
    if first_only and found:
        return found
    frontier = tree.children(entry) if len(found) < len(ids) else []
    seen = 0
    while frontier and seen < 10_000 and len(found) < len(ids):
        nxt: list[int] = []
        for node in frontier:
            seen += 1
            if tree.shape[node] & Shape.RESULT:
                answers = fmt.view(session.record(node)).result_for
                if answers in ids and answers not in found:
                    found[answers] = node
                    if first_only:
                        return found
            nxt.extend(tree.children(node))
        frontier = nxt
    return found
