"""Pairing tool calls with their results in a sequence of context messages.

A call is dangling when no result with its id follows before the next
message that is not a tool result (docs/formats.md §1.7, §2.3); a result whose
id is not among the calls it follows is an orphan.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .formats.base import Format

#: (entry index, message) of a context
ContextItem = tuple[int, dict[str, Any]]


@dataclass(frozen=True)
class ToolIssue:
    entry: int  # entry index of the call (dangling) or result (orphan)
    call_id: str


def pair_tool_calls(fmt: Format, context: list[ContextItem]) -> tuple[list[ToolIssue], list[ToolIssue]]:
    """(dangling calls, orphan results) in ``context``, in order. Formats
    with ``results_anywhere`` (Codex) pair a call with an output anywhere
    after it."""
    return Pairing(fmt).feed(context)


class Pairing:
    """Tool pairing fed a context as it grows: ``feed`` reads only the
    messages it has not seen, so a live file costs what was appended."""

    def __init__(self, fmt: Format) -> None:
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
