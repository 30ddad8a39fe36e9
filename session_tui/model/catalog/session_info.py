"""One session file as the picker shows it: what its head and tail say."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

LIVE_SECONDS = 5.0  # a file written this recently is live


@dataclass(slots=True)
class SessionInfo:
    """One session file as the picker shows it. Until ``known``, only the
    path, size and modification time are."""

    path: str
    size: int
    mtime_ns: int
    known: bool = False
    format: str | None = None  # None: not a session (see ``error``)
    title: str = ""  # a title record, a sidecar title or the first user prompt's first line
    entries: int = 0
    exact: bool = True  # False: ``entries`` is estimated from the head and tail
    bad_lines: int = 0  # in the head and tail
    torn: bool = False  # the last line is incomplete
    dangling: bool = False  # the last records are tool calls without results
    error: str | None = None  # why the file is not readable as a session
    subagent: bool = False  # a Claude Code sub-agent transcript (<id>/subagents/agent-*.jsonl)
    damage: list[str] = field(default_factory=list)  # structural problems seen: "duplicate id", "missing parent", …
    fork: bool = False  # forked from another session (its header or first records say so)
    last_time: float = 0.0  # the last entry's time (epoch seconds); 0: none recorded

    @property
    def last_activity(self) -> float:
        """When the session was last written to, by its last entry's time
        (a copied or touched file's mtime says nothing of that), else its mtime."""
        return self.last_time or self.mtime_ns / 1e9

    @property
    def written(self) -> float:
        """When the file was last written: its mtime, or its last entry's
        time when earlier (as ``live_state.last_written``: a copy is old)."""
        mtime = self.mtime_ns / 1e9
        return min(mtime, self.last_time) if self.last_time else mtime

    def running(self, now: float | None = None) -> bool:
        """Its last calls have no result yet and the file was written within
        the live state's ``stuck_after`` (model.session.live_state): they run."""
        if not self.last_time:  # no entry time: the file's own cannot tell an agent at work from a copy
            return False
        quiet = (time.time() if now is None else now) - self.written
        from ..session.live_state import default_stuck_after  # (not for a search: it lists files only)

        return self.dangling and quiet < default_stuck_after()

    def problems(self, now: float | None = None) -> list[str]:
        """Short labels of what is wrong, worst first (a call still running is not)."""
        out = []
        if self.error:
            out.append(self.error)
        if self.dangling and not self.running(now):
            out.append("call without result")
        if self.torn:
            out.append("torn")
        if self.bad_lines:
            out.append(f"{self.bad_lines} bad line{'s' if self.bad_lines > 1 else ''}")
        out.extend(self.damage)
        return out

    def severity(self, now: float | None = None) -> int:
        """How much is wrong, for sorting: a call without a result or a torn
        line (a crash) outweighs damaged lines."""
        stuck = self.dangling and not self.running(now)
        return 8 * bool(self.error) + 4 * stuck + 4 * self.torn + 4 * len(self.damage) + min(self.bad_lines, 3)

    def live(self, now: float | None = None) -> bool:
        """Written in the last LIVE_SECONDS (by its last entry's time when
        earlier than the file's: a copy of an old session is not live)."""
        return (time.time() if now is None else now) - self.written < LIVE_SECONDS


def is_subagent(path: str) -> bool:
    """A Claude Code sub-agent transcript: ``<id>/subagents/agent-*.jsonl``."""
    return os.path.basename(os.path.dirname(path)) == "subagents" and os.path.basename(path).startswith("agent-")


def parent_of(path: str) -> str | None:
    """The session a Claude Code sub-agent transcript belongs to: ``<id>/subagents/agent-*.jsonl`` → ``<id>.jsonl``."""
    if not is_subagent(path):
        return None
    return os.path.dirname(os.path.dirname(path)) + ".jsonl"
