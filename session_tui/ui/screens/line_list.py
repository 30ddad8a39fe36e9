"""A modal list of findings, one per line of the file (the problems, the
secrets): Enter dismisses with the chosen one's 1-based line, Esc with None."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

MAX_SHOWN = 5000


class LineListScreen(ModalScreen[int | None]):
    """Subclasses give BINDINGS (with ``dismiss_none``), their CSS, a
    heading, and the rows: (1-based line, label) of each finding."""

    EMPTY = "nothing found"
    BINDINGS = [  # the moves of every list (the subclasses add theirs)
        Binding("j", "move('cursor_down')", show=False),
        Binding("k", "move('cursor_up')", show=False),
        Binding("g", "move('first')", show=False),
        Binding("G", "move('last')", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[int] = []

    def heading(self) -> str:
        raise NotImplementedError

    def rows(self) -> list[tuple[int, Text]]:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        yield Static(Text(f"{self.heading()} — Enter jumps to it, Esc closes"), markup=False)
        rows = self.rows()[:MAX_SHOWN]
        self.lines = [line for line, _ in rows]
        options = [Option(label) for _, label in rows]  # no ids: one line can have several findings
        yield OptionList(*(options or [Option(Text(self.EMPTY), disabled=True)]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_index < len(self.lines):
            self.dismiss(self.lines[event.option_index])

    def action_dismiss_none(self) -> None:
        self.dismiss(None)

    def action_move(self, action: str) -> None:
        getattr(self.query_one(OptionList), f"action_{action}")()


def row_label(line: int) -> Text:
    """A row's label, starting with its line number."""
    label = Text(no_wrap=True, overflow="ellipsis")
    label.append(f"line {line:>6}  ", style="bold")
    return label
