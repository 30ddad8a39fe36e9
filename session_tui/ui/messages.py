"""Messages the screens' threads post back to the event loop."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # pragma: no cover
    from ..model.catalog.session_info import SessionInfo
    from ..model.entries.pairing import ToolIssue
    from ..model.session.live_state import LiveState
    from ..model.session.problems import Problem
    from ..model.session.session import Session


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
        self,
        generation: int,
        problems: list[Problem],
        off_branch: set[int] | None = None,
        subagents: dict[int, str] | None = None,
        live: LiveState | None = None,
        dangling: list[ToolIssue] | None = None,
    ) -> None:
        self.generation, self.problems, self.off_branch = generation, problems, off_branch or set()
        self.subagents = subagents or {}
        self.live, self.dangling = live, dangling or []  # the agent's activity, and every call without a result
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


class UsageReady(Message):
    """Tokens and time, and what the session says about itself."""

    def __init__(self, generation: int, text: str, title: str | None = None, origin: str | None = None) -> None:
        self.generation, self.text, self.title, self.origin = generation, text, title, origin
        super().__init__()


class InfosRead(Message):
    """Fresh infos by path (None: the file is gone); ``left``: files still to
    read; ``now``: show them at once (the listing, the first page of titles)."""

    def __init__(self, updates: list[tuple[str, SessionInfo | None]], left: int, now: bool = False) -> None:
        self.updates, self.left, self.now = updates, left, now
        super().__init__()


class SearchProgress(Message):
    def __init__(
        self,
        search_id: int,
        text: str,
        done: int,
        total: int,
        found: dict[str, int],
        finished: bool = False,
        error: str | None = None,
    ) -> None:
        self.search_id, self.text, self.done, self.total = search_id, text, done, total
        self.found, self.finished, self.error = found, finished, error
        super().__init__()

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SearchProgress) and not message.finished


class OpenSession(Message):
    """Open this session file in a view of its own (the app does: the
    picker, a sub-agent call, a fork just written)."""

    def __init__(self, path: str, query: str = "", line: int | None = None) -> None:
        self.path, self.query = path, query  # a word searched for before: the view finds it, `n` goes on
        self.line = line  # the 0-based line of the hit to open at (the search index found it there)
        super().__init__()
