"""What a session view knows and shows, in one object: the session and its
rows, what was found in it, what the tail and the agent are doing, and the
view's own last write. The view and its action mixins read and change it
through ``screen.state``. The fields the status line shows are declared
with ``_status()``: assigning one tells the view (``on_status``), which
rebuilds the line's facts once for all the assignments a handler makes
(``SessionScreen._status_changed``). A change to the session that is no
assignment (a refresh that grew the tree or moved the leaf) is told with
``status_changed()``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ....model.entries.pairing import ToolIssue
    from ....model.session.live_state import LiveState
    from ....model.session.problems import Problem
    from ....model.session.rows import RowLayout
    from ....model.session.session import Session
    from ....store import Fingerprint
    from ....store.edits import Done


def _status(default: Any = None) -> Any:
    """A field the status line shows: assigning it refreshes the line."""
    return field(default=default, metadata={"status": True})


@dataclass
class ViewState:
    # the session and what is drawn of it
    session: Session | None = _status()  # None until mounted
    rows: RowLayout | None = None  # with the session
    generation: int = 0  # counts the reloads: a worker's answer for an older one is dropped
    show_quiet: bool = False  # rows of records the model never sees
    indexing: str = _status("")  # "indexing 40%", "indexing stopped", or "" once whole
    usage: str = _status("")  # session totals: tokens, time span
    session_title: str | None = _status()  # what the session calls itself (not Screen.title)
    origin: str | None = _status()  # the session it was forked from
    # what was found in it
    problems: list[Problem] | None = _status()  # None until first looked for
    dangling: list[ToolIssue] = field(default_factory=list)  # every call without a result, as last looked for
    live_state: LiveState | None = _status()  # what the agent is doing, once problems were looked for
    # the tail
    live: str = _status("live")  # what the status says of the tail
    tail_armed: bool = False  # the file is watched: every write from now on is seen
    following: bool = _status(True)  # the cursor follows the active leaf
    new_entries: int = _status(0)  # appended since the cursor left the leaf
    moved_by_tail: bool = False
    deleted_notified: bool = False
    # where the picker sent the view
    query_text: str = ""  # searched for in the picker: found once the file is read, `n` goes on
    hit_line: int | None = None  # the 0-based line of the picker's hit: the view opens there
    query_found: bool = False
    # the view's own writes
    last_edit: Done | None = None  # the last edit made here, for undo
    our_write: Fingerprint | None = None  # the file as our last write left it: no live-agent question
    # told when a status field is assigned (the view sets it once mounted)
    on_status: Callable[[], None] | None = field(default=None, repr=False, compare=False)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name in STATUS_FIELDS:
            self.status_changed()

    def status_changed(self) -> None:
        """Tell the view the status line may say something else."""
        notify = self.__dict__.get("on_status")  # (None while __init__ is still assigning)
        if notify is not None:
            notify()


#: the fields the status line shows
STATUS_FIELDS = frozenset(f.name for f in fields(ViewState) if f.metadata.get("status"))
