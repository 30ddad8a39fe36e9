"""What of a record is searched: every string in it (message text,
thinking, tool names and arguments, results of any size, summaries), keys
left out. The indexer indexes it; a search checks each candidate against it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys left out, in order."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def string_values(record: dict[str, Any]) -> list[str]:
    """Every string of the record, in order (a recursive walk: the hot loop
    of indexing; the stack walk where a record nests too deep for it)."""
    out: list[str] = []

    def walk(value: dict[str, Any] | list[Any]) -> None:
        for item in value.values() if isinstance(value, dict) else value:
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, (dict, list)):
                walk(item)

    try:
        walk(record)
    except RecursionError:
        out = list(strings(record))
    return out


def text_of(record: dict[str, Any]) -> str:
    """Every string of the record, one per line: what is indexed and searched."""
    return "\n".join(string_values(record))
