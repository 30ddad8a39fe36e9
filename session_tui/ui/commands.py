"""Command palette: jump to an entry by id or text."""

from __future__ import annotations

from textual.command import Hit, Provider

from ..model.sanitize import inert
from ..model.search import find_text

MAX_HITS = 20


class EntryJumpProvider(Provider):
    """``ctrl+p``, then an id (or a prefix) or some text: jump to the entry."""

    def _screen(self):
        from .screens.session import SessionScreen

        screen = self.screen
        return screen if isinstance(screen, SessionScreen) and screen.session is not None else None

    async def search(self, query: str):
        screen = self._screen()
        query = query.strip()
        if screen is None or len(query) < 2:
            return
        session = screen.session
        matcher = self.matcher(query)
        seen: set[int] = set()
        entry = -1
        for _ in range(MAX_HITS):
            entry = find_text(session, query, entry)
            if entry is None or entry in seen:
                break
            seen.add(entry)
            view = session.format.view(session.record(entry))
            label = f"line {session.line_of(entry)} · {view.role} · {view.id or ''} {view.text[:60]}"
            label = inert(" ".join(label.split()), keep_newlines=False)
            yield Hit(matcher.match(label) or 0.5, matcher.highlight(label),
                      (lambda e=entry: screen.jump_to_entry(e)), help="jump to this entry")
