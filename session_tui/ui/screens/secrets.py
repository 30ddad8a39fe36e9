"""The secrets list: every secret in the file (masked), found in a thread;
pick one to jump to its line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ...model.errors import Cancelled
from ...model.sanitize import inert

if TYPE_CHECKING:  # pragma: no cover
    from ...model.secret_scan import Finding
    from .session import SessionScreen

MAX_SHOWN = 5000


class SecretsScreen(ModalScreen[int | None]):
    """Dismisses with the 1-based line of the chosen secret, or None."""

    BINDINGS = [Binding("escape,q,S", "dismiss_none", "Close")]
    DEFAULT_CSS = """
    SecretsScreen { align: center middle; }
    SecretsScreen > OptionList { width: 100; max-width: 95%; height: auto; max-height: 80%;
                                 border: thick $warning; }
    SecretsScreen > Static { width: 100; max-width: 95%; background: $warning; color: $text; padding: 0 1; }
    """

    def __init__(self, found: list[Finding]) -> None:
        super().__init__()
        self.found = found

    def compose(self) -> ComposeResult:
        count = len(self.found)
        yield Static(
            Text(f"{count:,} secret{'s' if count != 1 else ''} (masked) — Enter jumps to it, Esc closes"),
            markup=False,
        )
        options = []
        for item in self.found[:MAX_SHOWN]:
            label = Text(no_wrap=True, overflow="ellipsis")
            label.append(f"line {item.line:>6}  ", style="bold")
            entry = "—" if item.entry is None else f"{item.entry:,}"
            label.append(f"entry {entry:>7}  {item.kind:<18} ")
            label.append(inert(item.preview, keep_newlines=False))
            options.append(Option(label))
        if not options:
            options.append(Option(Text("no secrets found"), disabled=True))
        yield OptionList(*options)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_index < min(len(self.found), MAX_SHOWN):
            self.dismiss(self.found[event.option_index].line)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def list_secrets(screen: SessionScreen) -> None:
    """Look for the session's secrets in a thread, then list them."""
    session = screen.session
    if session is None:
        return
    if session.partial:
        screen.notify("Only part of the file is read yet: look for secrets once it is indexed", severity="warning")
        return
    app = screen.app

    def jump(line: int | None) -> None:
        if line is None or screen.rows is None:
            return
        entry = screen._entry_for_line(line)
        if entry is not None:
            screen.jump_to_entry(len(screen.rows) - 1 if entry == -1 else entry, row=entry == -1)

    def scan() -> None:
        from ...model.secret_scan import session_secrets

        worker = get_current_worker()
        try:
            found = session_secrets(session, should_stop=lambda: worker.is_cancelled)
        except Cancelled:
            return
        app.call_from_thread(app.push_screen, SecretsScreen(found), jump)

    screen.run_worker(scan, thread=True, exclusive=True, group="secrets", exit_on_error=False, description="secrets")
