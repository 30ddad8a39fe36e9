"""One session file as the picker shows it: what its head and tail say."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..reading import own_writes
from ..reading.source import is_url

if TYPE_CHECKING:  # pragma: no cover
    from ..session.live_state import Decision

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
        """When the agent last wrote the session, as its live state tells it
        (``model.session.live_state.last_written``): its last entry's time
        when earlier than the file's (a copied or touched file's mtime says
        nothing of that), the time before session-tui's own last edit while
        the file is as that left it; else its mtime."""
        written = self.written
        return written if written is not None else self.mtime_ns / 1e9

    @property
    def written(self) -> float | None:
        """The agent's last write (None: a file whose entries record no time:
        its mtime alone cannot tell an agent at work from a fresh copy)."""
        if not is_url(self.path):
            ours, agent = own_writes.agent_written_for(self.path, self.size, self.mtime_ns)
            if ours:
                return agent
        mtime = self.mtime_ns / 1e9
        return min(mtime, self.last_time) if self.last_time else None  # (no entry time: as live_state.last_written)

    def state(self, now: float | None = None, stuck_after: float | None = None) -> Decision:
        """The agent's state by the live state's one rule (its calls without
        a result; its writer's liveness, where this machine can tell; the
        time rule), as far as the head and tail tell (an answer or a turn
        cut off are not told apart here: only whether it may be writing)."""
        from ..session.live_state import Tail, decide, default_stuck_after  # (not for a search)
        from ..session.writer_liveness import UNKNOWN, file_liveness

        now = time.time() if now is None else now
        written = self.written
        if not self.known or not self.format or is_url(self.path):
            liveness = UNKNOWN
        else:
            liveness = file_liveness(self.path, self.format, written)
        tail = Tail.CALLS if self.dangling else Tail.ANSWER
        stuck_after = default_stuck_after() if stuck_after is None else stuck_after
        return decide(tail, written, now, liveness, stuck_after, LIVE_SECONDS)

    def running(self, now: float | None = None, stuck_after: float | None = None) -> bool:
        """Its last calls have no result yet and its writer runs (or, that
        unknown, the agent wrote within ``stuck_after``): they run."""
        from ..session.live_state import Activity

        if not self.dangling or not self.last_time:  # no entry time: the file's own cannot tell an agent from a copy
            return False
        return self.state(now, stuck_after).activity is Activity.RUNNING

    def problems(self, now: float | None = None, stuck_after: float | None = None) -> list[str]:
        """Short labels of what is wrong, worst first (a call still running is not)."""
        out = []
        if self.error:
            out.append(self.error)
        if self.dangling and not self.running(now, stuck_after):
            out.append("call without result")
        if self.torn:
            out.append("torn")
        if self.bad_lines:
            out.append(f"{self.bad_lines} bad line{'s' if self.bad_lines > 1 else ''}")
        out.extend(self.damage)
        return out

    def severity(self, now: float | None = None, stuck_after: float | None = None) -> int:
        """How much is wrong, for sorting: a call without a result or a torn
        line (a crash) outweighs damaged lines."""
        stuck = self.dangling and not self.running(now, stuck_after)
        return 8 * bool(self.error) + 4 * stuck + 4 * self.torn + 4 * len(self.damage) + min(self.bad_lines, 3)

    def live(self, now: float | None = None, stuck_after: float | None = None) -> bool:
        """An agent may be writing it now: its writer runs, or (that unknown)
        it wrote in the last LIVE_SECONDS (by its last entry's time when
        earlier than the file's: a copy of an old session is not live)."""
        from ..session.live_state import Activity

        now = time.time() if now is None else now
        if not self.dangling and now - self.last_activity >= LIVE_SECONDS:  # (idle, whatever its writer does)
            return False
        return self.state(now, stuck_after).activity in (Activity.RUNNING, Activity.ANSWERING, Activity.WAITING)


def is_subagent(path: str) -> bool:
    """A Claude Code sub-agent transcript: ``<id>/subagents/agent-*.jsonl``."""
    return os.path.basename(os.path.dirname(path)) == "subagents" and os.path.basename(path).startswith("agent-")


def parent_of(path: str) -> str | None:
    """The session a Claude Code sub-agent transcript belongs to: ``<id>/subagents/agent-*.jsonl`` → ``<id>.jsonl``."""
    if not is_subagent(path):
        return None
    return os.path.dirname(os.path.dirname(path)) + ".jsonl"
