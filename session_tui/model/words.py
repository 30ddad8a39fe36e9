"""Counts said as people say them: ``1 call``, ``2 calls``, ``12.3k`` tokens, ``4.5 min``."""

from __future__ import annotations


def plural(count: int, one: str, many: str | None = None) -> str:
    """``1,234 entries``: the count with thousands separators and the word it takes."""
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def calls_without_result(count: int) -> str:
    return plural(count, "call without a result", "calls without a result")


def human_tokens(n: int) -> str:
    for size, unit in ((1_000_000, "M"), (1_000, "k")):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def human_seconds(seconds: float, second_digits: int = 1) -> str:
    if seconds < 60:
        return f"{seconds:.{second_digits}f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def clock(seconds: float) -> str:
    """``0:12``, ``12:05``, ``1:02:03``."""
    total = max(0, int(seconds))
    hours, rest = divmod(total, 3600)
    return f"{hours}:{rest // 60:02}:{rest % 60:02}" if hours else f"{rest // 60}:{rest % 60:02}"


def ago(seconds: float) -> str:
    """``40 s``, ``25 min``, ``3 h``, ``12 days``."""
    if seconds < 60:
        return f"{int(seconds)} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min"
    if seconds < 86400 * 2:
        return f"{int(seconds // 3600)} h"
    return f"{int(seconds // 86400)} days"
