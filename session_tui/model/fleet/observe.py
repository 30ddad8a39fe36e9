"""The state of one agent session, from its last entries and its file's time.

- ``working``: the last entry is a prompt or a tool result: the model is answering;
- ``tool``: a call without a result, the file written less than ``stuck_after``
  ago (or held open by its writer): the tool runs, or waits for the user's
  approval (the file cannot tell them apart);
- ``stuck``: the same, quiet for ``stuck_after`` or more;
- ``waiting``: the last entry is a final answer: the agent waits for the user;
- ``crashed``: the file ends in a torn line and nothing was written for
  TORN_QUIET seconds; or a call is left without a result and no process of
  that agent runs in the session's directory (where the OS tells: inferred);
- ``idle``: nothing written for ``idle_after``.

None of the three clients records the end of a session in its file, so no
state says "ended".
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from ..entries.view import call_summary, parse_time
from ..errors import SessionError
from ..reading.segment import Shape
from ..resume.clients import client_for, recorded_cwd
from ..sanitize import shown_masked
from ..session.live_state import ANSWER_SETTLE, Activity, default_stuck_after, live_state
from ..session.problems import find_problems
from ..session.session import Session
from ..session.usage import session_usage
from ..usage.over_time import last_context
from ..usage.prices import context_window, provider_for

TORN_QUIET = 5.0  # seconds a torn last line may stay before the run counts as crashed
IDLE_AFTER = 900.0
GONE_AFTER = 10.0  # seconds of quiet before a call without result asks whether its agent still runs
TAIL_BYTES = 64 << 10  # the end of the file looked at for the model's name
LOOK_BACK = 200  # entries before the leaf looked at for usage, failures, a compaction
_MODEL = re.compile(rb'"model"\s*:\s*"([^"\\]{1,100})"')
#: the programs of each client, as a process table shows them
PROGRAMS = {"claude": ("claude",), "codex": ("codex",), "pi": ("pi",)}

#: ``(cwd, programs)`` → whether such a process runs (None: cannot tell)
ProcessCheck = Callable[[str, tuple[str, ...]], "bool | None"]


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
    inferred: bool  # crashed: inferred from the agent's process being gone
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
        if self.state is AgentState.CRASHED and self.inferred:
            return "crashed (inferred)"
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
) -> Observation:
    """The session's state now. Reads the file's time and a few records at
    the end of its active branch; what depends only on the entries (tokens,
    problems, the title, the model) is worked out once per refresh."""
    now = time.time() if now is None else now
    live = live_state(session, now=now, stuck_after=stuck_after)
    written, quiet = live.written, live.quiet_for
    base = written if written is not None else now
    leaf = session.active_leaf()
    tree = session.tree
    client = client_for(session.format.name)
    cwd = recorded_cwd(client, session, leaf) if client is not None and leaf >= 0 else None
    tool, doing, inferred = None, "", False
    since: float | None
    torn_quiet = _file_quiet(session, now) if session.lines.torn else 0.0  # (the fragment is being written now)
    if torn_quiet >= TORN_QUIET:
        state, since = AgentState.CRASHED, now - torn_quiet + TORN_QUIET
    elif live.awaited:
        first = live.awaited[0]
        tool = ", ".join(dict.fromkeys(a.tool for a in live.awaited))
        doing = _doing(session, first.entry, first.call_id, first.tool)
        gone = (
            client is not None
            and cwd is not None
            and process_check is not None
            and quiet >= GONE_AFTER
            and process_check(cwd, PROGRAMS[client.name]) is False
        )
        if gone:
            state, since, inferred = AgentState.CRASHED, base, True
        elif live.activity is Activity.RUNNING:
            started = [a.since for a in live.awaited if a.since is not None]
            state, since = AgentState.TOOL, min(started) if started else base
        else:
            state, since = AgentState.STUCK, base + (default_stuck_after() if stuck_after is None else stuck_after)
    elif leaf < 0:  # a session just begun (a header, no entry yet): the file's own time says
        begun = _file_quiet(session, now)
        state, since = (AgentState.WORKING, now - begun) if begun < idle_after else (AgentState.IDLE, None)
    elif quiet >= idle_after:
        state, since = AgentState.IDLE, base + idle_after
    elif leaf >= 0 and tree.shape[leaf] & (Shape.ROLE_MASK | Shape.CALLS) == Shape.ASSISTANT and quiet >= ANSWER_SETTLE:
        state, since = AgentState.WAITING, base
    else:
        state, since = AgentState.WORKING, base
    kept = _kept(session)
    usage = session_usage(session)
    context = last_context(session, leaf)
    return Observation(
        state=state,
        since=since,
        tool=tool,
        doing=doing,
        inferred=inferred,
        written=written,
        title=kept.title,
        cwd=cwd,
        model=kept.model,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        context_tokens=context,
        context_window=context_window(kept.model, provider_for(None, session.format.name)) if kept.model else None,
        failed_in_a_row=_failed_in_a_row(session, leaf),
        compacted_at=_compacted_at(session, leaf),
        problems=kept.problems,
    )


def _file_quiet(session: Session, now: float) -> float:
    """Seconds since the file's bytes last changed (its mtime)."""
    try:
        return max(0.0, now - session.stat().mtime_ns / 1e9)
    except SessionError:
        return float("inf")


def _kept(session: Session) -> _Kept:
    kept = session.memo.of(_Kept)
    if kept.refreshes != session.refreshes:
        kept.refreshes = session.refreshes
        kept.problems = len(find_problems(session, light=True))
        kept.title = kept.title or _title(session)
        kept.model = _model(session) or kept.model
    return kept


def _title(session: Session) -> str:
    named = session.title()
    if named:
        return " ".join(shown_masked(named).split())[:120]
    tree, view = session.tree, session.format.view
    for entry in range(min(tree.count, 64)):
        shape = tree.shape[entry]
        if shape & Shape.ROLE_MASK == Shape.USER and not shape & (Shape.RESULT | Shape.QUIET):
            text = " ".join(shown_masked(view(session.record(entry)).text).split())
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
