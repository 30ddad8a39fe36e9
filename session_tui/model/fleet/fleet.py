"""The fleet: every session written within a window under some folders,
each kept open and refreshed as its file grows (only the appended bytes are
read), its state observed again when its file changes or when time alone
would change it (a deadline per session: an idle fleet costs nothing)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..catalog.cache import absolute, list_session_files
from ..catalog.session_info import parent_of
from ..entries.view import iso_time
from ..errors import SessionError
from ..formats.opencode.database import changed_database, list_sessions
from ..reading.archive_listing import place_of
from ..reading.archived import shown_url
from ..sanitize import Mask
from ..session.session import Session
from ..session.writer_liveness import cannot_tell, writer_liveness
from ..settings import STUCK_AFTER
from .alerts import alerts_of
from .observe import IDLE_AFTER, AgentState, Observation, ProcessCheck, observe

WINDOW = 7200.0
RECHECK = 2.0  # seconds between two looks at whether the writer of a session mid-turn still lives


@dataclass
class Agent:
    path: str
    format: str
    observed: Observation
    alerts: list[str]
    parent: str | None = None  # the session that spawned this sub-agent
    due: float = float("inf")  # when time alone may change its state
    children: list[str] = field(default_factory=list)

    def key(self) -> tuple[object, ...]:
        return (self.observed.state, self.observed.tool, self.observed.inferred, tuple(self.alerts))

    def as_json(self, event: str, now: float) -> dict[str, Any]:
        """The agent as ``live --json`` prints it; one of the team archive also
        has its ``machine`` (its ``file``: the address, the URL's password masked)."""
        seen = self.observed
        data = {
            "event": event,
            "t": iso_time(now),
            "file": self.path,
            "format": self.format,
            "state": seen.state.value,
            "tool": seen.tool,
            "since": iso_time(seen.since),
            "inferred": seen.inferred,
            "title": seen.title,
            "cwd": seen.cwd,
            "tokens": {"input": seen.input_tokens, "output": seen.output_tokens},
            "context_tokens": seen.context_tokens,
            "context_window": seen.context_window,
            "alerts": list(self.alerts),
        }
        place = place_of(self.path)
        if place is not None:
            data["file"] = shown_url(self.path)
            data["machine"] = place.machine
        return data


class Fleet:
    def __init__(
        self,
        roots: Iterable[str],
        window: float = WINDOW,
        stuck_after: float | None = None,
        idle_after: float = IDLE_AFTER,
        process_check: ProcessCheck | None = writer_liveness,  # None: not asked (the time rule)
        clock: Callable[[], float] = time.time,
        notice: Callable[[str], None] | None = None,
        mask: Mask | None = None,
    ) -> None:
        self.roots = [absolute(root) for root in roots]  # (canonical: the scan's paths and the watch's are the same)
        self.notice = notice  # told once of each folder that cannot be read
        self.mask = mask  # (--redact) what masks a title's secrets before it is cut
        self._unreadable: set[str] = set()
        self.clock = clock  # (a fixed one for pictures of the screen)
        self.window = window
        self.stuck_after = STUCK_AFTER if stuck_after is None else stuck_after
        self.idle_after = idle_after
        self.process_check = process_check
        self.sessions: dict[str, Session] = {}
        self.agents: dict[str, Agent] = {}
        self._sizes: dict[str, int] = {}
        #: files written lately whose last entry is older than the window (a copy, a checkout): size when seen
        self._old: dict[str, int] = {}
        #: ``rows()`` as of the last scan, update or tick: what another thread may read at any time
        self.shown: list[tuple[int, Agent]] = []

    # -- files -----------------------------------------------------------------------
    def scan(self, now: float | None = None) -> list[Agent]:
        """Look at every file under the roots: open those written within
        the window, refresh those whose size changed; the agents whose
        state changed (new ones included)."""
        now = self.clock() if now is None else now
        changed = []
        unreadable: list[str] = []
        listed = list_session_files(self.roots, unreadable)
        for folder in unreadable:
            if folder not in self._unreadable and self.notice is not None:
                self.notice(f"passing over {folder}: permission denied")
            self._unreadable.add(folder)
        for path, size, mtime_ns in listed:
            if mtime_ns / 1e9 < now - self.window and path not in self.sessions:
                continue
            if path in self.sessions and self._sizes.get(path) == size or self._old.get(path) == size:
                continue
            found = self._look(path, now, size)
            if found is not None:
                changed.append(found)
        present = {path for path, _, _ in listed}
        for gone in [p for p in self.sessions if p not in present]:
            self._drop(gone)
        self.shown = self.rows()
        return changed

    def update(self, paths: Iterable[str], now: float | None = None) -> list[Agent]:
        """These files changed (a watch said so): refresh and observe them."""
        now = self.clock() if now is None else now
        changed = []
        for path in dict.fromkeys(paths):
            db = changed_database(path)
            if db is not None:  # (its sessions whose rows changed: only they differ in size)
                for name, size, _ in list_sessions(db):
                    found = self._look(name, now, size) if self._sizes.get(name) != size else None
                    if found is not None:
                        changed.append(found)
                continue
            if not path.endswith(".jsonl"):
                continue
            try:
                size = os.stat(path).st_size
            except OSError:
                if path in self.sessions:
                    self._drop(path)
                continue
            found = self._look(path, now, size)
            if found is not None:
                changed.append(found)
        self.shown = self.rows()
        return changed

    def tick(self, now: float | None = None) -> list[Agent]:
        """Observe again the sessions whose state time alone may have
        changed; drop those out of the window."""
        now = self.clock() if now is None else now
        changed = []
        dropped = False
        for path, agent in list(self.agents.items()):
            written = agent.observed.written
            if written is not None and written < now - self.window:
                self._drop(path)
                dropped = True
                continue
            if agent.due <= now:
                found = self._observe(path, now)
                if found is not None:
                    changed.append(found)
        if changed or dropped:
            self.shown = self.rows()
        return changed

    # -- one session ---------------------------------------------------------------------
    def _look(self, path: str, now: float, size: int) -> Agent | None:
        session = self.sessions.get(path)
        try:
            if session is None:
                session = Session(path)
                self.sessions[path] = session
            session.refresh()
        except (SessionError, OSError):
            self._drop(path)
            return None
        self._sizes[path] = size
        return self._observe(path, now)

    def _observe(self, path: str, now: float) -> Agent | None:
        """Observe ``path`` again; the agent if its state, tool or alerts changed."""
        session = self.sessions[path]
        try:
            seen = observe(
                session, now, self.stuck_after, self.idle_after, self.process_check or cannot_tell, self.mask
            )
        except (SessionError, OSError):
            return None
        finally:
            session.close()  # (a descriptor per session would run out: reopened at the next look)
        if seen.written is not None and seen.written < now - self.window:  # a copy of an old session is not live
            size = self._sizes.get(path)
            self._drop(path)
            if size is not None:
                self._old[path] = size
            return None
        old = self.agents.get(path)
        agent = Agent(path, session.format.name, seen, alerts_of(seen, now), parent_of(path))
        agent.due = self._due(agent, session, now)
        self.agents[path] = agent
        return agent if old is None or old.key() != agent.key() else None

    def _due(self, agent: Agent, session: Session, now: float) -> float:
        """When time alone may change ``agent``'s state (inf: only a write will)."""
        seen = agent.observed
        written = seen.written if seen.written is not None else now
        deadlines = []
        if seen.state in (AgentState.WORKING, AgentState.WAITING, AgentState.TOOL, AgentState.STUCK):
            deadlines.append(written + self.idle_after)
        if seen.state is AgentState.WORKING:
            deadlines.append(written + 2.0)  # an answer settles into waiting
        if seen.state in (AgentState.TOOL, AgentState.WORKING):
            deadlines.append(written + self.stuck_after)  # (the time rule, where the writer cannot be told)
        if seen.state in (AgentState.TOOL, AgentState.WORKING, AgentState.STUCK) and self.process_check is not None:
            deadlines.append(now + RECHECK)  # does its writer still live?
        if session.lines.torn and seen.state is not AgentState.CRASHED:
            deadlines.append(now + 1.0)  # (the fragment's quiet is the file's: looked at again in a second)
        if agent.alerts and "compaction" in agent.alerts and seen.compacted_at is not None:
            deadlines.append(seen.compacted_at + 60.0)
        return min((d for d in deadlines if d > now), default=float("inf"))

    def _drop(self, path: str) -> None:
        session = self.sessions.pop(path, None)
        if session is not None:
            session.close()
        self.agents.pop(path, None)
        self._sizes.pop(path, None)

    # -- the rows -------------------------------------------------------------------------
    def rows(self) -> list[tuple[int, Agent]]:
        """(depth, agent), newest activity first, sub-agents under their parent."""

        def newest(agent: Agent) -> float:
            return -(agent.observed.written or 0.0)

        tops = sorted((a for a in self.agents.values() if a.parent not in self.agents), key=newest)
        children: dict[str, list[Agent]] = {}
        for agent in self.agents.values():
            if agent.parent in self.agents:
                children.setdefault(agent.parent, []).append(agent)
        out: list[tuple[int, Agent]] = []
        for top in tops:
            out.append((0, top))
            out.extend((1, child) for child in sorted(children.get(top.path, []), key=newest))
        return out

    def close(self) -> None:
        for path in list(self.sessions):
            self._drop(path)
