"""Pairing tool calls with their results in a sequence of context messages.

A call is dangling when no result with its id follows before the next
message that is not a tool result (formats.md §1.7, §2.3); a result whose
id is not among the calls it follows is an orphan.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ToolIssue:
    entry: int  # entry index of the call (dangling) or result (orphan)
    call_id: str


def pair_tool_calls(fmt, context: list[tuple[int, dict]]) -> tuple[list[ToolIssue], list[ToolIssue]]:
    """(dangling calls, orphan results) in ``context``, in order. Formats
    with ``results_anywhere`` (Codex) pair a call with an output anywhere
    after it."""
    if getattr(fmt, "results_anywhere", False):
        return _pair_anywhere(fmt, context)
    dangling: list[ToolIssue] = []
    orphans: list[ToolIssue] = []
    open_calls: dict[str, int] = {}
    previous = None
    for entry, message in context:
        result_ids = fmt.tool_result_ids(message)
        if result_ids:
            for result_id in result_ids:
                if open_calls.pop(result_id, None) is None:
                    orphans.append(ToolIssue(entry, result_id))
            continue  # results between the lines of one response leave its calls open
        if previous is None or not fmt.same_step(previous, message):
            dangling.extend(ToolIssue(e, c) for c, e in open_calls.items())
            open_calls = {}
        open_calls.update((c, entry) for c in fmt.tool_call_ids(message))
        previous = message
    dangling.extend(ToolIssue(e, c) for c, e in open_calls.items())
    return dangling, orphans


def _pair_anywhere(fmt, context):
    calls: dict[str, int] = {}
    orphans: list[ToolIssue] = []
    for entry, message in context:
        for call_id in fmt.tool_call_ids(message):
            calls[call_id] = entry
        for result_id in fmt.tool_result_ids(message):
            if calls.pop(result_id, None) is None:
                orphans.append(ToolIssue(entry, result_id))
    return [ToolIssue(e, c) for c, e in calls.items()], orphans
