"""Back to work from the session view: ``R`` continues at the selected
entry with the session's own client (its plan shown first; the app steps
aside while the client runs, then follows the file it wrote to); ``D``
dry-runs that resume in a worker and shows the report."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from ....model.errors import Cancelled, SessionError
from ....store import LiveWriter, Refused, WriteFailed
from ...app_services import settings_of
from ...messages import OpenSession
from ...workers import Slow
from .host import SessionHost

if TYPE_CHECKING:  # pragma: no cover
    from ....actions.dry_run import Report
    from ....actions.resume import Resume
    from ....model.resume.plan import ResumePlan

# The resume plan (every client's rules) and the problem finder load on the
# first R or D, not before the view's first frame (~7 ms of imports).


def plan_text(plan: ResumePlan, line: int, path: str) -> str:
    from ....model.resume.plan import FORK, SET_LEAF, ResumeRefused

    client = plan.client
    out = [f"continue at line {line} with {client.title} ({client.program})"]
    out += [f"because {reason}" for reason in plan.reasons]
    if plan.write == FORK:
        out.append(f"first: fork the path to this entry into a new session in {plan.folder} (this file is only read)")
    elif plan.write == SET_LEAF:
        out.append("first: append the record that moves pi's leaf here (backed up, undoable with u)")
    else:
        out.append("nothing to write: the client continues here by itself")
    out.append(f"directory: {plan.cwd or os.getcwd()}")
    if plan.write == FORK:
        command = f"{client.program} {client.fork_form}"
    else:
        try:
            command = shlex.join(client.argv(plan.session_id or path, path))
        except ResumeRefused as exc:
            command = f"none: {exc}"
    out.append(f"command: {command}")
    out += [f"note: {warning}" for warning in plan.warnings]
    return "\n".join(out)


class ResumeActions(SessionHost):
    def _resume_target(self) -> tuple[int, ResumePlan] | None:
        session = self.state.session
        entry = self.tree_widget.cursor_entry
        if session is None or entry < 0:
            return None
        if self.state.indexing:
            self.notify("wait until the file is indexed", timeout=3)
            return None
        from ....model.resume.plan import ResumeRefused, plan_resume

        try:
            return entry, plan_resume(session, entry, os.environ)
        except (ResumeRefused, SessionError) as exc:
            self.notify(str(exc), title="No resume here", severity="warning", timeout=8, markup=False)
            return None

    def action_resume(self) -> None:
        target = self._resume_target()
        if target is None or self.state.session is None:
            return
        entry, plan = target
        session = self.state.session
        from ....model.session.problems import ERROR, find_problems

        broken = [p for p in find_problems(session, stuck_after=settings_of(self).stuck_after) if p.severity == ERROR]
        warning = (
            f"{len(broken)} problem(s) the client may refuse (line {broken[0].line}: {broken[0].kind.words}): "
            "repair first with t, or dry-run with D"
            if broken
            else ""
        )

        def chosen(choice: str | None) -> None:
            if choice:
                self._run_client(plan, force=choice == "force")

        from ..confirm import ConfirmScreen

        self.app.push_screen(
            ConfirmScreen(
                f"Continue here with {plan.client.title}",
                plan_text(plan, session.line_of(entry), session.path),
                [("run", f"Write, then run {plan.client.program}" if plan.write else f"Run {plan.client.program}")],
                warning,
            ),
            chosen,
        )

    def _run_client(self, plan: ResumePlan, force: bool = False) -> None:
        session = self.state.session
        if session is None:
            return
        program = shutil.which(plan.client.program)
        if program is None:
            self.notify(
                f"{plan.client.program} is not on PATH: is {plan.client.title} installed?",
                title="Cannot run the client",
                severity="error",
                timeout=8,
                markup=False,
            )
            return
        from ....actions.resume import make_ready, shell_line  # (at the first resume: not before the first frame)
        from ....model.resume.plan import ResumeRefused

        try:
            ready = make_ready(session, plan, force=force, stuck_after=settings_of(self).stuck_after)
        except LiveWriter as exc:
            from ..confirm import ConfirmScreen

            self.app.push_screen(
                ConfirmScreen(
                    "A live agent may be writing this file: write anyway?",
                    plan_text(plan, session.line_of(plan.leaf), session.path),
                    [("force", "Write anyway")],
                    str(exc).removeprefix(f"{session.path}: "),
                ),
                lambda choice: self._run_client(plan, force=True) if choice else None,
            )
            return
        except (Refused, WriteFailed, ResumeRefused, OSError) as exc:
            self.notify(str(exc), title="Refused", severity="error", timeout=8, markup=False)
            return
        cwd = ready.cwd if ready.cwd and os.path.isdir(ready.cwd) else None
        argv = [program, *ready.argv[1:]]
        if self.app.is_headless:  # (tests: no terminal to hand over)
            subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=False)
        else:
            try:
                with self.app.suspend():
                    print(f"session-tui: {shell_line(ready)}", flush=True)
                    subprocess.run(argv, cwd=cwd, check=False)
            except Exception:  # no terminal to step aside from (a browser): say what to run
                self.notify(f"run it in a terminal: {shell_line(ready)}", timeout=15, markup=False)
                return
        self._back_from_client(ready)

    def _back_from_client(self, ready: Resume) -> None:
        if os.path.abspath(ready.file) != os.path.abspath(self.state.session.path if self.state.session else ""):
            self.post_message(OpenSession(ready.file))  # the fork the client wrote to
            return
        self.state.following = True  # the client's new turns: the newest in sight
        self.on_file_changed()

    def action_dry_run(self) -> None:
        target = self._resume_target()
        if target is None or self.state.session is None:
            return
        entry, plan = target
        session = self.state.session
        line = session.line_of(entry)
        at = None if entry == session.shown_leaf() else f"L{line}"
        path, fmt, app = session.path, session.format.name, self.app

        def run() -> None:
            from ....actions.dry_run import DryRunFailed, dry_run, remember_verdict  # (in the worker: ~15 ms)
            from ....model.resume.plan import ResumeRefused

            worker = get_current_worker()
            slow = Slow(self, f"dry run: {plan.client.title} resumes a copy against a fake API… (Esc stops)")
            try:
                report = dry_run(path, at, fmt, None, None, should_stop=lambda: slow() or worker.is_cancelled)
            except Cancelled:
                return
            except (DryRunFailed, ResumeRefused, SessionError, Refused, OSError) as exc:
                app.call_from_thread(
                    self.notify, str(exc), title="Dry run failed", severity="error", timeout=10, markup=False
                )
                return
            remember_verdict(path, report)
            app.call_from_thread(self._show_report, report, line)

        self.run_worker(run, thread=True, exclusive=True, group="dry-run", exit_on_error=False, description="dry run")

    def _show_report(self, report: Report, line: int) -> None:
        text = report.text()
        if not report.accepted and self.state.session is not None:
            from ....model.session.problems import ERROR, find_problems

            broken = [
                p
                for p in find_problems(self.state.session, stuck_after=settings_of(self).stuck_after)
                if p.severity == ERROR
            ]
            if broken:
                text += (
                    f"\n\nproblem: line {broken[0].line}: {broken[0].kind.words}: {broken[0].message}"
                    "\nrepair: t (close the call, drop a torn line), then D again"
                )
        verdict = "accepted" if report.accepted else "REJECTED"
        from ..text_view import TextViewScreen

        self.app.push_screen(TextViewScreen(f"Dry-run resume at line {line}: {verdict}", text))
