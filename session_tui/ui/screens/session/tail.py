"""The session view's live tail: a local file's changes come from
watchfiles, a remote file's from a poll of its size and time; each change
reads only what was appended (or all of it, when the file was replaced) and
updates the rows, the cursor (following the leaf or not) and the status."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from textual import work

from ....model.errors import SessionError
from ...app_services import settings_of
from .host import SessionHost

if TYPE_CHECKING:  # pragma: no cover
    from ....model.entries.tree import SessionTree

TAIL_DEBOUNCE_MS = 15
TAIL_STEP_MS = 5
#: how often a remote file's size is asked for while tailing it
PROBLEMS_DELAY = 0.4  # seconds of quiet in the file before problems are looked for again (in a worker)


class TailActions(SessionHost):
    @work(exclusive=True, group="tail", exit_on_error=False, description="tail")
    async def tail(self) -> None:
        if self.state.session is not None and self.state.session.remote:
            await self._poll_remote()
            return
        # the last of the files read is the one a writer appends to (a Codex thread goes on in its newest file)
        written = self.state.session.files[-1] if self.state.session is not None else self.path
        directory = os.path.dirname(os.path.abspath(written)) or "."
        files = self.state.session.files if self.state.session is not None else (written,)
        names = {os.path.basename(f) for f in files}
        from watchfiles import awatch  # (here, after the first frame: with anyio's backend, ~55 ms)

        self.call_later(self._on_tail_armed)  # runs once awatch below has set its watch (no await before it)
        async for changes in awatch(
            directory, debounce=TAIL_DEBOUNCE_MS, step=TAIL_STEP_MS, recursive=False, ignore_permission_denied=True
        ):
            if any(os.path.basename(changed) in names for _, changed in changes):  # (a database: its WAL too)
                self.on_file_changed()
                await asyncio.sleep(0)

    async def _poll_remote(self) -> None:
        """A remote file has no change events: its size and time are asked
        every settings.poll_seconds (in a thread: the network is slow), and
        only a change reads the file (the appended bytes, or all of it when
        it was replaced)."""
        self.state.tail_armed = True
        seen = None
        while True:
            session = self.state.session
            if session is not None:
                try:
                    now = await asyncio.to_thread(session.stat)
                    replaced = now != seen and await asyncio.to_thread(session.read_ahead, now)
                except (SessionError, OSError):
                    now, replaced = None, False  # gone or unreachable: the refresh says which
                if replaced and not self.state.indexing:  # read again from the start, in a worker
                    self.notify("reloaded: the file was replaced", severity="warning", timeout=4)
                    self.state.indexing = "indexing 0%"
                    self.index_file()
                    return  # the tail starts again once the index is done
                if now != seen:  # (the first time too: what was written since the index)
                    self.on_file_changed()
                    seen = now
            await asyncio.sleep(settings_of(self).poll_seconds)

    def _on_tail_armed(self) -> None:
        self.state.tail_armed = True
        self.on_file_changed()  # what was written between the index and the watch

    def on_file_changed(self) -> None:
        session, rows = self.state.session, self.state.rows
        if session is None or rows is None or self.state.indexing:
            return
        cursor_entry = self.tree_widget.cursor_entry
        was_following = self.state.following
        torn_before, leaf_before = session.lines.torn, session.active_leaf()
        try:
            change = session.refresh()
        except SessionError:
            if not self.state.deleted_notified:
                self.notify("the file is gone: showing the last view", severity="warning")
                self.state.deleted_notified = True
            self.state.live = "deleted"
            return
        if self.state.deleted_notified:
            self.state.deleted_notified = False
            self.state.live = "live"
        if change.reloaded:
            if not session.rows:  # (rows written again as the agent works: no surprise to say)
                self.notify(f"reloaded: {change.reloaded}", severity="warning", timeout=4)
            self._close_branch_views()
            self.state.new_entries = 0
            self._show(session, cursor_entry=None if was_following or not session.rows else cursor_entry)
        elif (
            change.new_entries
            or change.rewritten
            or session.lines.torn != torn_before
            or session.active_leaf() != leaf_before
        ):
            tree = session.tree
            changed: set[int] | None
            changed = {tree.parent[i] for i in range(tree.count - change.new_entries, tree.count)} | {cursor_entry}
            changed |= change.rewritten  # (a message written again: its row reads the last copy)
            if not self._extends(tree, leaf_before, session.active_leaf(), tree.count - change.new_entries):
                changed = None  # another branch is active: every row's mark may change
            rows.build()
            leaf = session.active_leaf()
            if was_following:
                target = leaf
            else:
                self.state.new_entries += change.new_entries
                target = cursor_entry
            self.state.moved_by_tail = was_following
            self.tree_widget.show(session, rows, target, changed, tailing=True)
            self.state.following = was_following
        elif not (change.grew or change.bytes_read):
            return
        # else: lines that are not entries (events, titles) and move no leaf: no row changed, none repainted
        if self._problems_timer is not None:
            self._problems_timer.stop()
            self._problems_timer = None
        if not self.check_appended():
            # Too much to look at in one frame, or a look began before this change (its session
            # changed under it: what it finds mixes the two, a call just written read as a stopped
            # agent's): that look is dropped, and the next is made once the writes pause.
            self.state.generation += 1
            self._problems_timer = self.set_timer(PROBLEMS_DELAY, self.compute_problems)
        self.state.status_changed()  # the same session grew, or its leaf moved: no field said so

    @staticmethod
    def _extends(tree: SessionTree, old_leaf: int, leaf: int, old_count: int) -> bool:
        """Whether ``leaf`` is ``old_leaf`` or continues it through entries appended since (index ≥ ``old_count``)."""
        parent = tree.parent
        while leaf >= old_count:
            leaf = parent[leaf]
        return leaf == old_leaf

    def _close_branch_views(self) -> None:
        """A branch list or compare over this session holds entry numbers of
        the file as it was: after a reload they name other entries. Close them."""
        from ..branches import BranchesScreen
        from ..compare import CompareScreen

        stack = self.app.screen_stack
        if self in stack:
            above = stack[stack.index(self) + 1 :]
            if any(isinstance(s, (BranchesScreen, CompareScreen)) and s.session is self.state.session for s in above):
                while self.app.screen is not self:
                    self.app.pop_screen()
