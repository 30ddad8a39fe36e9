"""What a session view knows and shows, in one object: the session and its
rows, what was found in it, what the tail and the agent are doing, and the
view's own last write. The view and its action mixins read and change it
through ``screen.state``; the status line is built from it in one place
(``SessionScreen.update_status``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ....model.entries.pairing import ToolIssue
    from ....model.session.live_state import LiveState
    from ....model.session.problems import Problem
    from ....model.session.rows import RowLayout
    from ....model.session.session import Session
    from ....store import Fingerprint
    from ....store.edits import Done


@dataclass
class ViewState:
    # the session and what is drawn of it
    session: Session | None = None  # None until mounted
    rows: RowLayout | None = None  # with the session
    generation: int = 0  # counts the reloads: a worker's answer for an older one is dropped
    show_quiet: bool = False  # rows of records the model never sees
    indexing: str = ""  # "indexing 40%", "indexing stopped", or "" once whole
    usage: str = ""  # session totals: tokens, time span
    session_title: str | None = None  # what the session calls itself (not Screen.title)
    origin: str | None = None  # the session it was forked from
    # what was found in it
    problems: list[Problem] | None = None  # None until first looked for
    dangling: list[ToolIssue] = field(default_factory=list)  # every call without a result, as last looked for
    live_state: LiveState | None = None  # what the agent is doing, once problems were looked for
    # the tail
    live: str = "live"  # what the status says of the tail
    tail_armed: bool = False  # the file is watched: every write from now on is seen
    following: bool = True  # the cursor follows the active leaf
    new_entries: int = 0  # appended since the cursor left the leaf
    moved_by_tail: bool = False
    deleted_notified: bool = False
    # where the picker sent the view
    query_text: str = ""  # searched for in the picker: found once the file is read, `n` goes on
    hit_line: int | None = None  # the 0-based line of the picker's hit: the view opens there
    query_found: bool = False
    # the view's own writes
    last_edit: Done | None = None  # the last edit made here, for undo
    our_write: Fingerprint | None = None  # the file as our last write left it: no live-agent question
