"""One agent session as the fleet shows it: its state (the session's live
state, ``model.session.live_state``: the one rule every view uses), what it
does, its tokens, context and alerts.

- ``working``: the model has a prompt or results to answer;
- ``tool``: a call without a result while its writer lives (or, that
  unknown, within ``stuck_after``): the tool runs, or waits for the user's
  approval (the file cannot tell them apart);
- ``stuck``: the same, quiet for ``stuck_after`` or more, its writer's
  liveness unknown;
- ``waiting``: the last entry is a final answer: the agent waits for the user;
- ``crashed``: cut off mid-turn: its writer gone, or a torn line left
  (``inferred`` says how);
- ``idle``: an answer, then quiet for ``idle_after``.

None of the three clients records the end of a session in its file, so no
state says "ended".
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from enum import StrEnum

from ..entries.view import call_summary, parse_time
from ..reading.segment import Shape
from ..sanitize import Mask
from ..session.live_rule import GONE, IDLE_AFTER
from ..session.live_state import live_state
from ..session.problems import find_problems
from ..session.session import Session
from ..session.writer_liveness import Probe
from ..usage.over_time import last_response, window_at
from ..usage.prices import context_window, provider_for
from ..usage.totals import session_usage

TAIL_BYTES = 64 << 10  # the end of the file looked at for the model's name
LOOK_BACK = 200  # entries before the leaf looked at for usage, failures, a compaction
_MODEL = re.compile(rb'"model"\s*:\s*"([^"\\]{1,100})"')
__all__ = ["IDLE_AFTER", "AgentState", "Observation", "ProcessCheck", "observe"]

#: ``(session, the agent's last write)`` → whether its writer lives (``writer_liveness.writer_liveness``)
ProcessCheck = Probe


class AgentState(StrEnum):
    WORKING = "working"
    TOOL = "tool"
    STUCK = "stuck"
    WAITING = "waiting"
    CRASHED = "crashed"
    IDLE = "idle"


@dataclass(frozen=True)
class Observation:
    state: AgentState
    since: float | None  # when the state began (epoch seconds), as far as the file tells
    tool: str | None  # the tool running (or stuck)
    doing: str  # ``Bash: pytest -q``
    inferred: str  # how the state was decided (``live_state``: "process gone", "time rule", …)
    written: float | None
    title: str
    cwd: str | None
    model: str | None
    input_tokens: int
    output_tokens: int
    context_tokens: int | None  # the last response's input + cache tokens
    context_window: int | None
    failed_in_a_row: int  # failed tool results at the end of the branch, none answered well since
    compacted_at: float | None  # the last summary or compaction's time
    problems: int

    @property
    def fill(self) -> float | None:
        if self.context_tokens is None or not self.context_window:
            return None
        return self.context_tokens / self.context_window

    def state_words(self) -> str:
        if self.state is AgentState.TOOL:
            return "tool or approval"
        if self.state is AgentState.CRASHED and self.inferred in GONE:  # (said as the session view says it)
            return f"crashed ({self.inferred})"
        return self.state.value


@dataclass
class _Kept:
    """What an observation keeps between calls on one session (its memo)."""

    refreshes: int = -1
    problems: int = 0
    title: str = ""
    model: str | None = None


def observe(
    session: Session,
    now: float | None = None,
    stuck_after: float | None = None,
    idle_after: float = IDLE_AFTER,
    process_check: ProcessCheck | None = None,
    mask: Mask | None = None,
) -> Observation:
    """The session's state now (``live_state``, its writer's liveness asked
    of ``process_check``; None: as ``live_state`` asks it, ``writer_liveness``;
    ``cannot_tell``: not asked, the time rule decides). Reads a
    few records at the end of its active branch; what depends only on the
    entries (tokens, problems, the title, the model) is worked out once per
    refresh. ``mask`` (``--redact``): the title's secrets masked before it is cut."""
    now = time.time() if now is None else now
    live = live_state(session, now=now, stuck_after=stuck_after, idle_after=idle_after, probe=process_check)
    leaf = session.active_leaf()
    client = session.format.client
    cwd = client.recorded_cwd(session, leaf) if client is not None and leaf >= 0 else None
    tool, doing = None, ""
    if live.awaited:
        first = live.awaited[0]
        tool = live.tools()
        doing = _doing(session, first.entry, first.call_id, first.tool)
    kept = _kept(session, mask)
    usage = session_usage(session)
    last = last_response(session, leaf)
    if last is not None:  # (its window: the one its client counts against, else its model's)
        window = window_at(session, last[0], kept.model)
    else:
        window = context_window(kept.model, provider_for(None, session.format.name)) if kept.model else None
    return Observation(
        state=AgentState(live.state),
        since=live.since,
        tool=tool,
        doing=doing,
        inferred=live.inferred,
        written=live.written,
        title=kept.title,
        cwd=cwd,
        model=kept.model,
        input_tokens=usage.sent,
        output_tokens=usage.output,
        context_tokens=last[1] if last is not None else None,
        context_window=window,
        failed_in_a_row=_failed_in_a_row(session, leaf),
        compacted_at=_compacted_at(session, leaf),
        problems=kept.problems,
    )


def _kept(session: Session, mask: Mask | None) -> _Kept:
    kept = session.memo.of(_Kept)
    if kept.refreshes != session.refreshes:
        kept.refreshes = session.refreshes
        kept.problems = len(find_problems(session, light=True))
        kept.title = kept.title or _title(session, mask)
        kept.model = _model(session) or kept.model
    return kept


def _title(session: Session, mask: Mask | None) -> str:
    named = session.title()
    if named:
        return " ".join((named if mask is None else mask(named)).split())[:120]
    tree, view = session.tree, session.format.view
    for entry in range(min(tree.count, 64)):
        shape = tree.shape[entry]
        if shape & Shape.ROLE_MASK == Shape.USER and not shape & (Shape.RESULT | Shape.QUIET):
            text = view(session.record(entry)).text
            text = " ".join((text if mask is None else mask(text)).split())  # masked whole, then cut
            if text and not text.startswith("<"):
                return text[:120]
    return ""


def _model(session: Session) -> str | None:
    """The last model the file names (its end read, whatever the format)."""
    end = session.lines.end
    if not end:
        return None
    tail = session.pread(min(end, TAIL_BYTES), end - min(end, TAIL_BYTES))
    found = _MODEL.findall(tail)
    names = [m.decode("utf-8", "replace") for m in found if not m.startswith(b"<")]
    return names[-1] if names else None


def _doing(session: Session, entry: int, call_id: str, name: str) -> str:
    calls = session.format.view(session.record(entry)).tool_calls
    call = next((c for c in calls if c.id == call_id), None)
    summary = call_summary(call.name, call.arguments, 60) if call is not None else ""
    return f"{name}: {summary}" if summary else name


def _path_back(session: Session, leaf: int) -> list[int]:
    out: list[int] = []
    node = leaf
    while node >= 0 and len(out) < LOOK_BACK:
        out.append(node)
        node = session.tree.parent[node]
    return out


def _failed_in_a_row(session: Session, leaf: int) -> int:
    if not session.format.marks_errors:
        return 0
    shapes, view = session.tree.shape, session.format.view
    count = 0
    for entry in _path_back(session, leaf):
        if not shapes[entry] & Shape.RESULT:
            continue
        if not view(session.record(entry)).is_error:
            break
        count += 1
    return count


def _compacted_at(session: Session, leaf: int) -> float | None:
    shapes, view = session.tree.shape, session.format.view
    for entry in _path_back(session, leaf):
        if shapes[entry] & Shape.SUMMARY:
            return parse_time(view(session.record(entry)).time)
    return None
