"""The session view: entry tree, detail pane, status line; live tail."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widget import MountError
from textual.widgets import Static
from textual.worker import get_current_worker

from ....model.entries.pairing import partner
from ....model.errors import Cancelled, SessionError
from ....model.reading.segment import Shape
from ....model.sanitize import inert
from ....model.session.context import resume_items
from ....model.session.rows import RowLayout
from ....model.session.search import entry_at_line
from ....model.session.session import Session
from ....model.words import plural
from ... import cells, keys
from ...app_services import services
from ...masking import mask_of, masked, redacting
from ...messages import ContextReady, IndexDone, IndexProgress, OpenSession
from ...widgets.detail import DetailPane
from ...widgets.entry_tree import EntryTree
from ...widgets.status import StatusFacts, StatusLine
from ...workers import Slow
from .edits import EditActions
from .problems import ProblemActions
from .resume import ResumeActions
from .search import SearchActions
from .state import ViewState
from .tail import TailActions

if TYPE_CHECKING:  # pragma: no cover
    from textual.timer import Timer

    from ....model.usage.compactions import Compaction

#: smaller files are indexed before the first paint; bigger ones show their end first and are
#: indexed after it (a 3 MB one's full read, ~10 ms, was 1.51x -> 1.38x a hello-world's first paint)
SYNC_INDEX_BYTES = 1 << 20
REMOTE_INDEX_DELAY = 0.1  # seconds after the first frame before a remote file's full index starts
PREVIEW_BYTES = 256 << 10  # bigger ones show their end first: 256 KiB read in 8 ms where 1 MiB took 28
PREVIEW_ENTRIES = 100  # fewer entries than this there (huge tool results): the last MiB instead
PREVIEW_MAX_BYTES = 1 << 20
DETAIL_DELAY = 0.03  # after a key: holding ↓ must not parse every entry it passes
DETAIL_DELAY_LIVE = 0.25  # after the tail moved the cursor: rows first, details when writes pause
METADATA_LIMIT = 5000  # records listed by `m`
LIVE_TICK = 1.0  # seconds between looks at what the agent is doing (the running calls' clocks)
INDEX_YIELD = 0.0005  # seconds the index thread sleeps between blocks: keys stay live while indexing


class SessionScreen(TailActions, ProblemActions, SearchActions, EditActions, ResumeActions, Screen):
    BINDINGS = keys.bindings()  # ui/keys.py: the footer, the palette and the help from one list
    DEFAULT_CSS = """
    SessionScreen #panes { height: 1fr; }
    SessionScreen EntryTree { width: 3fr; }
    SessionScreen DetailPane { width: 2fr; }
    SessionScreen #search { dock: bottom; display: none; }
    SessionScreen #search.shown { display: block; }
    SessionScreen #footer-slot { dock: bottom; height: 1; }
    """

    def __init__(
        self, path: str, format: str | None = None, *, watch: bool = True, query: str = "", line: int | None = None
    ) -> None:
        super().__init__()
        self.path = path
        self.format = format
        self.watching = watch  # follow the file (not DOMNode.watch)
        self.state = ViewState(live="live" if watch else "not watching", query_text=query, hit_line=line)
        self._detail_timer: Timer | None = None
        self._problems_timer: Timer | None = None
        self._status_due = False  # a rebuild of the status line's facts is queued

    # -- building -----------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            yield EntryTree(id="tree")
            yield DetailPane(id="detail")
        yield StatusLine(id="status")
        yield Static(id="footer-slot")  # the footer's row, until the footer comes after the first frame

    async def _after_first_frame(self) -> None:
        """What the first frame does not wait for: the footer's keys and the
        search box (the detail pane's body comes the same way): each a few
        ms of modules, styles and rendering before the leaf's row is drawn."""
        from textual.widgets import Footer

        try:
            slot = self.query_one("#footer-slot")
            await self.search_box()
            await self.mount(Footer(compact=True, show_command_palette=False), after=slot)
        except (NoMatches, MountError):  # (the view closed, or the app quit, before it came)
            return
        await slot.remove()
        self.refresh_bindings()  # (a footer mounted after the focus moved learns the keys from this)

    @property
    def tree_widget(self) -> EntryTree:
        return self.query_one(EntryTree)

    def on_unmount(self) -> None:
        """The file is closed with the view (its threads are cancelled with it)."""
        if self.state.session is not None:
            self.state.session.close()

    def on_mount(self) -> None:
        self.state.on_status = self._status_changed  # the status line follows the state from now on
        self.tree_widget.focus()
        self.tree_widget.live = self.watching
        self.call_after_refresh(self._after_first_frame)
        if self.watching:
            self.set_interval(LIVE_TICK, self.tick_live_state)
        try:
            self._open_first_view()
        except SessionError as exc:  # gone, or unreachable, since it was looked at
            self._cannot_open(str(exc))

    def _cannot_open(self, reason: str) -> None:
        """Say why in one line: back to the view under this one, or out of the app."""
        if services(self).can_go_back or services(self).picker_paths:
            self.app.notify(reason, title="Cannot open", severity="error", timeout=6)
            self.app.pop_screen()
        else:
            self.app.exit(return_code=2, message=f"session-tui: {inert(reason, keep_newlines=False)}")

    def _open_first_view(self) -> None:
        session = Session(self.path, self.format)
        size = session.stat().size
        if size <= SYNC_INDEX_BYTES:
            session.refresh()
            self._show(session, cursor_entry=None)
            self._after_index()
        else:  # the same object, not yet read, reads only the end (its file already open)
            preview = session
            preview.start, preview.parallel_ok = max(0, size - PREVIEW_BYTES), False
            preview.refresh()
            if preview.entries < PREVIEW_ENTRIES and preview.start > 0:  # a page of rows, not a few
                preview.close()
                preview = Session(self.path, self.format, start=max(0, size - PREVIEW_MAX_BYTES), parallel_ok=False)
                preview.refresh()
            self.state.indexing = "indexing 0%"
            self._show(preview, cursor_entry=None)
            if session.remote:  # the first frame has the network to itself: the index waits a moment
                self.call_after_refresh(self.set_timer, REMOTE_INDEX_DELAY, self._start_index)
            else:
                self.call_after_refresh(self._start_index)  # after the first frame: the scan would slow it

    def _start_index(self) -> None:
        if "%" in self.state.indexing:  # (not stopped by an Esc pressed before it started)
            self.index_file()

    def _after_index(self) -> None:
        self.call_after_refresh(self.compute_problems)  # its thread would hold the GIL from the first frame
        if self.watching:  # after the first frame (a worker started now runs before it: watchfiles, ~25 ms)
            self.call_after_refresh(self.tail)
        if self.state.session is not None:  # the picker's estimate gives way to the count
            services(self).counted(self.path, self.state.session.entries)
            if self.state.hit_line is not None and not self.state.query_found:  # the search index's hit: there
                self.state.query_found = True
                entry = entry_at_line(self.state.session, self.state.hit_line)
                if entry is not None:
                    self.jump_to_entry(entry)
                    return
            if self.state.query_text and not self.state.query_found:  # the picker's search word: its first match
                self.state.query_found = True
                self.search_file(self.state.session, self.state.query_text, -1, False)

    def _show(self, session: Session, cursor_entry: int | None, keep_folds: bool = False) -> None:
        expanded = self.state.rows.expanded if keep_folds and self.state.rows is not None else None
        self.state.session = session
        self.state.rows = RowLayout(session, expanded, show_quiet=self.state.show_quiet)
        target = session.active_leaf() if cursor_entry is None else cursor_entry
        self.tree_widget.show(session, self.state.rows, target)

    # -- status -------------------------------------------------------------------
    def _status_changed(self) -> None:
        """A status field was assigned: the facts are rebuilt once, after the
        handler that assigned it (and any queued before), so the line changes
        in the same frame as the rows, however many fields the handler set."""
        if not self._status_due:
            self._status_due = self.call_later(self._show_status)

    def _show_status(self) -> None:
        """The status line's facts from the view's state: the one place they
        are built (a view being torn down has none to show)."""
        self._status_due = False
        session = self.state.session
        if session is None or not self.is_attached:
            return
        leaf = session.shown_leaf()  # (the entry session-tui's own pointer names, as ``check`` says it)
        if leaf < 0:
            leaf_text = "(empty)"
        else:
            view_id = None
            try:
                view_id = session.format.view(session.record(leaf)).id
            except Exception:  # the line changed under us: the leaf is said by its line alone
                pass
            where = f"line {session.line_of(leaf)}" if not session.partial else "near the end"
            leaf_text = f"{inert(str(view_id)[:13], keep_newlines=False)}… ({where})" if view_id else where
        live = self.state.live
        if (
            live != "deleted" and self.state.live_state is not None
        ):  # what the agent is doing, not that the file is watched
            live = self.state.live_state.words(cells.now()) + ("" if self.watching else " (not watching)")
            if self.state.live_state.live and self.state.following and self.watching:
                live += " · following"
        tree = session.tree
        title = (
            masked(self.state.session_title, redacting(self.app))
            if self.state.session_title
            else self.state.session_title
        )
        facts = StatusFacts(
            path=os.path.basename(self.path),
            entries=session.entries,  # (no leaf pointer of session-tui's: ``check``'s count)
            leaves=tree.leaves,
            forks=tree.branch_points,
            format=session.format.name if session.format else None,
            problems=None if self.state.problems is None else len(self.state.problems),
            leaf_text=leaf_text,
            live=live,
            indexing=self.state.indexing,
            new=self.state.new_entries,
            usage=self.state.usage,
            title=title,
            origin=self.state.origin,
        )
        try:
            self.query_one(StatusLine).facts = facts
        except NoMatches:  # (its widgets already gone)
            pass

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
        if self.state.indexing:
            self.state.indexing = f"indexing {100 * message.done // max(message.total, 1)}% (Esc stops)"

    def on_index_done(self, message: IndexDone) -> None:
        if message.session is None:
            self.state.indexing = f"indexing stopped ({message.error}): showing the end of the file"
            return
        self.state.indexing = ""
        old = self.state.session
        assert old is not None  # the preview is shown (on mount) before the index starts
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.is_attached or self not in self.app.screen_stack:  # popped: its widgets are going
            return False
        if action == "back":  # in the first view, q is the app's: quit
            return services(self).can_go_back
        return True

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_escape(self) -> None:
        running = {w.group for w in self.workers if w.node is self and not w.is_finished}
        if running & {"search", "context", "dry-run"}:  # a long search, context or dry run: stop it first
            for group in ("search", "context", "dry-run"):
                self.workers.cancel_group(self, group)
            self.notify("stopped", timeout=1)
        elif self.state.indexing.startswith("indexing ") and "%" in self.state.indexing:
            if any(w.group == "index" and not w.is_finished for w in self.workers if w.node is self):
                self.workers.cancel_group(self, "index")  # (it says it stopped)
            else:  # not started yet (an Esc before the first frame): it will not start
                self.on_index_done(IndexDone(None, "cancelled"))
        elif services(self).can_go_back:
            self.app.pop_screen()

    def jump_to_entry(self, entry: int | None, row: bool = False) -> None:
        if entry is None:
            return
        if row:
            self.tree_widget.move_to(entry)
            return
        session, rows = self.state.session, self.state.rows
        if session is None or rows is None:
            return
        target = rows.reveal(entry)
        if target is None and not self.state.show_quiet and session.tree.quiet:  # a hidden record: show them
            self.action_toggle_quiet(entry)
            return
        self.tree_widget.show(session, rows, entry)
        if target is not None:
            self.tree_widget.move_to(target)
        self.tree_widget.focus()

    # -- detail -------------------------------------------------------------------
    @on(EntryTree.Highlighted)
    def on_highlight(self, event: EntryTree.Highlighted) -> None:
        leaf = self.state.session.active_leaf() if self.state.session else -1
        if self.state.session is not None and not self.state.indexing:
            rows = self.state.rows
            self.state.following = event.entry == (rows.shown_entry(leaf) if rows is not None and leaf >= 0 else leaf)
            if self.state.following:
                self.state.new_entries = 0
        if self._detail_timer is not None:
            self._detail_timer.stop()
        delay = DETAIL_DELAY_LIVE if self.state.moved_by_tail else DETAIL_DELAY
        self.state.moved_by_tail = False
        self._detail_timer = self.set_timer(delay, self.show_detail)

    def show_detail(self) -> None:
        if self.state.session is None:
            return
        entry = self.tree_widget.cursor_entry
        try:
            self.query_one(DetailPane).show_entry(self.state.session, entry, self.tree_widget.tool_name)
        except Exception as exc:  # the file changed under us; the next refresh fixes it
            self.query_one(DetailPane).show_text(Text(f"cannot read this entry: {exc}"), "")

    def on_entry_tree_chosen(self, message: EntryTree.Chosen) -> None:
        """Enter on a compaction or summary node: its inspector."""
        if self.state.session is None or self.state.indexing:
            return
        if self.state.session.tree.shape[message.entry] & Shape.SUMMARY:
            self.inspect_compaction(message.entry)

    @work(thread=True, exclusive=True, group="compaction", exit_on_error=False, description="compaction")
    def inspect_compaction(self, entry: int) -> None:
        from ....model.usage.compactions import compactions

        session = self.state.session
        if session is None:
            return
        found = compactions(session, entries=[entry])
        if not found:
            self.app.call_from_thread(self.notify, "a summary, but not a compaction this format records", timeout=3)
            return
        self.app.call_from_thread(self._show_compaction, session, found[0])

    def _show_compaction(self, session: Session, compaction: Compaction) -> None:
        from ..compaction import CompactionScreen

        def jump(line: int | None) -> None:
            if line is not None and self.state.rows is not None:
                entry = self.entry_for_line(line)
                if entry is not None and entry >= 0:
                    self.jump_to_entry(entry)

        self.app.push_screen(CompactionScreen(session, compaction), jump)

    def action_usage(self) -> None:
        """The context over time, the cost, the tools (``U``)."""
        if self.state.indexing or self.state.session is None:
            self.notify("wait until the file is indexed", timeout=3)
            return
        from ..usage import UsageScreen

        self.app.push_screen(UsageScreen(self.state.session))

    def action_raw(self) -> None:
        pane = self.query_one(DetailPane)
        pane.raw = not pane.raw
        self.show_detail()

    def action_mask_secrets(self) -> None:
        pane = self.query_one(DetailPane)
        if redacting(self.app):
            self.notify("secrets are masked everywhere (started with --redact)", timeout=3)
            return
        pane.mask = not pane.mask
        self.notify("secrets masked in the detail pane" if pane.mask else "secrets shown", timeout=2)
        self.show_detail()

    def action_secrets(self) -> None:
        from ..secrets import list_secrets

        list_secrets(self)

    def action_open_full(self) -> None:
        pane = self.query_one(DetailPane)
        entry = self.tree_widget.cursor_entry
        session = self.state.session
        where = f"line {session.line_of(entry)}" if entry >= 0 and session is not None else "pending line"
        from ..text_view import TextViewScreen

        self.app.push_screen(TextViewScreen(f"{os.path.basename(self.path)} — {where}", pane.full_text))

    def action_partner(self) -> None:
        entry = self.tree_widget.cursor_entry
        if entry < 0 or self.state.session is None:
            return
        other = partner(self.state.session, entry)
        if other is None:
            self.notify("no matching tool call or result", timeout=2)
        else:
            self.jump_to_entry(other)

    def action_context(self) -> None:
        session = self.state.session
        if session is None:
            return
        entry = self.tree_widget.cursor_entry
        if entry < 0:
            entry = session.active_leaf()
        if entry < 0:
            return
        self.build_context(session, entry)

    @work(thread=True, exclusive=True, group="context", exit_on_error=False, description="context")
    def build_context(self, session: Session, entry: int) -> None:
        """The context at ``entry`` in a thread (off the active leaf, every
        record on its path is read): keys stay live, Esc stops it."""
        worker = get_current_worker()
        slow = Slow(self, "building the context… (Esc stops)")
        try:
            with session.checking:
                items = resume_items(session, entry, should_stop=lambda: slow() or worker.is_cancelled)
            from ..text_view import context_text

            body = context_text(session, items)
        except Cancelled:
            return
        client = session.format.client
        added = sum(1 for item in items if item.added_by)
        who = f"{client.title} sends on resume" if client else "the model would be sent"
        model = session.format.resume_model(session, [(item.entry, item.message) for item in items])
        title = (
            f"context at line {session.line_of(entry)}: {plural(len(items), 'message')} {who}"
            + (f" ({added:,} added by {client}, marked +)" if added else "")
            + (f", as sent to {model}" if model else "")
        )
        self.post_message(ContextReady(session, title, body))

    def on_context_ready(self, message: ContextReady) -> None:
        if message.session is self.state.session:
            from ..text_view import TextViewScreen

            self.app.push_screen(TextViewScreen(message.title, message.body, at_end=True))

    # -- moving -------------------------------------------------------------------
    def action_go_leaf(self) -> None:
        leaf = self.state.session.active_leaf() if self.state.session is not None else -1
        if leaf >= 0:
            self.jump_to_entry(leaf)

    def action_follow(self) -> None:
        self.state.following = not self.state.following
        if self.state.following:
            self.state.new_entries = 0
            self.action_go_leaf()

    def action_open_subagent(self) -> None:
        """Open the transcript of the sub-agent the selected call spawned."""
        entry = self.tree_widget.cursor_entry
        found = self.tree_widget.subagents.get(entry)
        if found is None and entry >= 0 and self.state.session is not None:
            other = partner(self.state.session, entry)
            if other is not None:
                found = self.tree_widget.subagents.get(other)
        if found is None:
            self.notify("no sub-agent transcript for this entry", timeout=3)
            return
        self.post_message(OpenSession(found))

    def action_toggle_quiet(self, entry: int | None = None) -> None:
        """Show or hide the rows of records the model never sees."""
        session = self.state.session
        if session is None:
            return
        self.state.show_quiet = not self.state.show_quiet
        entry = self.tree_widget.cursor_entry if entry is None else entry
        self._show(session, entry if entry >= 0 else None, keep_folds=True)
        quiet = session.tree.quiet
        self.notify(f"{quiet:,} quiet records {'shown' if self.state.show_quiet else 'hidden'} (h)", timeout=2)

    def action_metadata(self) -> None:
        """The records that are not conversation entries (titles, snapshots,
        session metadata), one line each."""
        if self.state.session is None:
            return
        from ....model.session.other_records import other_records

        listing = [
            f"line {line:>6}  {inert(text, keep_newlines=False)}"
            for line, text in other_records(self.state.session, METADATA_LIMIT, mask_of(self.app))
        ]
        body = "\n".join(listing) if listing else "(no metadata records)"
        from ..text_view import TextViewScreen

        self.app.push_screen(TextViewScreen(f"{os.path.basename(self.path)} — metadata records", body))
