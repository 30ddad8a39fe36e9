"""What the agent writing a session is doing now, by the one rule every
view uses (``live_rule``: the session view and its status line, the tree's
running rows, ``check``, the picker, the fleet, the store's refusals and
the dialogs), from the whole session.

It reads three things: the session's last entries (a call without a
result the model has not gone past, an answer, a prompt or results being
answered, nothing yet), the agent's last write (its last record's time, or
the file's growth seen by session-tui; never session-tui's own edit, which
``reading.own_writes`` remembers; a copy or a checkout is as old as its
entries) and whether its writer lives, strongest signal first:

1. a process holds the file open for writing (Codex keeps its rollout open);
2. a process of that client runs with the session: its command line names
   the session's id or file, or it runs in the session's recorded working
   directory, started before the agent's last write, and no later session
   of that client in that directory may be its;
3. else it cannot be told (another machine, no ``/proc``, a format no known
   client writes, a client running with some session of that directory):
   only then the time rule, ``stuck_after`` seconds of quiet (the user's
   setting, passed down from ``Settings``; default ``settings.STUCK_AFTER``).

A call awaited while the writer lives is running, however long; once the
writer is gone it is a crash at once (where the OS can tell), as is a turn
cut off mid-answer or a torn last line left for TORN_QUIET seconds.
``inferred`` says how the state was decided.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..entries.view import iso_time, parse_time
from ..errors import SessionError
from ..reading import own_writes
from ..reading.segment import Shape
from ..sanitize import inert_line
from ..settings import STUCK_AFTER
from ..words import ago, clock
from .last_write import file_written, last_written
from .live_rule import GONE, IDLE_AFTER, Activity, Tail, judge
from .writer_liveness import UNKNOWN, Probe, writer_liveness

if TYPE_CHECKING:  # pragma: no cover
    from ..entries.pairing import ToolIssue
    from .session import Session

TAIL_LIMIT = 512  # entries before the leaf looked at for calls still running
TOOLS_SHOWN = 60  # characters of the tools' names in the words


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
    quiet_for: float  # seconds since the agent last wrote the file (inf: cannot be told)
    awaited: tuple[Awaited, ...]  # running while live, stuck or crashed after
    written: float | None = None  # when the agent last wrote it (``last_written``), if it can be told
    since: float | None = None  # when the state began
    inferred: str = ""  # how it was decided: WRITER_OPEN, PROCESS_GONE, TIME_RULE, TORN_LINE, …
    alive: bool | None = None  # whether its writer lives (None: cannot tell)
    stuck_after: float = STUCK_AFTER
    tool_then: str = ""  # the tools awaited before session-tui's own edit, while that state holds

    @property
    def live(self) -> bool:
        return self.activity in (Activity.RUNNING, Activity.ANSWERING, Activity.WAITING)

    @property
    def state(self) -> str:
        return self.activity.state

    @property
    def may_write(self) -> bool:
        """Whether an agent may still write the file: its writer lives, or
        (that unknown) the agent wrote within ``stuck_after``. What the
        store refuses to edit without force, and what a dialog warns of."""
        if self.alive is not None:
            return self.alive
        return self.quiet_for < self.stuck_after

    def tools(self) -> str:
        return ", ".join(dict.fromkeys(a.tool for a in self.awaited)) or self.tool_then

    def running(self) -> set[int]:
        """The entries of calls running now (none once the session is not live)."""
        return {a.entry for a in self.awaited} if self.activity is Activity.RUNNING else set()

    def words(self, now: float | None = None) -> str:
        """``running bash 0:12`` / ``answering`` / ``waiting for you`` /
        ``stuck bash`` / ``crashed (process gone)`` / ``idle 25 min``."""
        now = time.time() if now is None else now
        tools = inert_line(self.tools())[:TOOLS_SHOWN]  # (the tools' names are the file's: hostile)
        if self.activity is Activity.RUNNING:
            started = [a.since for a in self.awaited if a.since is not None]
            return f"running {tools} {clock(now - min(started))}" if started else f"running {tools}"
        if self.activity is Activity.STUCK:
            return f"stuck {tools}".rstrip()
        if self.activity is Activity.STOPPED:
            return f"crashed ({self.inferred})" if self.inferred in GONE else "stopped"
        if self.activity is Activity.IDLE:  # (since when, unknown for a file whose entries record no time)
            return f"idle {ago(self.quiet_for)}" if self.quiet_for != float("inf") else "idle"
        return self.activity.value

    def as_json(self) -> dict[str, object]:
        """``check --json``'s ``agent``: ``{"state", "since", "tool", "inferred"}``."""
        return {
            "state": self.state,
            "since": iso_time(self.since),
            "tool": self.tools() or None,
            "inferred": self.inferred,
        }


# -- the session's side: its entries, its last write, its writer ------------------------------
def live_state(
    session: Session,
    now: float | None = None,
    stuck_after: float | None = None,
    dangling: Sequence[ToolIssue] | None = None,
    idle_after: float = IDLE_AFTER,
    probe: Probe | None = None,
) -> LiveState:
    """The session's state now. Reads the agent's last write, the calls
    without a result (``dangling``, else the session's pairing at its active
    leaf) and the records of those still awaited, and asks ``probe`` (by
    default ``writer_liveness``; ``cannot_tell``: the time rule) whether
    its writer lives."""
    now = time.time() if now is None else now
    stuck_after = STUCK_AFTER if stuck_after is None else stuck_after
    try:
        written = last_written(session)
    except SessionError:  # gone: nothing writes it now
        written = None
    leaf = session.active_leaf()
    awaited: list[Awaited] = []
    if leaf >= 0:
        from .context import tool_issues, tool_name  # (the picker imports this module for its first frame: not these)

        for issue in awaited_calls(session, tool_issues(session)[0] if dangling is None else dangling):
            view = session.format.view(session.record(issue.entry))
            tool = tool_name(session, issue.entry, issue.call_id)
            awaited.append(Awaited(issue.entry, issue.call_id, tool, parse_time(view.time)))
    if leaf < 0:
        tail = Tail.EMPTY
        written = file_written(session)
    elif awaited:
        tail = Tail.CALLS
    else:
        tail = Tail.ANSWER if _turn_done(session, _last_said(session, leaf)) else Tail.TURN
    liveness = UNKNOWN
    try:
        liveness = (writer_liveness if probe is None else probe)(session, written)
    except (SessionError, OSError):
        pass
    torn_at = None
    if session.lines.torn:
        torn_at = file_written(session, own=False)
        torn_at = float("-inf") if torn_at is None else torn_at
    started = min((a.since for a in awaited if a.since is not None), default=None)
    ours = None if session.remote else own_writes.own_write(session.files[-1])
    decided = judge(tail, written, now, liveness, stuck_after, idle_after, started, torn_at, ours)
    quiet = max(0.0, now - written) if written is not None else float("inf")
    return LiveState(
        decided.activity,
        quiet,
        tuple(awaited),
        written,
        decided.since,
        decided.inferred,
        liveness.alive,
        stuck_after,
        tool_then=ours.tool or "" if ours is not None and decided.activity.value == ours.state else "",
    )


def _last_said(session: Session, leaf: int) -> int:
    """The last entry of the conversation at ``leaf``: records the model never
    sees (a leaf pointer of session-tui's, a label) passed over."""
    tree, node = session.tree, leaf
    for _ in range(TAIL_LIMIT):
        if tree.shape[node] & Shape.QUIET == 0 or tree.parent[node] < 0:
            return node
        node = tree.parent[node]
    return leaf


def _turn_done(session: Session, entry: int) -> bool:
    """Whether the client waits for the user after ``entry``: an answer
    without calls, or a record after which the model is not asked
    (``Format.ends_turn``: a turn the user interrupted, a local command)."""
    if session.tree.shape[entry] & (Shape.ROLE_MASK | Shape.CALLS) == Shape.ASSISTANT:
        return True
    try:
        return session.format.ends_turn(session.record(entry))
    except (OSError, SessionError):
        return False


# -- the entries ------------------------------------------------------------------------------
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
