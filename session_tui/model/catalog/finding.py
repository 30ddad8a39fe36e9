"""Finding files in the catalog: by words of their title or path (fuzzy
at worst), by what they contain; and the orders the picker sorts them in."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from ..reading.archive_listing import place_of
from ..reading.own_writes import one_look
from .session_info import SessionInfo

FUZZY_SPAN = 3  # a fuzzy match's letters lie within this many times the query's length

SORTS: tuple[tuple[str, Callable[..., Any]], ...] = (  # (name, key of a row and the user's stuck_after)
    ("last activity", lambda info, stuck_after=None: -info.last_activity),
    ("size", lambda info, stuck_after=None: -info.size),
    ("problems", lambda info, stuck_after=None: (-info.severity(None, stuck_after), -info.last_activity)),
)


def by_place(sort_key: Callable[[SessionInfo], Any]) -> Callable[[SessionInfo], Any]:
    """``sort_key`` within groups: the rows of the team archive by machine, then
    project (the folder a session is in on its machine); other rows first."""

    def key(info: SessionInfo) -> Any:
        place = place_of(info.path)
        return (place is not None, place or ("", ""), sort_key(info))

    return key


def rank_rows(
    infos: list[SessionInfo],
    query: str,
    matches: Collection[str] | None,
    sort_key: Callable[[SessionInfo], Any],
    display_path: Callable[[str], str],
) -> list[SessionInfo]:
    """The rows to show: those the contents search found (``matches``) and
    the filter ``query`` matches, best match first, then by ``sort_key``."""
    if matches is not None:
        infos = [info for info in infos if info.path in matches]
    with one_look():  # (the last activity of every row asks session-tui's own writes: read once)
        if not query:  # (sort keys are plain numbers where they can be: a sort in C holds the GIL throughout)
            return sorted(infos, key=sort_key)
        ranked = []
        for info in infos:
            rank = match_rank(query, info.title, display_path(info.path))
            if rank is not None:
                ranked.append((rank, sort_key(info), info.path, info))
    ranked.sort(key=lambda item: item[:3])
    return [item[3] for item in ranked]


def match_rank(query: str, title: str, path: str) -> int | None:
    """How well a typed ``query`` finds a file, best 0: every word in the
    title (0) or in the title or path (1), or the query's letters in order in
    the title within FUZZY_SPAN times their number of characters (2, fuzzy);
    None: no match. Case-insensitive."""
    words = query.lower().split()
    if not words:
        return 0
    title, path = title.lower(), path.lower()
    if all(w in title for w in words):
        return 0
    if all(w in title or w in path for w in words):
        return 1
    letters = "".join(words)
    return 2 if _fuzzy_span(letters, title, FUZZY_SPAN * len(letters)) is not None else None


def _fuzzy_span(letters: str, text: str, limit: int) -> int | None:
    """The length of the shortest stretch of ``text`` holding ``letters`` in
    order, if one is at most ``limit`` long; else None."""
    best = None
    start = text.find(letters[0])
    while start >= 0:
        end = start
        for char in letters[1:]:  # the earliest end from this start: take each letter as soon as it comes
            end = text.find(char, end + 1, start + limit)
            if end < 0:
                break
        else:
            span = end - start + 1
            if best is None or span < best:
                best = span
                limit = span  # only a shorter one matters now
        start = text.find(letters[0], start + 1)
    return best
