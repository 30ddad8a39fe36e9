"""Command palette: jump to an entry by id or text (the file is scanned in a thread: keys stay live)."""

from __future__ import annotations

import asyncio
import threading

from textual.command import Hit, Provider

from ..model.errors import Cancelled
from ..model.sanitize import inert
from ..model.session.search import find_all
from .masking import masked, redacting

MAX_HITS = 20


class EntryJumpProvider(Provider):
    """``ctrl+p``, then an id (or a prefix) or some text: jump to the entry."""

    def _screen(self):
        from .screens.session import SessionScreen

        screen = self.screen
        return screen if isinstance(screen, SessionScreen) and screen.state.session is not None else None

    async def search(self, query: str):
        screen = self._screen()
        query = query.strip()
        if screen is None or len(query) < 2:
            return
        session = screen.state.session
        matcher = self.matcher(query)
        stop = threading.Event()  # set when the palette moves on (a new key): the scan thread ends
        try:
            entries = await asyncio.to_thread(find_all, session, query, MAX_HITS, stop.is_set)
        except Cancelled:
            return
        finally:
            stop.set()
        for entry in entries:
            view = session.format.view(session.record(entry))
            text = masked(view.text, redacting(self.app))[:60]
            label = f"line {session.line_of(entry)} · {view.role} · {view.id or ''} {text}"
            label = inert(" ".join(label.split()), keep_newlines=False)
            yield Hit(
                matcher.match(label) or 0.5,
                matcher.highlight(label),
                (lambda e=entry: screen.jump_to_entry(e)),
                help="jump to this entry",
            )
