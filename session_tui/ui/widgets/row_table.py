"""A table of rows drawn with the Line API under a pinned heading (line 0):
only the visible rows are drawn, the cursor is a row index, printable keys
start a filter. The picker's and the branch list's tables are ones."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.events import Key
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

NAV_KEYS = "jkgGq"  # move (j k g G) and go back (q) in every list: never the start of a filter


class RowTable(ScrollView, can_focus=True):
    cursor: reactive[int] = reactive(0, repaint=False, always_update=True)
    PASS_KEYS = NAV_KEYS  # printable keys left to the bindings instead of starting a filter
    FILTERS = False  # a typed key starts its screen's filter box (which then takes the focus)
    BINDINGS = [  # the same moves in every list and text view
        Binding("up,k", "step(-1)", "Up", show=False),
        Binding("down,j", "step(1)", "Down", show=False),
        Binding("pageup", "step(-1, True)", "Page up", show=False),
        Binding("pagedown", "step(1, True)", "Page down", show=False),
        Binding("home,g", "move_to(0)", "First", show=False),
        Binding("end,G", "move_to(-1)", "Last", show=False),
    ]
    HEADING = ""  # the component class of the heading line
    CURSOR = ""  # the component class of the cursor's row

    class Highlighted(Message):
        """The cursor moved to another row."""

    class Typed(Message):
        """A character typed while the table has focus: the start of a filter."""

        def __init__(self, character: str) -> None:
            self.character = character
            super().__init__()

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: list[Any] = []
        self._typing = False  # a filter was started from here and its box does not have the focus yet

    @staticmethod
    def row_key(row: Any) -> object:
        """What identifies a row across two lists (the cursor stays on it)."""
        return row

    def show(self, rows: list, keep: object | None = None) -> None:
        """Show ``rows``, the cursor on the row ``keep`` names if it is among them."""
        self.rows = rows
        self.virtual_size = Size(self.size.width, len(rows) + 1)
        found = next((k for k, row in enumerate(rows) if self.row_key(row) == keep), None) if keep is not None else None
        self.cursor = found if found is not None else min(self.cursor, max(len(rows) - 1, 0))
        self.refresh()

    @property
    def selected(self) -> Any:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def _style(self, name: str) -> Style:
        """The theme's colour and weight of a component (the row gives the background)."""
        full = self.get_component_rich_style(name)
        return Style(color=full.color, bold=full.bold)

    def heading(self, width: int) -> Text:
        """The column heading (line 0)."""
        raise NotImplementedError

    def row_text(self, row: Any, width: int) -> Text:
        """One row, its cells styled (the cursor gives the background)."""
        raise NotImplementedError

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        if y == 0:
            line = self.heading(width)
            line.stylize(self._style(self.HEADING))
        else:
            index = self.scroll_offset.y + y - 1
            if index >= len(self.rows):
                return Strip.blank(width, base)
            line = self.row_text(self.rows[index], width)
            if index == self.cursor:
                base = self.get_component_rich_style(self.CURSOR)
        line.stylize_before(base)  # under the cells' own styles
        return Strip(list(line.render(self.app.console))).adjust_cell_length(width, base).crop(0, width)

    def watch_cursor(self, old: int, new: int) -> None:
        self.refresh_line(old + 1)  # content lines: the heading is line 0
        self.refresh_line(new + 1)
        height = max((self.scrollable_content_region.height or self.size.height) - 1, 1)
        top = self.scroll_offset.y
        if new < top:
            self.scroll_to(y=new, animate=False, immediate=True)
        elif new >= top + height:
            self.scroll_to(y=new - height + 1, animate=False, immediate=True)
        self.post_message(self.Highlighted())

    def move_to(self, row: int) -> None:
        """To row ``row`` (-1: the last)."""
        if self.rows:
            row = len(self.rows) - 1 if row < 0 else row
            self.cursor = max(0, min(row, len(self.rows) - 1))

    def action_step(self, delta: int, pages: bool = False) -> None:
        self.move_to(max(0, self.cursor + delta * (self.page() if pages else 1)))

    def action_move_to(self, row: int) -> None:
        self.move_to(row)

    def page(self) -> int:
        return max(1, self.size.height - 2)

    def on_key(self, event: Key) -> None:
        # Once a filter is started, every printable key is part of it until the
        # filter box has the focus: typed fast (or pasted), "rounding" reaches
        # the table whole before the box takes over, and its "g" is a letter.
        if event.is_printable and event.character and (self._typing or event.character not in self.PASS_KEYS):
            event.stop()
            event.prevent_default()
            self._typing = self.FILTERS
            self.post_message(self.Typed(event.character))

    def on_blur(self) -> None:
        self._typing = False  # (the filter box has the keys now; back here, j, k, g and G move again)
