"""The live state's one rule: what the agent is doing, from what a
session's branch ends in, the agent's last write, its writer's liveness
and the thresholds (``decide``), with a torn last line and session-tui's
own last write weighed (``judge``). Every view decides by it: the session
view and ``check`` from the whole session (``live_state``), the picker
from a file's head and tail (``catalog.session_info``), without the
session's reading (its entries' view, its tree) loaded.
"""

from __future__ import annotations

from enum import Enum, StrEnum
from typing import TYPE_CHECKING, NamedTuple

from .writer_liveness import PROCESS_GONE, WRITER_GONE, WRITER_OPEN, Liveness

if TYPE_CHECKING:  # pragma: no cover
    from ..reading.own_writes import OwnWrite

IDLE_AFTER = 900.0  # seconds after an answer the agent counts as idle rather than waiting for you
ANSWER_SETTLE = 2.0  # seconds of quiet after an answer before the agent is waiting for you
TORN_QUIET = 5.0  # seconds a torn last line may stay before the run counts as crashed

TIME_RULE = "time rule"  # the writer's liveness cannot be told: the agent's quiet decides
TORN_LINE = "torn line"
ENTRIES = "entries"  # the entries alone (an answer, an empty session)
GONE = (WRITER_GONE, PROCESS_GONE, TORN_LINE)


class Activity(StrEnum):
    RUNNING = "running"  # a tool call runs (or waits for an approval: the file cannot tell)
    ANSWERING = "answering"  # the model has a prompt or results to answer
    WAITING = "waiting for you"  # its last entry is an answer
    STUCK = "stuck"  # a call quiet past stuck_after, whether its writer lives unknown
    STOPPED = "stopped"  # crashed, killed: cut off in the middle of a turn
    IDLE = "idle"  # an answer, then quiet (or its client gone)

    @property
    def state(self) -> str:
        """The state's name in the JSON outputs (``check --json``'s agent, ``live --json``)."""
        return _STATES[self]


_STATES = {
    Activity.RUNNING: "tool",
    Activity.ANSWERING: "working",
    Activity.WAITING: "waiting",
    Activity.STUCK: "stuck",
    Activity.STOPPED: "crashed",
    Activity.IDLE: "idle",
}


class Tail(Enum):
    """What the session's active branch ends in, for the rule."""

    EMPTY = "empty"  # no entry yet (a header)
    CALLS = "calls"  # calls without a result the model has not gone past
    ANSWER = "answer"  # an answer: the turn is done
    TURN = "turn"  # a prompt, results or a step: the model has to answer


_TAIL_OF_ACTIVITY = {
    Activity.RUNNING: Tail.CALLS,
    Activity.STUCK: Tail.CALLS,
    Activity.ANSWERING: Tail.TURN,
    Activity.STOPPED: Tail.TURN,
    Activity.WAITING: Tail.ANSWER,
    Activity.IDLE: Tail.ANSWER,
}


#: the branch's end that gives each activity (a state remembered across session-tui's own edit)
_TAIL_OF: dict[str, Tail] = {activity.value: tail for activity, tail in _TAIL_OF_ACTIVITY.items()}


class Decision(NamedTuple):
    activity: Activity
    since: float | None  # when the state began (epoch seconds), as far as can be told
    inferred: str  # how it was decided


# -- the rule --------------------------------------------------------------------------------
def decide(
    tail: Tail,
    written: float | None,
    now: float,
    liveness: Liveness,
    stuck_after: float,
    idle_after: float = IDLE_AFTER,
    started: float | None = None,
    torn_quiet: float = 0.0,
) -> Decision:
    """The state, from what the branch ends in (``tail``), the agent's last
    write, its writer's liveness and the thresholds: the one decision.
    ``started``: when the first call awaited was made; ``torn_quiet``:
    seconds the file has ended in a torn line (0: it does not)."""
    quiet = max(0.0, now - written) if written is not None else float("inf")
    alive, how = liveness.alive, liveness.how
    if torn_quiet >= TORN_QUIET and how != WRITER_OPEN:  # (a writer that holds it open is writing the line)
        return Decision(Activity.STOPPED, now - torn_quiet + TORN_QUIET, TORN_LINE)
    if tail is Tail.ANSWER:
        if alive is False:
            return Decision(Activity.IDLE, written, how)
        if quiet < ANSWER_SETTLE:  # (a response's calls follow its text a moment later)
            return Decision(Activity.ANSWERING, written, how or ENTRIES)
        if quiet < idle_after:
            return Decision(Activity.WAITING, written, how or ENTRIES)
        return Decision(Activity.IDLE, None if written is None else written + idle_after, how or ENTRIES)
    if tail is Tail.EMPTY:  # a session just begun: ``written`` is the file's own time
        if alive is True or (alive is None and quiet < idle_after):
            return Decision(Activity.ANSWERING, written, how or ENTRIES)
        return Decision(Activity.IDLE, written, how or ENTRIES)
    calls = tail is Tail.CALLS
    if alive is True:
        return Decision(Activity.RUNNING if calls else Activity.ANSWERING, (started if calls else None) or written, how)
    if alive is False:
        return Decision(Activity.STOPPED, written, how)
    if quiet < stuck_after:
        return Decision(
            Activity.RUNNING if calls else Activity.ANSWERING, (started if calls else None) or written, TIME_RULE
        )
    return Decision(
        Activity.STUCK if calls else Activity.STOPPED, None if written is None else written + stuck_after, TIME_RULE
    )


def judge(
    tail: Tail,
    written: float | None,
    now: float,
    liveness: Liveness,
    stuck_after: float,
    idle_after: float = IDLE_AFTER,
    started: float | None = None,
    torn_at: float | None = None,
    ours: OwnWrite | None = None,
) -> Decision:
    """The state from what was gathered of a session, however it was (the
    session view and ``check`` from the whole session, the picker from its
    head and tail): ``decide``, with a torn last line's quiet (``torn_at``:
    the file's mtime when it ends in one, else None) and session-tui's own
    last write (``ours``, while the file is as that left it) weighed the
    one way for every screen."""
    torn = 0.0
    if torn_at is not None:
        if liveness.alive is not True and written is not None and torn_at - written >= stuck_after:
            # no writer seen and the entries quiet for longer than the stuck rule: a checkout or a copy
            # of a crashed file, fresh by its mtime, crashed all the same (not a line being written now)
            torn_at = written
        torn = max(0.0, now - torn_at)
    decided = decide(tail, written, now, liveness, stuck_after, idle_after, started, torn)
    if ours is not None and ours.state in _TAIL_OF and liveness.alive is not True and ours.state != decided.activity:
        # the file is as session-tui's own edit left it (a leaf moved to a prompt, a call closed): the
        # agent has not written since, so the state is what it was before that edit
        decided = decide(_TAIL_OF[ours.state], written, now, liveness, stuck_after, idle_after, started, torn)
    return decided
