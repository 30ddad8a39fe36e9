"""Finding entries by text in the file's bytes."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import Cancelled

if TYPE_CHECKING:  # pragma: no cover
    from .session import Session

BLOCK = 1 << 20


def entry_at_line(session: Session, line: int) -> int | None:
    """The entry on 0-based ``line``, if that line is an entry."""
    lines = session.tree.entry_line
    k = bisect_left(lines, line)
    return k if k < len(lines) and lines[k] == line else None


def find_text(
    session: Session,
    needle: str,
    after_entry: int = -1,
    backwards: bool = False,
    should_stop: Callable[[], bool] | None = None,
) -> int | None:
    """The next entry (in file order, wrapping around) after ``after_entry``
    whose line contains ``needle``, case-insensitively; searches the raw
    JSON lines, so ids and field values match too. ``should_stop`` is polled
    between blocks of 1 MiB (raise Cancelled)."""
    target = needle.lower().encode()
    tree, lines = session.tree, session.lines
    if not target or not tree.count:
        return None
    n = tree.count
    order = (
        (range(after_entry - 1, -1, -1), range(n - 1, after_entry - 1, -1))
        if backwards
        else (range(after_entry + 1, n), range(0, min(after_entry + 1, n)))
    )
    for span in order:
        if not len(span):
            continue
        first_line = tree.entry_line[min(span[0], span[-1])]
        last_line = tree.entry_line[max(span[0], span[-1])]
        start = lines.line_starts[first_line]
        stop = sum(lines.span(last_line))
        found = _scan(session, target, start, stop, backwards, should_stop)
        if found is not None:
            return found
    return None


def _scan(
    session: Session,
    target: bytes,
    start: int,
    stop: int,
    backwards: bool,
    should_stop: Callable[[], bool] | None = None,
) -> int | None:
    """The first (or, backwards, last) entry in bytes [start, stop) whose
    line holds ``target``; reads BLOCK bytes at a time."""
    overlap = len(target) - 1
    blocks = range(start, stop, BLOCK)
    for begin in reversed(blocks) if backwards else blocks:
        if should_stop is not None and should_stop():
            raise Cancelled()
        data = session.pread(min(BLOCK + overlap, stop - begin), begin).lower()
        found = _entry_in(session, data, begin, target, backwards)
        if found is not None:
            return found
    return None


def _entry_in(session: Session, data: bytes, base: int, target: bytes, backwards: bool) -> int | None:
    starts = session.lines.line_starts
    at = data.rfind(target) if backwards else data.find(target)
    while at >= 0:
        entry = entry_at_line(session, bisect_right(starts, base + at) - 1)
        if entry is not None:
            return entry
        at = data.rfind(target, 0, at) if backwards else data.find(target, at + 1)
    return None


def find_all(session: Session, needle: str, limit: int, should_stop: Callable[[], bool] | None = None) -> list[int]:
    """Up to ``limit`` entries holding ``needle``, in file order (see find_text)."""
    found: list[int] = []
    after = -1
    while len(found) < limit:
        entry = find_text(session, needle, after, should_stop=should_stop)
        if entry is None or entry in found:
            break
        found.append(entry)
        after = entry
    return found
