"""Counts said as people say them: ``1 call``, ``2 calls``."""

from __future__ import annotations


def plural(count: int, one: str, many: str | None = None) -> str:
    """``1,234 entries``: the count with thousands separators and the word it takes."""
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def calls_without_result(count: int) -> str:
    return plural(count, "call without a result", "calls without a result")
