"""The session view's problems: found in a thread after each change of the
file (or within the frame of a small append), listed, jumped to."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import work
from textual.worker import get_current_worker

from ....model.errors import Cancelled, SessionError
from ....model.reading.records import BadLine
from ... import cells
from ...app_services import settings_of
from ...messages import ProblemsReady, UsageReady
from ...widgets.detail import DetailPane
from .host import SessionHost

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable

    from ....model.entries.pairing import ToolIssue
    from ....model.session.live_state import LiveState
    from ....model.session.problems import Problem
    from ....model.session.session import Session

CHECK_BUDGET = 0.015  # seconds an append may spend updating problems and totals in the frame that shows it


class ProblemActions(SessionHost):
    """Mixed into the session view."""

    def compute_problems(self) -> None:
        """Look for problems again, in a thread; a pass still at it is out of date."""
        self.state.generation += 1  # on the event loop: only it changes the count
        if self.state.session is not None:
            self._find_problems(self.state.generation, self.state.session)

    @work(thread=True, exclusive=True, group="problems", exit_on_error=False, description="problems")
    def _find_problems(self, generation: int, session: Session) -> None:
        worker = get_current_worker()
        stop = lambda: worker.is_cancelled or generation != self.state.generation  # noqa: E731
        try:
            with session.checking:
                dangling, live, problems = _look(session, stop, settings_of(self).stuck_after)
                self.post_message(
                    ProblemsReady(
                        generation,
                        problems,
                        session.format.off_branch(session, stop),
                        session.format.subagents(session),
                        live,
                        dangling,
                    )
                )
                self.post_message(
                    UsageReady(
                        generation,
                        _usage_words(session, stop),
                        session.title(),
                        session.origin(),
                    )
                )
        except Cancelled:
            return
        except Exception as exc:  # said, not swallowed: the status would wait for its problem count forever
            from ....model.sanitize import inert_line

            reason = inert_line(f"{type(exc).__name__}: {exc}")[:200]
            self.app.call_from_thread(
                self.notify, f"could not look for problems: {reason}", severity="error", timeout=10, markup=False
            )

    def on_problems_ready(self, message: ProblemsReady) -> None:
        if message.generation != self.state.generation:
            return
        had_problems = bool(self.state.problems)
        self.state.problems = message.problems
        self.state.dangling = message.dangling
        self.show_live_state(message.live)
        marks: dict[int, list[str]] = {}
        for p in message.problems:
            entry = self.entry_for_line(p.line)
            if entry is not None:
                marks.setdefault(entry, []).append(p.kind.words)
        self.tree_widget.set_problems(
            {e: ", ".join(dict.fromkeys(k)) for e, k in marks.items()}, message.off_branch, message.subagents
        )
        if had_problems != bool(message.problems):
            self.refresh_bindings()

    def check_appended(self) -> bool:
        """Problems, their markers and the totals after an append, in this
        frame: the model extends what it knew (the context, the tool pairing,
        the token tally), so this costs the new entries. False when it would
        take longer than CHECK_BUDGET (a compaction, another branch) or a
        worker is at it: the worker does it."""
        session = self.state.session
        if session is None or not session.checking.acquire(blocking=False):
            return False
        deadline = time.monotonic() + CHECK_BUDGET
        stop = lambda: time.monotonic() > deadline  # noqa: E731
        try:
            dangling, live, problems = _look(session, stop, settings_of(self).stuck_after)
            off_branch = session.format.off_branch(session, stop)
            usage = _usage_words(session, stop)
        except Cancelled:
            return False
        finally:
            session.checking.release()
        self.state.generation += 1  # a worker still at it is out of date
        self.state.usage = usage
        self.on_problems_ready(
            ProblemsReady(self.state.generation, problems, off_branch, self.tree_widget.subagents, live, dangling)
        )
        return True

    def on_usage_ready(self, message: UsageReady) -> None:
        if message.generation == self.state.generation:
            self.state.usage, self.state.session_title, self.state.origin = message.text, message.title, message.origin

    # -- what the agent is doing ------------------------------------------------------
    def show_live_state(self, live: LiveState | None) -> LiveState | None:
        """The activity in the status line, running calls marked in the tree
        with their time. Returns the state shown before."""
        was = self.state.live_state
        self.state.live_state = live
        running = live.running() if live is not None else set()
        self.tree_widget.set_running(
            {a.entry: (a.tool, a.since) for a in live.awaited if a.entry in running} if live is not None else {}
        )
        writing = live is not None and live.live
        if writing != self.tree_widget.writing:
            self.tree_widget.writing = writing
            self.tree_widget.clear_caches()
            self.tree_widget.refresh()
        pane = self.query_one(DetailPane)
        calls = {a.call_id for a in live.awaited if a.entry in running} if live is not None else set()
        if calls != pane.running_calls:
            pane.running_calls = calls
            self.show_detail()
        return was

    def tick_live_state(self) -> None:
        """Every second: the activity and the running calls' time, from the
        file's time and the calls known without a result (no context read)."""
        session = self.state.session
        if (
            session is None
            or self.state.indexing
            or self.state.problems is None
            or not session.checking.acquire(blocking=False)
        ):
            return
        from ....model.session.live_state import live_state  # (loaded after the first frame)

        try:
            live = live_state(
                session, now=cells.now(), dangling=self.state.dangling, stuck_after=settings_of(self).stuck_after
            )
        except (SessionError, OSError, BadLine):  # (BadLine: the file replaced under it; its reload follows)
            return
        finally:
            session.checking.release()
        was = self.show_live_state(live)
        if was is not None and was.running() - live.running():
            self.compute_problems()  # a call stuck (the file went quiet): now it is a problem

    def entry_for_line(self, line: int) -> int | None:
        """The entry shown for a 1-based problem line: that entry, or the one
        before a line that is not an entry (bad line, torn tail: -1)."""
        from bisect import bisect_right

        session = self.state.session
        if session is None:
            return None
        if line > len(session.lines):
            return -1 if session.lines.torn else None
        k = bisect_right(session.tree.entry_line, line - 1) - 1
        return k if k >= 0 else None

    def _problem_rows(self) -> list[int]:
        layout = self.state.rows
        if layout is None:
            return []
        rows: set[int] = set()
        for p in self.state.problems or ():
            entry = self.entry_for_line(p.line)
            if entry == -1:
                rows.add(len(layout) - 1)
            elif entry is not None:
                row = layout.row_of(entry)
                rows.add(row if row is not None else -1 - entry)
        return sorted(rows)

    def _jump_problem(self, step: int) -> None:
        if not self.state.problems:
            self.notify("no problems", timeout=2)
            return
        session, layout = self.state.session, self.state.rows
        if session is None or layout is None:
            return
        cursor = self.tree_widget.cursor
        rows = self._problem_rows()
        visible = [r for r in rows if r >= 0]
        hidden = [-1 - r for r in rows if r < 0]
        for entry in hidden:  # problems inside folded branches: unfold them
            layout.reveal(entry)
        if hidden:
            self.tree_widget.show(session, layout, self.tree_widget.cursor_entry)
            visible = [r for r in self._problem_rows() if r >= 0]
            cursor = self.tree_widget.cursor
        if step > 0:
            target = next((r for r in visible if r > cursor), visible[0] if visible else None)
        else:
            target = next((r for r in reversed(visible) if r < cursor), visible[-1] if visible else None)
        if target is not None:
            self.tree_widget.move_to(target)

    def _jump_failed(self, step: int) -> None:
        """To the next (``step`` 1) or previous (-1) failed tool result of the
        active branch, unfolding it if need be; wraps around."""
        session, layout = self.state.session, self.state.rows
        if session is None or layout is None or self.state.indexing:
            return
        from ....model.session.context import failed_results

        failed = failed_results(session)
        if not failed:
            self.notify(
                "no failed tool result on this branch"
                if session.format.marks_errors
                else f"{session.format.name} files do not mark failed tool results",
                timeout=3,
            )
            return
        here = self.tree_widget.cursor_entry
        if step > 0:
            target = next((e for e in failed if e > here), failed[0])
        else:
            target = next((e for e in reversed(failed) if e < here), failed[-1])
        self.jump_to_entry(target)

    def action_next_failed(self) -> None:
        self._jump_failed(1)

    def action_previous_failed(self) -> None:
        self._jump_failed(-1)

    def action_next_problem(self) -> None:
        self._jump_problem(1)

    def action_previous_problem(self) -> None:
        self._jump_problem(-1)

    def action_problems(self) -> None:
        if self.state.problems is None:
            self.notify("still looking for problems…", timeout=2)
            return

        def jump(line: int | None) -> None:
            if line is not None and self.state.rows is not None:
                entry = self.entry_for_line(line)
                self.jump_to_entry(len(self.state.rows) - 1 if entry == -1 else entry, row=entry == -1)

        from ....model.resume.verdicts import verdict_on
        from ..problems import ProblemsScreen

        verdict = (
            None if self.state.session is None or self.state.session.remote else verdict_on(self.state.session.path)
        )
        self.app.push_screen(ProblemsScreen(self.state.problems, verdict.words() if verdict else None), jump)


def _look(
    session: Session, stop: Callable[[], bool], stuck_after: float
) -> tuple[list[ToolIssue], LiveState, list[Problem]]:
    """(dangling calls, live state, problems) of ``session``: the one look of the
    worker and of an append's check in the frame (its modules load after the
    first frame)."""
    from ....model.session.context import tool_issues
    from ....model.session.live_state import live_state
    from ....model.session.problems import find_problems

    dangling = tool_issues(session, should_stop=stop)[0]
    live = live_state(session, now=cells.now(), dangling=dangling, stuck_after=stuck_after)
    return dangling, live, find_problems(session, should_stop=stop, live=live)


def _usage_words(session: Session, stop: Callable[[], bool]) -> str:
    """The session's usage as the status line says it, with the context fill."""
    from ....model.usage.totals import session_usage, usage_text

    return _with_fill(usage_text(session_usage(session, should_stop=stop, read_records=not session.remote)), session)


def _with_fill(usage: str, session: Session) -> str:
    """The usage words with the last response's context fill (``ctx 143k/200k``)."""
    from ....model.usage.over_time import context_fill

    fill = context_fill(session)
    return " · ".join(part for part in (fill, usage) if part)
