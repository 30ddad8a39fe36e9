"""What the agent writing a session is doing now, told from the file alone.

One rule, used by every screen and by ``check``: a session is *live* while
its file was written in the last ``stuck_after`` seconds (by its mtime, or
its last entry's time when earlier: a copy is not live; a file whose entries
record no time counts only when seen growing) (default 300, or
``$SESSION_TUI_STUCK_AFTER``), or, with calls awaited, while a process holds
it open for writing where the OS shows it (Linux ``/proc``; Codex keeps its
rollout open while it runs). While
live, a tool call whose result has not come and after which the model has
not gone on is *running*: no problem, drawn with its elapsed time. Once the
file is quiet for longer, such a call is *stuck*: a call without a result,
as in a crashed run.

The activity, for the status line and the fleet view: running a tool,
answering (the model has a prompt or results to answer), waiting for you
(its last entry is an answer), idle (an answer, then quiet) or stopped
(quiet in the middle of a turn: a crash, a kill).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from ..entries.view import parse_time
from ..errors import SessionError
from ..reading import open_writers
from ..reading.segment import Shape

if TYPE_CHECKING:  # pragma: no cover
    from ..entries.pairing import ToolIssue
    from .session import Session

STUCK_AFTER = 300.0  # seconds of quiet after which a call without a result is stuck
STUCK_AFTER_ENV = "SESSION_TUI_STUCK_AFTER"
ANSWER_SETTLE = 2.0  # seconds of quiet after an answer before the agent is waiting for you
TAIL_LIMIT = 512  # entries before the leaf looked at for calls still running


def default_stuck_after() -> float:
    """``$SESSION_TUI_STUCK_AFTER`` if it is a number of seconds, else STUCK_AFTER."""
    try:
        return max(0.0, float(os.environ[STUCK_AFTER_ENV]))
    except (KeyError, ValueError):
        return STUCK_AFTER


class Activity(StrEnum):
    RUNNING = "running"
    ANSWERING = "answering"
    WAITING = "waiting for you"
    IDLE = "idle"
    STOPPED = "stopped"


@dataclass(frozen=True)
class Awaited:
    """A call whose result has not come, the model not gone on since."""

    entry: int
    call_id: str
    tool: str
    since: float | None  # when it was made (epoch seconds), if its record says


@dataclass(frozen=True)
class LiveState:
    activity: Activity
    quiet_for: float  # seconds since the file was last written
    awaited: tuple[Awaited, ...]  # running while live, stuck after
    written: float | None = None  # when it was last written (``last_written``), if it can be told

    @property
    def live(self) -> bool:
        return self.activity in (Activity.RUNNING, Activity.ANSWERING, Activity.WAITING)

    def running(self) -> set[int]:
        """The entries of calls running now (none once the session is not live)."""
        return {a.entry for a in self.awaited} if self.live else set()

    def words(self, now: float | None = None) -> str:
        """``running bash 0:12`` / ``answering`` / ``waiting for you`` / ``idle 25 min`` / ``stopped``."""
        now = time.time() if now is None else now
        if self.activity is Activity.RUNNING:
            names = ", ".join(dict.fromkeys(a.tool for a in self.awaited))
            started = [a.since for a in self.awaited if a.since is not None]
            return f"running {names} {clock(now - min(started))}" if started else f"running {names}"
        if self.activity is Activity.IDLE:  # (since when, unknown for a file whose entries record no time)
            return f"idle {ago(self.quiet_for)}" if self.quiet_for != float("inf") else "idle"
        return self.activity.value


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


def _prompt(shape: int) -> bool:
    return shape & Shape.ROLE_MASK == Shape.USER and not shape & (Shape.RESULT | Shape.QUIET)


def awaited_calls(session: Session, dangling: Sequence[ToolIssue]) -> list[ToolIssue]:
    """The calls of ``dangling`` the model has not gone on from: after each,
    no prompt, and no model step but its own before a result. (A call the
    model went past stays without a result whatever the time.)"""
    if not dangling:
        return []
    tree = session.tree
    leaf = session.active_leaf()
    targets = {d.entry for d in dangling}
    tail: list[int] = []
    node = leaf
    while node >= 0 and len(tail) < TAIL_LIMIT:
        tail.append(node)
        targets.discard(node)
        if not targets:
            break
        node = tree.parent[node]
    tail.reverse()
    where = {entry: k for k, entry in enumerate(tail)}
    steps: dict[int, object] = {}

    def step(entry: int) -> object:
        if entry not in steps:
            steps[entry] = session.format.view(session.record(entry)).step
        return steps[entry]

    out = []
    for issue in dangling:
        k = where.get(issue.entry)
        if k is None:
            continue
        answered_since, gone_on = False, False
        for later in tail[k + 1 :]:
            shape = tree.shape[later]
            if _prompt(shape):
                gone_on = True
            elif shape & Shape.RESULT:
                answered_since = True
            elif shape & Shape.ROLE_MASK == Shape.ASSISTANT and answered_since:
                own = step(issue.entry)
                gone_on = own is None or step(later) != own
            if gone_on:
                break
        if not gone_on:
            out.append(issue)
    return out


def held_open(session: Session) -> bool:
    """Whether another process holds the file written to open for writing
    (False where the OS does not tell, or for a remote file)."""
    if session.remote:
        return False
    try:
        st = os.stat(session.files[-1])
    except OSError:
        return False
    return bool(open_writers.writers_of(st.st_dev, st.st_ino))


def last_written(session: Session) -> float | None:
    """When the file was last written, as far as it can be told: its mtime,
    or its last entry's time when that is earlier (a copy, a checkout or a
    touch makes an old session look new; an agent writes its entries as
    they happen), or when this session saw it grow. None for a file whose
    entries record no time and that was not seen growing: its mtime alone
    cannot tell an agent at work from a fresh copy."""
    seen = session.grew_at
    mtime = session.stat().mtime_ns / 1e9
    count = session.tree.count
    stamp = None
    if count:
        try:
            stamp = parse_time(session.format.view(session.record(count - 1)).time)
        except (OSError, ValueError):
            stamp = None
    told = min(mtime, stamp) if stamp is not None else None
    if seen is not None:
        return max(seen, told) if told is not None else seen
    return told


def live_state(
    session: Session,
    now: float | None = None,
    stuck_after: float | None = None,
    dangling: Sequence[ToolIssue] | None = None,
) -> LiveState:
    """The session's activity now. Reads the file's time, the calls without
    a result (``dangling``, else the session's pairing at its active leaf)
    and the records of those still awaited."""
    now = time.time() if now is None else now
    stuck_after = default_stuck_after() if stuck_after is None else stuck_after
    try:
        written = last_written(session)
    except SessionError:  # gone: nothing writes it now
        written = None
    quiet = max(0.0, now - written) if written is not None else float("inf")
    leaf = session.active_leaf()
    awaited: list[Awaited] = []
    if leaf >= 0:
        from .context import tool_issues, tool_name  # (the picker imports this module for its first frame: not these)

        for issue in awaited_calls(session, tool_issues(session)[0] if dangling is None else dangling):
            view = session.format.view(session.record(issue.entry))
            tool = tool_name(session, issue.entry, issue.call_id)
            awaited.append(Awaited(issue.entry, issue.call_id, tool, parse_time(view.time)))
    # the OS is asked only for a quiet file with calls awaited (a long command
    # in a client that keeps its file open); an answer then quiet is idle
    live = quiet < stuck_after or (bool(awaited) and stuck_after > 0 and held_open(session))  # (0: stuck at once)
    answered = leaf >= 0 and session.tree.shape[leaf] & (Shape.ROLE_MASK | Shape.CALLS) == Shape.ASSISTANT
    if live:
        waiting = answered and quiet >= ANSWER_SETTLE  # (a response's calls follow its text a moment later)
        activity = Activity.RUNNING if awaited else Activity.WAITING if waiting else Activity.ANSWERING
    else:
        activity = Activity.IDLE if answered or leaf < 0 else Activity.STOPPED
    return LiveState(activity, quiet, tuple(awaited), written)
