"""A modal showing an edit's plan, with the choices it offers.

It fits any terminal from 80×24 up: the plan scrolls (↑/↓, PgUp/PgDn) in
what the title, the warning and the buttons leave, and the buttons are
always on screen; ←/→ and Tab move between them."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ..masking import inert_shown

CHROME_ROWS = 11  # border, padding, title and its margin, the buttons and their margin, and a row to spare


class ConfirmScreen(ModalScreen[str | None]):
    """Dismisses with the id of the chosen button, or None (Esc / n)."""

    AUTO_FOCUS = "Button"

    BINDINGS = [
        Binding("escape,n", "cancel", "Cancel"),
        Binding("left,shift+tab", "app.focus_previous", "Previous button", show=False),
        Binding("right,tab", "app.focus_next", "Next button", show=False),
        Binding("up,k", "scroll_plan(-1)", "Scroll up", show=False),
        Binding("down,j", "scroll_plan(1)", "Scroll down", show=False),
        Binding("pageup", "scroll_plan(-10)", "Page up", show=False),
        Binding("pagedown", "scroll_plan(10)", "Page down", show=False),
    ]
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 100; max-width: 95%; height: auto; max-height: 100%;
                               background: $surface; border: thick $warning; padding: 1 2; }
    ConfirmScreen #title { text-style: bold; margin-bottom: 1; }
    ConfirmScreen #plan { height: auto; background: $panel; padding: 0 1; }
    ConfirmScreen #warning { color: $st-problem; text-style: bold; margin-top: 1; }
    ConfirmScreen Horizontal { height: auto; margin-top: 1; align-horizontal: right; }
    ConfirmScreen Button { margin-left: 2; }
    """

    def __init__(self, title: str, body: str, choices: list[tuple[str, str]], warning: str = "") -> None:
        super().__init__()
        self.title_text, self.body, self.choices, self.warning = title, body, choices, warning

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(inert_shown(self.app, self.title_text, keep_newlines=False)), id="title", markup=False)
            with VerticalScroll(id="plan", can_focus=False):
                yield Static(Text(inert_shown(self.app, self.body)), markup=False)
            if self.warning:
                yield Static(Text(inert_shown(self.app, self.warning)), id="warning", markup=False)
            with Horizontal():
                for choice_id, label in self.choices:
                    yield Button(label, id=choice_id, variant="warning" if choice_id != "cancel" else "default")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """The plan gets the rows the rest leaves, so the buttons stay on screen."""
        width = max(20, min(100, self.size.width * 95 // 100) - 8)  # the text's width inside the frame
        warning = sum(-(-max(1, len(line)) // width) for line in self.warning.splitlines()) + 1 if self.warning else 0
        self.query_one("#plan").styles.max_height = max(2, self.size.height - CHROME_ROWS - warning)

    def action_scroll_plan(self, rows: int) -> None:
        self.query_one("#plan", VerticalScroll).scroll_relative(y=rows, animate=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "cancel" else event.button.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
