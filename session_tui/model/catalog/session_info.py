"""One session file as the picker shows it: what its head and tail say."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..reading import own_writes
from ..reading.source import is_url

if TYPE_CHECKING:  # pragma: no cover
    from ..session.live_rule import Decision

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
    answered: bool = False  # its last entry is an answer without calls (the turn is done)

    @property
    def last_activity(self) -> float:
        """When the agent last wrote the session, as its live state tells it
        (``model.session.last_write.last_written``): its last entry's time
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
        return min(mtime, self.last_time) if self.last_time else None  # (no entry time: as last_write.last_written)

    def state(self, now: float | None = None, stuck_after: float | None = None) -> Decision:
        """The agent's state by the live state's one rule (``live_rule.judge``,
        as the session view and ``check`` decide it), from what the head and
        tail tell: how the file ends (calls without a result, an answer, a
        turn to answer, nothing yet), a torn line, the agent's last write,
        session-tui's own last edit and its writer's liveness."""
        return self._judged(now, stuck_after)[0]

    def _judged(self, now: float | None, stuck_after: float | None) -> tuple[Decision, bool | None]:
        """(the state, whether its writer lives: None, cannot tell)."""
        from ..session.live_rule import Tail, judge  # (not for a search)
        from ..session.writer_liveness import UNKNOWN, file_liveness, head_cwd
        from ..settings import STUCK_AFTER

        now = time.time() if now is None else now
        ours = None if is_url(self.path) else own_writes.own_write_for(self.path, self.size, self.mtime_ns)
        if self.known and self.exact and not self.entries:
            tail = Tail.EMPTY  # (its time, the file's own: as ``live_state``)
            written: float | None = ours.agent_written if ours is not None else self.mtime_ns / 1e9
        else:
            tail = Tail.CALLS if self.dangling else Tail.ANSWER if self.answered else Tail.TURN
            written = self.written
        if not self.known or not self.format or is_url(self.path):
            liveness = UNKNOWN
        else:
            liveness = file_liveness(self.path, self.format, written, lambda: head_cwd(self.path))
        stuck_after = STUCK_AFTER if stuck_after is None else stuck_after
        torn_at = self.mtime_ns / 1e9 if self.torn else None
        return judge(tail, written, now, liveness, stuck_after, torn_at=torn_at, ours=ours), liveness.alive

    def running(self, now: float | None = None, stuck_after: float | None = None) -> bool:
        """Its last calls have no result yet and its writer runs (or, that
        unknown, the agent wrote within ``stuck_after``): they run."""
        return self.dangling and _runs(self.state(now, stuck_after))

    def crashed(self, now: float | None = None, stuck_after: float | None = None) -> bool:
        """The one rule says its run crashed (``crashed (process gone)``,
        ``writer gone``, ``torn line``, as the session view and ``check``
        say it); not a session that simply ended (idle, or ``stopped`` by
        the time rule where its writer cannot be told)."""
        return _crashed(self.state(now, stuck_after))

    def problems(self, now: float | None = None, stuck_after: float | None = None) -> list[str]:
        """Short labels of what is wrong, worst first (a call still running is not)."""
        return self._problems(self.dangling and self.running(now, stuck_after))

    def _problems(self, running: bool) -> list[str]:
        out = []
        if self.error:
            out.append(self.error)
        if self.dangling and not running:
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
        crashed = not stuck and not self.torn and self.known and bool(self.format) and self.crashed(now, stuck_after)
        return (
            8 * bool(self.error)
            + 4 * (stuck or crashed)
            + 4 * self.torn
            + 4 * len(self.damage)
            + min(self.bad_lines, 3)
        )

    def live(self, now: float | None = None, stuck_after: float | None = None) -> bool:
        """An agent may be writing it now: its state is live (running,
        answering, waiting for you) by the one rule; where its writer's
        liveness cannot be told, only while it wrote in the last
        LIVE_SECONDS or its calls still run (a copy of an old session,
        told by its last entry's time, is not live)."""
        now = time.time() if now is None else now
        return self._lives(now, *self._judged(now, stuck_after))

    def _lives(self, now: float, decided: Decision, alive: bool | None) -> bool:
        from ..session.live_rule import Activity

        if decided.activity is Activity.RUNNING:
            return True
        if alive is None and now - self.last_activity >= LIVE_SECONDS:  # (quiet, and nothing says it runs)
            return False
        return decided.activity in (Activity.ANSWERING, Activity.WAITING)

    def badge(self, now: float | None = None, stuck_after: float | None = None) -> str:
        """The picker's word for its agent: ``running`` (its calls run),
        ``live`` (an agent may be writing it), ``crashed`` (by the one rule,
        as the session view says it), else nothing (a session that ended):
        ``running``, ``live`` and ``crashed`` of one judgement."""
        now = time.time() if now is None else now
        return self._badge(now, *self._judged(now, stuck_after))

    def row(self, now: float, stuck_after: float | None = None) -> tuple[list[str], str]:
        """A picker row's ``problems`` and ``badge``, the one rule asked once."""
        badge = self._badge(now, *self._judged(now, stuck_after))
        return self._problems(badge == "running"), badge

    def _badge(self, now: float, decided: Decision, alive: bool | None) -> str:
        """``badge`` of one judgement: ``running``, ``live`` and ``crashed`` asked of it in turn."""
        if self.dangling and _runs(decided):
            return "running"
        if self._lives(now, decided, alive):
            return "live"
        if self.known and self.format and _crashed(decided):
            return "crashed"
        return ""


def _runs(decided: Decision) -> bool:
    from ..session.live_rule import Activity

    return decided.activity is Activity.RUNNING


def _crashed(decided: Decision) -> bool:
    from ..session.live_rule import GONE, Activity

    return decided.activity is Activity.STOPPED and decided.inferred in GONE


def is_subagent(path: str) -> bool:
    """A Claude Code sub-agent transcript: ``<id>/subagents/agent-*.jsonl``."""
    return os.path.basename(os.path.dirname(path)) == "subagents" and os.path.basename(path).startswith("agent-")


def parent_of(path: str) -> str | None:
    """The session a Claude Code sub-agent transcript belongs to: ``<id>/subagents/agent-*.jsonl`` → ``<id>.jsonl``."""
    if not is_subagent(path):
        return None
    return os.path.dirname(os.path.dirname(path)) + ".jsonl"
