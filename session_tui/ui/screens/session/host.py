"""What the session view's mixins (edits, problems, search) use of the view
they are mixed into: declared for the type checker only.

At run time ``SessionHost`` is ``object``: the mixins stay plain classes, and
the view's method resolution order, its bindings and Textual's name-based
handler discovery are exactly as without it. For the type checker it is a
``Screen`` carrying the session view's attributes, so the mixins are checked
against what ``SessionScreen`` really provides (it must stay compatible).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from textual.screen import Screen
    from textual.timer import Timer

    from ....model.session.session import Session
    from ...widgets.entry_tree import EntryTree
    from .state import ViewState

    class SessionHost(Screen):
        state: ViewState  # what the view knows and shows (state.py)
        path: str
        _problems_timer: Timer | None

        @property
        def tree_widget(self) -> EntryTree: ...

        def show_detail(self) -> None: ...

        def jump_to_entry(self, entry: int | None, row: bool = False) -> None: ...

        def entry_for_line(self, line: int) -> int | None: ...

        def on_file_changed(self) -> None: ...

        def _show(self, session: Session, cursor_entry: int | None, keep_folds: bool = False) -> None: ...

        def check_appended(self) -> bool: ...

        def compute_problems(self) -> None: ...

        def index_file(self) -> object: ...

else:
    SessionHost = object
