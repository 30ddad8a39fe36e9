"""The session view: entry tree, detail pane, status line; live tail."""

from __future__ import annotations

import asyncio
import os
import time

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input
from textual.worker import get_current_worker
from watchfiles import awatch

from ...model.rows import RowLayout
from ...model.sanitize import inert
from ...model.search import find_text, partner
from ...model.session import Cancelled, Session, SessionError
from ...model.usage import session_usage, usage_text
from ...store import Fingerprint, LiveWriter, NothingToDo, Refused, edits
from .. import keys
from ..widgets.detail import DetailPane
from ..widgets.entry_tree import EntryTree
from ..widgets.status import StatusLine
from .confirm import ConfirmScreen
from .problems import ProblemsScreen
from .text_view import TextViewScreen, context_text

SYNC_INDEX_BYTES = 16 << 20  # smaller files are indexed before the first paint
PREVIEW_BYTES = 1 << 20  # bigger ones show their last MiB first
TAIL_DEBOUNCE_MS = 15
TAIL_STEP_MS = 5
DETAIL_DELAY = 0.03  # after a key: holding ↓ must not parse every entry it passes
DETAIL_DELAY_LIVE = 0.25  # after the tail moved the cursor: rows first, details when writes pause
PROBLEMS_DELAY = 0.4  # seconds of quiet in the file before problems are looked for again (in a worker)
SLOW_SECONDS = 0.3  # a worker that takes longer says what it is doing
CHECK_BUDGET = 0.015  # seconds an append may spend updating problems and totals in the frame that shows it
METADATA_LIMIT = 5000  # records listed by `m`
INDEX_YIELD = 0.0005  # seconds the index thread sleeps between blocks: keys stay live while indexing


class IndexProgress(Message):
    def __init__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        super().__init__()

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexProgress)


class IndexDone(Message):
    def __init__(self, session: Session | None, error: str | None = None) -> None:
        self.session, self.error = session, error
        super().__init__()


class ProblemsReady(Message):
    def __init__(
        self, generation: int, problems, off_branch: set[int] | None = None, subagents: dict[int, str] | None = None
    ) -> None:
        self.generation, self.problems, self.off_branch = generation, problems, off_branch or set()
        self.subagents = subagents or {}
        super().__init__()


class Found(Message):
    """A search ended: the entry found (None: no match)."""

    def __init__(self, session: Session, text: str, entry: int | None) -> None:
        self.session, self.text, self.entry = session, text, entry
        super().__init__()


class ContextReady(Message):
    def __init__(self, session: Session, title: str, body: str) -> None:
        self.session, self.title, self.body = session, title, body
        super().__init__()


class Slow:
    """A ``should_stop`` helper for a worker: once it has run SLOW_SECONDS,
    says so once in a notice (what it is doing, how to stop it)."""

    def __init__(self, screen: Screen, what: str) -> None:
        self.screen, self.what, self.started, self.told = screen, what, time.monotonic(), False

    def __call__(self) -> bool:
        if not self.told and time.monotonic() - self.started > SLOW_SECONDS:
            self.told = True
            self.screen.app.call_from_thread(self.screen.notify, self.what, timeout=3)
        return False


class UsageReady(Message):
    """Tokens and time, and what the session says about itself."""

    def __init__(self, generation: int, text: str, title: str | None = None, origin: str | None = None) -> None:
        self.generation, self.text, self.title, self.origin = generation, text, title, origin
        super().__init__()


class SessionScreen(Screen):
    BINDINGS = keys.bindings()  # ui/keys.py: the footer, the palette and the help from one list
    DEFAULT_CSS = """
    SessionScreen #panes { height: 1fr; }
    SessionScreen EntryTree { width: 3fr; }
    SessionScreen DetailPane { width: 2fr; }
    SessionScreen #search { dock: bottom; display: none; }
    SessionScreen #search.shown { display: block; }
    """

    def __init__(self, path: str, format: str | None = None, *, watch: bool = True) -> None:
        super().__init__()
        self.path = path
        self.format = format
        self.watching = watch  # follow the file (not DOMNode.watch)
        self.session: Session | None = None
        self.rows: RowLayout | None = None
        self.problems = None
        self.generation = 0
        self.following = True
        self.show_quiet = False  # rows of records the model never sees
        self.new_entries = 0
        self.indexing = ""
        self.live = "live" if watch else "not watching"
        self.query_text = ""
        self._detail_timer = None
        self._problems_timer = None
        self._moved_by_tail = False
        self._deleted_notified = False
        self.last_edit = None  # the last edit made here (edits.Done), for undo
        self._our_write = None  # the file as our last write left it: no live-agent question about it
        self.usage = ""  # session totals: tokens, time span
        self.session_title: str | None = None  # what the session calls itself (not Screen.title)
        self.origin: str | None = None  # the session it was forked from

    # -- building -----------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            yield EntryTree(id="tree")
            yield DetailPane(id="detail")
        yield Input(placeholder="search entry text and ids; Enter to find, Esc to close", id="search")
        yield StatusLine(id="status")
        yield Footer()

    @property
    def tree_widget(self) -> EntryTree:
        return self.query_one(EntryTree)

    def on_unmount(self) -> None:
        """The file is closed with the view (its threads are cancelled with it)."""
        if self.session is not None:
            self.session.close()

    def on_mount(self) -> None:
        self.tree_widget.focus()
        self.tree_widget.live = self.watching
        size = os.path.getsize(self.path)
        if size <= SYNC_INDEX_BYTES:
            session = Session(self.path, self.format)
            session.refresh()
            self._show(session, cursor_entry=None)
            self._after_index()
        else:
            preview = Session(self.path, self.format, start=max(0, size - PREVIEW_BYTES), parallel_ok=False)
            preview.refresh()
            self.indexing = "indexing 0%"
            self._show(preview, cursor_entry=None)
            self.call_after_refresh(self.index_file)  # after the first frame: the scan would slow it

    def _after_index(self) -> None:
        self.compute_problems()
        if self.watching:
            self.tail()

    def _show(self, session: Session, cursor_entry: int | None, keep_folds: bool = False) -> None:
        expanded = self.rows.expanded if keep_folds and self.rows is not None else None
        self.session = session
        self.rows = RowLayout(session, expanded, show_quiet=self.show_quiet)
        target = session.active_leaf() if cursor_entry is None else cursor_entry
        self.tree_widget.show(session, self.rows, target)
        self.update_status()

    # -- status -------------------------------------------------------------------
    def update_status(self) -> None:
        session = self.session
        if session is None:
            return
        leaf = session.active_leaf()
        if leaf < 0:
            leaf_text = "(empty)"
        else:
            view_id = None
            try:
                view_id = session.format.view(session.record(leaf)).id
            except Exception:
                pass
            where = f"line {session.line_of(leaf)}" if not session.partial else "near the end"
            leaf_text = f"{inert(str(view_id)[:13], keep_newlines=False)}… ({where})" if view_id else where
        live = self.live + (" · following" if self.following and self.live == "live" else "")
        self.query_one(StatusLine).show(
            path=os.path.basename(self.path),
            session=session,
            problems=None if self.problems is None else len(self.problems),
            leaf_text=leaf_text,
            live=live,
            indexing=self.indexing,
            new=self.new_entries,
            usage=self.usage,
            title=self.session_title,
            origin=self.origin,
        )

    # -- the big-file index ------------------------------------------------------------
    @work(thread=True, exclusive=True, group="index", exit_on_error=False, description="index")
    def index_file(self) -> None:
        worker = get_current_worker()
        session = Session(self.path, self.format)

        def should_stop() -> bool:
            time.sleep(INDEX_YIELD)  # hand the GIL to the UI between blocks: keys stay live
            return worker.is_cancelled

        last = [0.0]

        def progress(done: int, total: int) -> None:
            now = time.monotonic()
            if now - last[0] > 0.1:
                last[0] = now
                self.post_message(IndexProgress(done, total))

        try:
            session.refresh(should_stop=should_stop, progress=progress)
        except Cancelled:
            session.close()
            self.post_message(IndexDone(None, "cancelled"))
            return
        except SessionError as exc:
            self.post_message(IndexDone(None, str(exc)))
            return
        self.post_message(IndexDone(session))

    def on_index_progress(self, message: IndexProgress) -> None:
        if self.indexing:
            self.indexing = f"indexing {100 * message.done // max(message.total, 1)}% (Esc stops)"
            self.update_status()

    def on_index_done(self, message: IndexDone) -> None:
        if message.session is None:
            self.indexing = f"indexing stopped ({message.error}): showing the end of the file"
            self.update_status()
            return
        self.indexing = ""
        old = self.session
        cursor = self._map_entry(old, message.session, self.tree_widget.cursor_entry)
        at_leaf = self.tree_widget.cursor_entry == old.active_leaf()
        self._show(message.session, None if at_leaf else cursor)
        old.close()
        self._after_index()
        self.on_file_changed()  # catch up with what was written meanwhile

    @staticmethod
    def _map_entry(old: Session, new: Session, entry: int) -> int | None:
        """The entry of ``new`` at the same byte offset as ``entry`` of ``old``."""
        if entry < 0:
            return None
        from bisect import bisect_left

        offset = old.lines.line_starts[old.tree.entry_line[entry]]
        line = bisect_left(new.lines.line_starts, offset)
        k = bisect_left(new.tree.entry_line, line)
        return k if k < new.tree.count else None

    def action_escape(self) -> None:
        running = {w.group for w in self.workers if w.node is self and not w.is_finished}
        if running & {"search", "context"}:  # a long search or context: stop it first
            self.workers.cancel_group(self, "search")
            self.workers.cancel_group(self, "context")
            self.notify("stopped", timeout=1)
        elif self.indexing.startswith("indexing ") and "%" in self.indexing:
            self.workers.cancel_group(self, "index")
        elif self.app.can_go_back:
            self.app.pop_screen()

    # -- problems -----------------------------------------------------------------
    @work(thread=True, exclusive=True, group="problems", exit_on_error=False, description="problems")
    def compute_problems(self) -> None:
        self.generation += 1
        generation, session = self.generation, self.session
        worker = get_current_worker()
        stop = lambda: worker.is_cancelled or generation != self.generation  # noqa: E731
        try:
            with session.checking:
                problems = session.problems(should_stop=stop)
                self.post_message(
                    ProblemsReady(
                        generation,
                        problems,
                        session.format.off_branch(session, stop),
                        session.format.subagents(session),
                    )
                )
                self.post_message(
                    UsageReady(
                        generation,
                        usage_text(session_usage(session, should_stop=stop)),
                        session.title(),
                        session.origin(),
                    )
                )
        except Cancelled:
            return

    def on_problems_ready(self, message: ProblemsReady) -> None:
        if message.generation != self.generation:
            return
        had_problems = bool(self.problems)
        self.problems = message.problems
        marks: dict[int, list[str]] = {}
        for p in message.problems:
            entry = self._entry_for_line(p.line)
            if entry is not None:
                marks.setdefault(entry, []).append(p.kind.value)
        self.tree_widget.set_problems(
            {e: ", ".join(dict.fromkeys(k)) for e, k in marks.items()}, message.off_branch, message.subagents
        )
        self.update_status()
        if had_problems != bool(message.problems):
            self.refresh_bindings()

    def check_appended(self) -> bool:
        """Problems, their markers and the totals after an append, in this
        frame: the model extends what it knew (the context, the tool pairing,
        the token tally), so this costs the new entries. False when it would
        take longer than CHECK_BUDGET (a compaction, another branch) or a
        worker is at it: the worker does it."""
        session = self.session
        if session is None or not session.checking.acquire(blocking=False):
            return False
        deadline = time.monotonic() + CHECK_BUDGET
        stop = lambda: time.monotonic() > deadline  # noqa: E731
        try:
            problems = session.problems(should_stop=stop)
            off_branch = session.format.off_branch(session, stop)
            usage = usage_text(session_usage(session, should_stop=stop))
        except Cancelled:
            return False
        finally:
            session.checking.release()
        self.generation += 1  # a worker still at it is out of date
        self.usage = usage
        self.on_problems_ready(ProblemsReady(self.generation, problems, off_branch, self.tree_widget.subagents))
        return True

    def on_usage_ready(self, message: UsageReady) -> None:
        if message.generation == self.generation:
            self.usage, self.session_title, self.origin = message.text, message.title, message.origin
            self.update_status()

    def _entry_for_line(self, line: int) -> int | None:
        """The entry shown for a 1-based problem line: that entry, or the one
        before a line that is not an entry (bad line, torn tail: -1)."""
        from bisect import bisect_right

        session = self.session
        if line > len(session.lines):
            return -1 if session.lines.torn else None
        k = bisect_right(session.tree.entry_line, line - 1) - 1
        return k if k >= 0 else None

    def _problem_rows(self) -> list[int]:
        rows = set()
        for p in self.problems or ():
            entry = self._entry_for_line(p.line)
            if entry == -1:
                rows.add(len(self.rows) - 1)
            elif entry is not None:
                row = self.rows.row_of(entry)
                rows.add(row if row is not None else -1 - entry)
        return sorted(rows)

    def _jump_problem(self, step: int) -> None:
        if not self.problems:
            self.notify("no problems", timeout=2)
            return
        cursor = self.tree_widget.cursor
        rows = self._problem_rows()
        visible = [r for r in rows if r >= 0]
        hidden = [-1 - r for r in rows if r < 0]
        for entry in hidden:  # problems inside folded branches: unfold them
            self.rows.reveal(entry)
        if hidden:
            self.tree_widget.show(self.session, self.rows, self.tree_widget.cursor_entry)
            visible = [r for r in self._problem_rows() if r >= 0]
            cursor = self.tree_widget.cursor
        if step > 0:
            target = next((r for r in visible if r > cursor), visible[0] if visible else None)
        else:
            target = next((r for r in reversed(visible) if r < cursor), visible[-1] if visible else None)
        if target is not None:
            self.tree_widget.move_to(target)

    def action_next_problem(self) -> None:
        self._jump_problem(1)

    def action_previous_problem(self) -> None:
        self._jump_problem(-1)

    def action_problems(self) -> None:
        if self.problems is None:
            self.notify("still looking for problems…", timeout=2)
            return

        def jump(line: int | None) -> None:
            if line is not None:
                entry = self._entry_for_line(line)
                self.jump_to_entry(len(self.rows) - 1 if entry == -1 else entry, row=entry == -1)

        self.app.push_screen(ProblemsScreen(self.problems), jump)

    def jump_to_entry(self, entry: int | None, row: bool = False) -> None:
        if entry is None:
            return
        if row:
            self.tree_widget.move_to(entry)
            return
        target = self.rows.reveal(entry)
        if target is None and not self.show_quiet and self.session.tree.quiet:  # a hidden record: show them
            self.action_toggle_quiet(entry)
            return
        self.tree_widget.show(self.session, self.rows, entry)
        if target is not None:
            self.tree_widget.move_to(target)
        self.tree_widget.focus()

    # -- detail -------------------------------------------------------------------
    @on(EntryTree.Highlighted)
    def on_highlight(self, event: EntryTree.Highlighted) -> None:
        leaf = self.session.active_leaf() if self.session else -1
        if self.session is not None and not self.indexing:
            self.following = event.entry == leaf
            if self.following:
                self.new_entries = 0
            self.update_status()
        if self._detail_timer is not None:
            self._detail_timer.stop()
        delay = DETAIL_DELAY_LIVE if self._moved_by_tail else DETAIL_DELAY
        self._moved_by_tail = False
        self._detail_timer = self.set_timer(delay, self.show_detail)

    def show_detail(self) -> None:
        if self.session is None:
            return
        entry = self.tree_widget.cursor_entry
        try:
            self.query_one(DetailPane).show_entry(self.session, entry, self.tree_widget.tool_name)
        except Exception as exc:  # the file changed under us; the next refresh fixes it
            self.query_one(DetailPane).show_text(Text(f"cannot read this entry: {exc}"), "")

    def action_raw(self) -> None:
        pane = self.query_one(DetailPane)
        pane.raw = not pane.raw
        self.show_detail()

    def action_open_full(self) -> None:
        pane = self.query_one(DetailPane)
        entry = self.tree_widget.cursor_entry
        where = f"line {self.session.line_of(entry)}" if entry >= 0 else "pending line"
        self.app.push_screen(TextViewScreen(f"{os.path.basename(self.path)} — {where}", pane.full_text))

    def action_partner(self) -> None:
        entry = self.tree_widget.cursor_entry
        if entry < 0:
            return
        other = partner(self.session, entry)
        if other is None:
            self.notify("no matching tool call or result", timeout=2)
        else:
            self.jump_to_entry(other)

    def action_context(self) -> None:
        entry = self.tree_widget.cursor_entry
        if entry < 0:
            entry = self.session.active_leaf()
        if entry < 0:
            return
        self.build_context(self.session, entry)

    @work(thread=True, exclusive=True, group="context", exit_on_error=False, description="context")
    def build_context(self, session: Session, entry: int) -> None:
        """The context at ``entry`` in a thread (off the active leaf, every
        record on its path is read): keys stay live, Esc stops it."""
        worker = get_current_worker()
        slow = Slow(self, "building the context… (Esc stops)")
        try:
            with session.checking:
                items = session.resume_items(entry, should_stop=lambda: slow() or worker.is_cancelled)
            body = context_text(session, items)
        except Cancelled:
            return
        client = session.format.client
        added = sum(1 for item in items if item.added_by)
        who = f"{client} sends on resume" if client else "the model would be sent"
        title = f"context at line {session.line_of(entry)}: {len(items):,} messages {who}" + (
            f" ({added:,} added by {client}, marked +)" if added else ""
        )
        self.post_message(ContextReady(session, title, body))

    def on_context_ready(self, message: ContextReady) -> None:
        if message.session is self.session:
            self.app.push_screen(TextViewScreen(message.title, message.body))

    # -- moving -------------------------------------------------------------------
    def action_go_leaf(self) -> None:
        leaf = self.session.active_leaf()
        if leaf >= 0:
            self.jump_to_entry(leaf)

    def action_follow(self) -> None:
        self.following = not self.following
        if self.following:
            self.new_entries = 0
            self.action_go_leaf()
        self.update_status()

    # -- search -------------------------------------------------------------------
    def action_search(self) -> None:
        box = self.query_one("#search", Input)
        box.add_class("shown")
        box.focus()

    @on(Input.Submitted, "#search")
    def on_search_submitted(self, event: Input.Submitted) -> None:
        self.query_text = event.value
        self._close_search()
        self._search(backwards=False)

    def on_key(self, event) -> None:
        box = self.query_one("#search", Input)
        if event.key == "escape" and box.has_focus:
            self._close_search()
            event.stop()

    def _close_search(self) -> None:
        box = self.query_one("#search", Input)
        box.remove_class("shown")
        self.tree_widget.focus()

    def _search(self, backwards: bool) -> None:
        if self.query_text:
            self.search_file(self.session, self.query_text, self.tree_widget.cursor_entry, backwards)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False, description="search")
    def search_file(self, session: Session, text: str, after: int, backwards: bool) -> None:
        """Find the next match in a thread (a miss on a big file reads all of
        it): keys stay live, Esc or the next search stops it."""
        worker = get_current_worker()
        slow = Slow(self, f"searching for {inert(text, keep_newlines=False)}… (Esc stops)")
        try:
            found = find_text(session, text, after, backwards, should_stop=lambda: slow() or worker.is_cancelled)
        except Cancelled:
            return
        self.post_message(Found(session, text, found))

    def on_found(self, message: Found) -> None:
        if message.session is not self.session:
            return
        if message.entry is None:
            self.notify(f"not found: {inert(message.text, keep_newlines=False)}", timeout=2, markup=False)
        else:
            self.jump_to_entry(message.entry)

    def action_search_next(self) -> None:
        self._search(backwards=False)

    def action_search_previous(self) -> None:
        self._search(backwards=True)

    # -- live tail ----------------------------------------------------------------
    @work(exclusive=True, group="tail", exit_on_error=False, description="tail")
    async def tail(self) -> None:
        directory = os.path.dirname(os.path.abspath(self.path)) or "."
        name = os.path.basename(self.path)
        async for changes in awatch(
            directory, debounce=TAIL_DEBOUNCE_MS, step=TAIL_STEP_MS, recursive=False, ignore_permission_denied=True
        ):
            if any(os.path.basename(changed) == name for _, changed in changes):
                self.on_file_changed()
                await asyncio.sleep(0)

    def on_file_changed(self) -> None:
        session = self.session
        if session is None or self.indexing:
            return
        cursor_entry = self.tree_widget.cursor_entry
        was_following = self.following
        torn_before, leaf_before = session.lines.torn, session.active_leaf()
        try:
            change = session.refresh()
        except SessionError:
            if not self._deleted_notified:
                self.notify("the file is gone: showing the last view", severity="warning")
                self._deleted_notified = True
            self.live = "deleted"
            self.update_status()
            return
        if self._deleted_notified:
            self._deleted_notified = False
            self.live = "live"
        if change.reloaded:
            self.notify(f"reloaded: {change.reloaded}", severity="warning", timeout=4)
            self.new_entries = 0
            self._show(session, cursor_entry=None)
        elif change.new_entries or session.lines.torn != torn_before or session.active_leaf() != leaf_before:
            tree = session.tree
            changed = {tree.parent[i] for i in range(tree.count - change.new_entries, tree.count)} | {cursor_entry}
            if not self._extends(leaf_before, session.active_leaf(), tree.count - change.new_entries):
                changed = None  # another branch is active: every row's mark may change
            self.rows.build()
            leaf = session.active_leaf()
            if was_following:
                target = leaf
            else:
                self.new_entries += change.new_entries
                target = cursor_entry
            self._moved_by_tail = was_following
            self.tree_widget.show(session, self.rows, target, changed, tailing=True)
            self.following = was_following
        elif not (change.grew or change.bytes_read):
            return
        # else: lines that are not entries (events, titles) and move no leaf: no row changed, none repainted
        if self._problems_timer is not None:
            self._problems_timer.stop()
            self._problems_timer = None
        if not self.check_appended():
            # Too much to look at in one frame: look once the writes pause.
            self._problems_timer = self.set_timer(PROBLEMS_DELAY, self.compute_problems)
        self.update_status()

    def _extends(self, old_leaf: int, leaf: int, old_count: int) -> bool:
        """Whether ``leaf`` is ``old_leaf`` or continues it through entries appended since (index ≥ ``old_count``)."""
        parent = self.session.tree.parent
        while leaf >= old_count:
            leaf = parent[leaf]
        return leaf == old_leaf

    # -- edits --------------------------------------------------------------------
    def _plan(self, make):
        """A plan from the current session, or None with the refusal shown."""
        if self.indexing:
            self.notify("wait until the file is indexed", timeout=3)
            return None
        try:
            return make()
        except Refused as exc:
            self.notify(str(exc), title="Not possible", severity="warning", timeout=6, markup=False)
            return None

    def _confirm(self, plan, title: str, choices: list[tuple[str, str]], on_choice) -> None:
        self.app.push_screen(ConfirmScreen(title, plan.preview(), choices), on_choice)

    def _apply(self, plan, force: bool = False):
        """Carry out ``plan``; what was done (edits.Done), or None when refused.
        A file our own last edit changed a moment ago needs no live-agent
        question."""
        try:
            ours = self._our_write is not None and self._our_write == Fingerprint.of(plan.path)
        except OSError:
            ours = False
        try:
            done = edits.apply(plan, force=force or ours)
        except Refused as exc:
            if not force and isinstance(exc, LiveWriter):
                self._confirm(
                    plan,
                    "A live agent may be writing this file",
                    [("force", "Write anyway")],
                    lambda c: c and self._apply(plan, force=True),
                )
                self.notify(str(exc), severity="warning", timeout=6, markup=False)
            else:
                self.notify(str(exc), title="Refused", severity="error", timeout=6, markup=False)
            return None
        self.last_edit = done
        self._our_write = done.after or self._our_write  # the file as our last write left it
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
        if entry < 0:
            return
        if self.indexing:
            self.notify("wait until the file is indexed", timeout=3)
            return
        if entry == self.session.active_leaf():
            self.notify("this entry is already the active leaf", timeout=3)
            return
        try:
            plan = edits.plan_set_leaf(self.session, entry)
        except Refused as exc:  # no leaf to move in place: offer the fork instead
            self.notify(str(exc), title="The leaf cannot move in place", timeout=8, markup=False)
            plan = self._plan(lambda: edits.plan_fork(self.session, entry))
            if plan:
                self._confirm(
                    plan,
                    f"A {self.session.format.name} session has no leaf to move in place. Fork at this entry instead?",
                    [("confirm", "Fork")],
                    lambda c: c and self._apply(plan),
                )
            return
        if plan:
            self._confirm(plan, "Move the active leaf", [("confirm", "Move")], lambda c: c and self._apply(plan))

    def action_fork(self, entry: int | None = None) -> None:
        entry = self.tree_widget.cursor_entry if entry is None else entry
        if entry < 0:
            return
        plan = self._plan(lambda: edits.plan_fork(self.session, entry))
        if plan:

            def chosen(choice: str | None) -> None:
                done = choice and self._apply(plan)
                if done and choice == "open" and done.created:
                    self.app.open_session_file(done.created[0])

            self._confirm(plan, "Fork into a new file", [("confirm", "Fork"), ("open", "Fork and open")], chosen)

    def action_trim(self) -> None:
        """Repair what a crash left, each possible repair a choice with its
        plan: bad lines, dangling calls (closed at the end, inserted after
        the call, or in a fork that is then opened; or cut back), a torn last
        line."""
        if self.indexing:
            self.notify("wait until the file is indexed", timeout=3)
            return
        session, torn = self.session, bool(self.session.lines.torn)
        options: list[tuple[str, str, object]] = []  # (choice id, button label, plan)
        refusals: list[str] = []

        def offer(choice: str, label, make) -> None:
            try:
                plan = make()
            except NothingToDo:
                return
            except Refused as exc:
                refusals.append(str(exc))
                return
            options.append((choice, label(plan) if callable(label) else label, plan))

        offer("drop_bad", "Drop bad lines", lambda: edits.plan_drop_bad(session))
        offer(
            "close",
            lambda plan: (
                "Fork with results"
                if plan.new_files
                else "Insert results"
                if plan.rewrite is not None and not plan.append
                else "Close"
            ),
            lambda: edits.plan_close(session, drop_torn=torn),
        )
        if any(choice == "close" for choice, _, _ in options):
            offer("cut", "Cut back", lambda: edits.plan_cut(session, drop_torn=torn))
        if torn and not any(plan.drop_torn for _, _, plan in options):
            offer("drop_torn", "Drop torn line", lambda: edits.plan_drop_torn(session))
        if not options:
            self.notify(
                refusals[0] if refusals else "nothing to repair: no bad line, dangling call or torn line",
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
            done = choice and self._apply(plans[choice])
            if done and plans[choice].new_files and done.created:
                self.app.open_session_file(done.created[0])  # a fork with the calls closed: go on there

        self.app.push_screen(
            ConfirmScreen("Repair this session", body, [(choice, label) for choice, label, _ in options]), chosen
        )

    # -- branches -------------------------------------------------------------------
    def action_branches(self) -> None:
        """Every branch of the session, one row each (``b``)."""
        if self.indexing or self.session is None:
            self.notify("wait until the file is indexed", timeout=3)
            return
        from .branches import BranchesScreen

        self.app.push_screen(BranchesScreen(self.session, self.act_on_entry))

    def action_compare(self) -> None:
        """Two branches side by side from the fork point under the cursor
        (``d``): the one holding the active leaf, if it passes there, and the
        newest other."""
        if self.indexing or self.session is None:
            self.notify("wait until the file is indexed", timeout=3)
            return
        entry = self.tree_widget.cursor_entry
        if entry < 0 or self.session.tree.child_count(entry) < 2:
            self.notify(
                "d compares the branches of a fork point (⋔); b lists every branch (space marks two)", timeout=5
            )
            return
        from .compare import CompareScreen

        self.app.push_screen(CompareScreen(self.session, self.act_on_entry, fork=entry))

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

    def action_open_subagent(self) -> None:
        """Open the transcript of the sub-agent the selected call spawned."""
        entry = self.tree_widget.cursor_entry
        found = self.tree_widget.subagents.get(entry)
        if found is None and entry >= 0:
            found = self.tree_widget.subagents.get(partner(self.session, entry))
        if found is None:
            self.notify("no sub-agent transcript for this entry", timeout=3)
            return
        self.app.open_session_file(found)

    def action_toggle_quiet(self, entry: int | None = None) -> None:
        """Show or hide the rows of records the model never sees."""
        self.show_quiet = not self.show_quiet
        entry = self.tree_widget.cursor_entry if entry is None else entry
        self._show(self.session, entry if entry >= 0 else None, keep_folds=True)
        quiet = self.session.tree.quiet
        self.notify(f"{quiet:,} quiet records {'shown' if self.show_quiet else 'hidden'} (h)", timeout=2)

    def action_metadata(self) -> None:
        """The records that are not conversation entries (titles, snapshots,
        session metadata), one line each."""
        listing = [
            f"line {line:>6}  {inert(text, keep_newlines=False)}"
            for line, text in self.session.other_records(METADATA_LIMIT)
        ]
        body = "\n".join(listing) if listing else "(no metadata records)"
        self.app.push_screen(TextViewScreen(f"{os.path.basename(self.path)} — metadata records", body))

    def action_undo(self) -> None:
        if self.last_edit is None:
            self.notify("no edit to undo in this run", timeout=3)
            return
        done = self.last_edit
        plan = self._plan(lambda: edits.plan_undo(done))
        if plan:
            self._confirm(plan, "Undo the last edit", [("confirm", "Undo")], lambda c: c and self._undo(plan))

    def _undo(self, plan) -> None:
        self._apply(plan, force=True)  # our own edit: its recent write is not a live agent
        self.last_edit = None
