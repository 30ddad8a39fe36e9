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
    """(dangling calls, orphan results) in ``context``, in order."""
    dangling: list[ToolIssue] = []
    orphans: list[ToolIssue] = []
    open_calls: dict[str, int] = {}
    for entry, message in context:
        result_ids = fmt.tool_result_ids(message)
        if result_ids:
            for result_id in result_ids:
                if open_calls.pop(result_id, None) is None:
                    orphans.append(ToolIssue(entry, result_id))
            continue
        dangling.extend(ToolIssue(e, c) for c, e in open_calls.items())
        open_calls = {c: entry for c in fmt.tool_call_ids(message)}
    dangling.extend(ToolIssue(e, c) for c, e in open_calls.items())
    return dangling, orphans
