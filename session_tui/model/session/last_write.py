"""When the agent last wrote a session's file, as far as it can be told:
never session-tui's own edit (``reading.own_writes`` remembers those), and
never the mtime alone where a copy or a checkout could have set it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..entries.view import parse_time
from ..reading import own_writes
from ..reading.records import BadLine

if TYPE_CHECKING:  # pragma: no cover
    from .session import Session


def file_written(session: Session, own: bool = True) -> float | None:
    """The file's mtime; ``own``: before session-tui's own last write when the file is as that left it."""
    if session.remote:
        return session.stat().mtime_ns / 1e9
    try:
        st = os.stat(session.files[-1])
    except OSError:
        return None
    if own:
        ours = own_writes.own_write(session.files[-1], st)
        if ours is not None:
            return ours.agent_written
    return st.st_mtime_ns / 1e9


def last_written(session: Session) -> float | None:
    """When the agent last wrote the file, as far as it can be told: while
    the file is as session-tui's own last write left it, when the agent had
    written it before that (``reading.own_writes``); else its mtime, or its
    last entry's time when that is earlier (a copy, a checkout or a touch
    makes an old session look new; an agent writes its entries as they
    happen), or when this session saw it grow. None for a file whose entries
    record no time and that was not seen growing: its mtime alone cannot
    tell an agent at work from a fresh copy."""
    if not session.remote:
        ours = own_writes.own_write(session.files[-1])
        if ours is not None:
            return ours.agent_written
    seen = session.grew_at
    mtime = session.stat().mtime_ns / 1e9
    count = session.tree.count
    stamp = None
    if count:
        try:
            stamp = parse_time(session.format.view(session.record(count - 1)).time)
        except (OSError, ValueError, BadLine):  # (BadLine: the file replaced under it, not yet reloaded)
            stamp = None
    told = min(mtime, stamp) if stamp is not None else None
    if seen is not None:
        return max(seen, told) if told is not None else seen
    return told
