"""Problems found in a session file, as reported by `check` and the UI, and
the notes: what is worth knowing but no problem."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from .context import tool_issues, tool_name
from .live_state import LiveState, live_state

if TYPE_CHECKING:  # pragma: no cover
    from .session import Session


class ProblemKind(StrEnum):
    TORN_TAIL = "torn_tail"
    BAD_LINE = "bad_line"
    MISSING_PARENT = "missing_parent"
    CYCLE = "cycle"
    DUPLICATE_ID = "duplicate_id"
    DANGLING_TOOL_CALL = "dangling_tool_call"
    ORPHAN_TOOL_RESULT = "orphan_tool_result"
    REFUSED_ON_RESUME = "refused_on_resume"

    @property
    def words(self) -> str:
        """The kind as a user says it (the value is the ``check --json`` contract's)."""
        return _WORDS[self]


_WORDS = {
    ProblemKind.TORN_TAIL: "torn last line",
    ProblemKind.BAD_LINE: "bad line",
    ProblemKind.MISSING_PARENT: "missing parent",
    ProblemKind.CYCLE: "cycle",
    ProblemKind.DUPLICATE_ID: "duplicate id",
    ProblemKind.DANGLING_TOOL_CALL: "call without result",
    ProblemKind.ORPHAN_TOOL_RESULT: "result without call",
    ProblemKind.REFUSED_ON_RESUME: "refused on resume",
}


ERROR = "error"  # breaks a resume with the file's own client, or loses data
WARNING = "warning"  # the client copes with it on resume, in its own way (the message says how)


@dataclass(frozen=True, order=True)
class Problem:
    line: int  # 1-based physical line
    kind: ProblemKind
    message: str
    severity: str = ERROR

    def as_json(self) -> dict[str, str | int]:
        return {"kind": self.kind.value, "line": self.line, "message": self.message, "severity": self.severity}


def find_notes(session: Session) -> list[tuple[int, str]]:
    """Things worth knowing that are not problems: ignored pointers,
    summaries that could not be applied. (1-based line, text)."""
    out: list[tuple[int, str]] = []
    if session.format.duplicates_expected:
        out.extend(
            (line + 1, f"{entry_id} repeats an earlier record (a copied prefix): the first copy is shown")
            for line, entry_id in session.tree.duplicates
        )
    out.extend(
        (session.line_of(entry), f"parent {parent_id} is not in this file: shown as a root")
        for entry, parent_id in _missing_parents(session, expected=True)
    )
    out.extend(
        (line + 1, f"title {text!r} is for the conversation ending at {names}, not in this file")
        for line, _rank, text, names in session.titles
        if names is not None and session.find(names) is None
    )
    entry_lines = session.tree.entry_line
    for line, target in session.pointers:  # (no full id index for this; its target is most often just before it)
        if not isinstance(target, str) or not session.tree.has(target, near=bisect_left(entry_lines, line)):
            out.append((line + 1, f"active_leaf pointer to unknown entry {target!r} ignored"))
    leaf = session.active_leaf()
    if leaf >= 0:
        out.extend((line + 1, text) for line, text in session.format.context_notes(session, leaf))
    return sorted(out)


def _missing_parents(session: Session, expected: bool) -> Iterator[tuple[int, str]]:
    """(entry, parent id) of roots whose parent is not in the file: those
    the format expects (``expected``) or the others."""
    for entry, parent_id in session.tree.missing_parents():
        if session.format.expected_root(session.record(entry)) == expected:
            yield entry, parent_id


def find_problems(
    session: Session,
    should_stop: Callable[[], bool] | None = None,
    light: bool = False,
    live: LiveState | None = None,
    stuck_after: float | None = None,
) -> list[Problem]:
    """Every problem, by line. Reads the context at the active leaf;
    ``should_stop`` is polled while it does (raise Cancelled); ``light``:
    see ``context.tool_issues`` (for a one-shot check). A call still running
    (``live``, else the state now: ``live_state``) is no problem."""
    out: list[Problem] = []
    lines = session.lines
    fmt = session.format
    if lines.torn:
        severity, effect = fmt.torn_tail or (ERROR, "")
        out.append(
            Problem(
                len(lines) + 1,
                ProblemKind.TORN_TAIL,
                f"last line is incomplete ({len(lines.torn)} bytes, no newline): not an entry"
                + (f"; {effect}" if effect else ""),
                severity,
            )
        )
    out.extend(Problem(line + 1, ProblemKind.BAD_LINE, reason) for line, reason in session.bad)
    tree = session.tree
    for entry, parent_id in _missing_parents(session, expected=False):
        out.append(
            Problem(
                session.line_of(entry), ProblemKind.MISSING_PARENT, f"parent {parent_id} not found: shown as a root"
            )
        )
    for line, parent_id in tree.cycles:
        out.append(
            Problem(
                line + 1,
                ProblemKind.CYCLE,
                f"parent {parent_id} would close a cycle: link dropped, shown as a root",
            )
        )
    for line, entry_id in tree.duplicates if not session.format.duplicates_expected else ():
        first = tree.find(entry_id)
        where = f" (first on line {session.line_of(first)})" if first is not None else ""
        out.append(
            Problem(line + 1, ProblemKind.DUPLICATE_ID, f"id {entry_id} already used{where}: this record is ignored")
        )
    dangling, orphans = tool_issues(session, should_stop=should_stop, light=light)
    # what the format's client sends that its API refuses (a bug of the client's): (entry, call ids, why)
    refusals = getattr(fmt, "resume_refusals", None)
    refused = refusals(session) if refusals is not None else []
    for entry, _ids, why in refused:
        out.append(Problem(session.line_of(entry), ProblemKind.REFUSED_ON_RESUME, why))
    sent_twice = {(entry, call_id) for entry, ids, _why in refused for call_id in ids}
    orphans = [o for o in orphans if (o.entry, o.call_id) not in sent_twice]
    live = live_state(session, dangling=dangling, stuck_after=stuck_after) if live is None else live
    running = live.running()
    fills = fmt.fills_dangling
    out.extend(
        Problem(
            session.line_of(d.entry),
            ProblemKind.DANGLING_TOOL_CALL,
            f"{tool_name(session, d.entry, d.call_id)} call ({d.call_id}) has no result"
            + (f": {fills}" if fills else ""),
            WARNING if fills else ERROR,
        )
        for d in dangling
        if d.entry not in running
    )
    out.extend(
        Problem(
            session.line_of(o.entry),
            ProblemKind.ORPHAN_TOOL_RESULT,
            f"tool result for {o.call_id} answers no call before it",
        )
        for o in orphans
    )
    out.sort(key=lambda p: (p.line, p.kind.value))
    return out
