"""A modal showing an edit's plan, with the choices it offers."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ...model.sanitize import inert


class ConfirmScreen(ModalScreen[str | None]):
    """Dismisses with the id of the chosen button, or None (Esc / n)."""

    AUTO_FOCUS = "Button"

    BINDINGS = [Binding("escape,n", "cancel", "Cancel")]
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 100; max-width: 95%; height: auto; max-height: 90%;
                               background: $surface; border: thick $warning; padding: 1 2; }
    ConfirmScreen #title { text-style: bold; margin-bottom: 1; }
    ConfirmScreen #plan { height: auto; max-height: 20; overflow-y: auto; background: $panel; padding: 0 1; }
    ConfirmScreen Horizontal { height: auto; margin-top: 1; align-horizontal: right; }
    ConfirmScreen Button { margin-left: 2; }
    """

    def __init__(self, title: str, body: str, choices: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text, self.body, self.choices = title, body, choices

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(inert(self.title_text, keep_newlines=False)), id="title", markup=False)
            yield Static(Text(inert(self.body)), id="plan", markup=False)
            with Horizontal():
                for choice_id, label in self.choices:
                    yield Button(label, id=choice_id, variant="warning" if choice_id != "cancel" else "default")
                yield Button("Cancel", id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "cancel" else event.button.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
