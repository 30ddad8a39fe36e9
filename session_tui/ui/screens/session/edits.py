"""The session view's edits: each planned from the model, shown with its
plan for confirmation, applied through the store, undone on ``u``; and the
branch list and compare, whose choices come back here."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

from ....model.words import ago
from ....store import Fingerprint, LiveWriter, NothingToDo, Refused, WriteFailed
from ...app_services import settings_of
from ...messages import OpenSession
from .host import SessionHost

if TYPE_CHECKING:  # pragma: no cover
    from ....store import edits


def _edits() -> ModuleType:
    """store.edits, imported at the first edit: not before the session's first frame (~35 ms)."""
    from ....store import edits

    return edits


class EditActions(SessionHost):
    """Mixed into the session view, whose ``session``, ``indexing``,
    ``tree_widget``, ``last_edit``, ``jump_to_entry`` and ``on_file_changed``
    it uses."""

    def _plan(self, make: Callable[[], edits.Plan]) -> edits.Plan | None:
        """A plan from the current session, or None with the refusal shown."""
        if self.state.indexing:
            self.notify("wait until the file is indexed", timeout=3)
            return None
        try:
            return make()
        except Refused as exc:
            self.notify(str(exc), title="Not possible", severity="warning", timeout=6, markup=False)
            return None

    def _confirm(
        self,
        plan: edits.Plan,
        title: str,
        choices: list[tuple[str, str]],
        on_choice: Callable[[str | None], object],
        warning: str | None = None,
    ) -> None:
        def chosen(choice: str | None) -> None:  # (what on_choice returns is of no use to the dialog)
            on_choice(choice)

        warning = self._live_warning() if warning is None else warning
        from ..confirm import ConfirmScreen

        self.app.push_screen(ConfirmScreen(title, plan.preview(), choices, warning), chosen)

    def _live_warning(self) -> str:
        """What an edit now may run into: the agent still writing, a call
        still running (the live state's one answer: ``LiveState.may_write``)."""
        live = self.state.live_state
        if live is None or not live.may_write:
            return ""
        running = [a for a in live.awaited if a.entry in live.running()]
        if running:
            calls = ", ".join(dict.fromkeys(a.tool for a in running))
            text = (
                f"▶ {calls}: this call may still be running: its result may arrive. "
                "A repair now answers a call that is still running."
            )
        elif live.alive:
            text = f"Its client is running with this file ({live.inferred}): it may still write to it."
        else:
            text = f"The agent wrote this file {ago(live.quiet_for)} ago: it may still be writing it."
        return text + " You will be asked to confirm once more."

    def _apply(self, plan: edits.Plan, force: bool = False) -> edits.Done | None:
        """Carry out ``plan``; what was done (edits.Done), or None when refused.
        A file our own last edit changed a moment ago needs no live-agent
        question."""
        try:
            ours = self.state.our_write is not None and self.state.our_write == Fingerprint.of(plan.path)
        except OSError:
            ours = False
        try:
            done = _edits().apply(plan, force=force or ours, stuck_after=settings_of(self).stuck_after)
        except Refused as exc:
            if not force and isinstance(exc, LiveWriter):
                self._confirm(
                    plan,
                    "A live agent may be writing this file: write anyway?",
                    [("force", "Write anyway")],
                    lambda c: c and self._apply(plan, force=True),
                    warning=str(exc).removeprefix(f"{plan.path}: "),
                )
            else:
                self.notify(str(exc), title="Refused", severity="error", timeout=6, markup=False)
            return None
        except (WriteFailed, OSError) as exc:  # a full disk, an I/O error: the file is as it was
            self.notify(str(exc), title="Write failed", severity="error", timeout=8, markup=False)
            return None
        self.state.last_edit = done
        self.state.our_write = done.after or self.state.our_write  # the file as our last write left it
        self.notify(
            plan.summary + ("\n" + "\n".join(f"wrote {p}" for p in done.created) if done.created else ""),
            title="Done",
            timeout=5,
            markup=False,
        )
        self.on_file_changed()  # the view reloads from disk: our write shows once, as anyone's would
        return done

    def action_make_leaf(self, entry: int | None = None) -> None:
        entry = self.tree_widget.cursor_entry if entry is None else entry
        session = self.state.session
        if entry < 0 or session is None:
            return
        if self.state.indexing:
            self.notify("wait until the file is indexed", timeout=3)
            return
        if entry == session.shown_leaf():  # (past session-tui's own pointer: pi's leaf, the entry it names)
            self.notify("this entry is already the active leaf", timeout=3)
            return
        try:
            plan = _edits().plan_set_leaf(session, entry)
        except Refused as exc:  # no leaf to move in place: offer the fork instead
            self.notify(str(exc), title="The leaf cannot move in place", timeout=8, markup=False)
            fork = self._plan(lambda: _edits().plan_fork(session, entry))
            if fork:
                self._confirm(
                    fork,
                    f"A {session.format.name} session has no leaf to move in place. Fork at this entry instead?",
                    [("confirm", "Fork")],
                    lambda c: c and self._apply(fork),
                )
            return
        if plan:
            self._confirm(plan, "Move the active leaf", [("confirm", "Move")], lambda c: c and self._apply(plan))

    def action_fork(self, entry: int | None = None) -> None:
        entry = self.tree_widget.cursor_entry if entry is None else entry
        session = self.state.session
        if entry < 0 or session is None:
            return
        plan = self._plan(lambda: _edits().plan_fork(session, entry))
        if plan:

            def chosen(choice: str | None) -> None:
                done = choice and self._apply(plan)
                if done and choice == "open" and done.created:
                    self.post_message(OpenSession(done.created[0]))

            self._confirm(plan, "Fork into a new file", [("confirm", "Fork"), ("open", "Fork and open")], chosen)

    def action_trim(self) -> None:
        """Repair what a crash left, each possible repair a choice with its
        plan: bad lines, dangling calls (closed at the end, inserted after
        the call, or in a fork that is then opened; or cut back), a torn last
        line."""
        session = self.state.session
        if self.state.indexing or session is None:
            self.notify("wait until the file is indexed", timeout=3)
            return
        torn = bool(session.lines.torn)
        options: list[tuple[str, str, edits.Plan]] = []  # (choice id, button label, plan)
        refusals: list[str] = []

        def offer(choice: str, label: str | Callable[[edits.Plan], str], make: Callable[[], edits.Plan]) -> None:
            try:
                plan = make()
            except NothingToDo:
                return
            except Refused as exc:
                refusals.append(str(exc))
                return
            options.append((choice, label(plan) if callable(label) else label, plan))

        offer("drop_bad", "Drop bad lines", lambda: _edits().plan_drop_bad(session))
        offer(
            "close",
            lambda plan: (
                "Fork with results"
                if plan.new_files
                else "Insert results"
                if plan.rewrite is not None and not plan.append
                else "Close"
            ),
            lambda: _edits().plan_close(session, drop_torn=torn),
        )
        if any(choice == "close" for choice, _, _ in options):
            offer("cut", "Cut back", lambda: _edits().plan_cut(session, drop_torn=torn))
        if torn and not any(plan.drop_torn for _, _, plan in options):
            offer("drop_torn", "Drop torn line", lambda: _edits().plan_drop_torn(session))
        if not options:
            self.notify(
                refusals[0] if refusals else "nothing to repair: no bad line, call without a result or torn line",
                title="Not possible" if refusals else "",
                severity="warning" if refusals else "information",
                timeout=6,
                markup=False,
            )
            return
        body = "\n\n".join(f"{label}: {plan.preview()}" for _, label, plan in options)
        if refusals:
            body += "\n\nnot offered: " + "\n".join(refusals)
        plans = {choice: plan for choice, _, plan in options}

        def chosen(choice: str | None) -> None:
            if not choice:
                return
            plan = plans[choice]
            done = self._apply(plan)
            if done and plan.new_files and done.created:
                self.post_message(OpenSession(done.created[0]))  # a fork with the calls closed: go on there

        from ..confirm import ConfirmScreen

        self.app.push_screen(
            ConfirmScreen(
                "Repair this session",
                body,
                [(choice, label) for choice, label, _ in options],
                self._live_warning(),
            ),
            chosen,
        )

    # -- branches -------------------------------------------------------------------
    def action_branches(self) -> None:
        """Every branch of the session, one row each (``b``)."""
        if self.state.indexing or self.state.session is None:
            self.notify("wait until the file is indexed", timeout=3)
            return
        from ..branches import BranchesScreen

        self.app.push_screen(BranchesScreen(self.state.session, self.act_on_entry))

    def action_compare(self) -> None:
        """Two branches side by side from the fork point under the cursor
        (``d``): the one holding the active leaf, if it passes there, and the
        newest other."""
        if self.state.indexing or self.state.session is None:
            self.notify("wait until the file is indexed", timeout=3)
            return
        entry = self.tree_widget.cursor_entry
        if entry < 0 or self.state.session.tree.child_count(entry) < 2:
            self.notify(
                "d compares the branches of a fork point (⋔); b lists every branch (space marks two)", timeout=5
            )
            return
        from ..compare import CompareScreen

        self.app.push_screen(CompareScreen(self.state.session, self.act_on_entry, fork=entry))

    def act_on_entry(self, kind: str, entry: int) -> None:
        """What the branch list or a compare chose, done here as in the tree:
        go to the entry, make it the active leaf, or fork at it."""
        while self.app.screen is not self and len(self.app.screen_stack) > 1:
            self.app.pop_screen()
        if kind == "go":
            self.jump_to_entry(entry)
        elif kind == "leaf":
            self.jump_to_entry(entry)
            self.action_make_leaf(entry)
        elif kind == "fork":
            self.jump_to_entry(entry)
            self.action_fork(entry)

    def action_undo(self) -> None:
        if self.state.last_edit is None:
            self.notify("no edit to undo in this run", timeout=3)
            return
        done = self.state.last_edit
        plan = self._plan(lambda: _edits().plan_undo(done))
        if plan:

            def chosen(choice: str | None) -> None:
                if choice:
                    self._undo(plan)

            self._confirm(plan, "Undo the last edit", [("confirm", "Undo")], chosen)

    def _undo(self, plan: edits.Plan) -> None:
        self._apply(plan, force=True)  # our own edit: its recent write is not a live agent
        self.state.last_edit = None
