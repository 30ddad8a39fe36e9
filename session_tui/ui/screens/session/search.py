"""The session view's search (``/``, ``n``, ``N``): over the raw lines, in a
thread, Esc stops it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events, work
from textual.css.query import NoMatches
from textual.widgets import Input
from textual.worker import get_current_worker

from ....model.errors import Cancelled
from ....model.sanitize import inert
from ....model.session.search import find_text
from ...messages import Found
from ...workers import Slow
from .host import SessionHost

if TYPE_CHECKING:  # pragma: no cover
    from ....model.session.session import Session


class SearchActions(SessionHost):
    """Mixed into the session view."""

    async def search_box(self) -> Input:
        """The search box, mounted on first use (after the first frame, or at
        a ``/`` pressed before that)."""
        try:
            return self.query_one("#search", Input)
        except NoMatches:
            box = Input(placeholder="search entry text and ids; Enter to find, Esc to close", id="search")
            await self.mount(box, before=self.query_one("#status"))
            return box

    async def action_search(self) -> None:
        box = await self.search_box()
        box.add_class("shown")
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """(By name: ``@on`` is collected only on Textual's own classes, not on a mixin.)"""
        if event.input.id != "search":
            return
        self.state.query_text = event.value
        self._close_search()
        self._search(backwards=False)

    def on_key(self, event: events.Key) -> None:
        try:
            box = self.query_one("#search", Input)
        except NoMatches:  # (a key before the box came, just after the first frame)
            return
        if event.key == "escape" and box.has_focus:
            self._close_search()
            event.stop()

    def _close_search(self) -> None:
        for box in self.query("#search"):
            box.remove_class("shown")
        self.tree_widget.focus()

    def _search(self, backwards: bool) -> None:
        if self.state.query_text and self.state.session is not None:
            self.search_file(self.state.session, self.state.query_text, self.tree_widget.cursor_entry, backwards)

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
        if message.session is not self.state.session:
            return
        if message.entry is None:
            self.notify(f"not found: {inert(message.text, keep_newlines=False)}", timeout=2, markup=False)
        else:
            self.jump_to_entry(message.entry)

    def action_search_next(self) -> None:
        self._search(backwards=False)

    def action_search_previous(self) -> None:
        self._search(backwards=True)
