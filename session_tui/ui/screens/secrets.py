"""The secrets list: every secret in the file (masked), found in a thread;
pick one to jump to its line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.binding import Binding
from textual.worker import get_current_worker

from ...model.errors import Cancelled
from ...model.sanitize import inert
from ...model.words import plural
from .line_list import LineListScreen, row_label

if TYPE_CHECKING:  # pragma: no cover
    from ...model.privacy.secret_scan import Finding
    from .session.host import SessionHost


class SecretsScreen(LineListScreen):
    """Dismisses with the 1-based line of the chosen secret, or None."""

    BINDINGS = [Binding("escape,q,S", "dismiss_none", "Close")]
    DEFAULT_CSS = """
    SecretsScreen { align: center middle; }
    SecretsScreen > OptionList { width: 100; max-width: 95%; height: auto; max-height: 80%;
                                 border: thick $warning; }
    SecretsScreen > Static { width: 100; max-width: 95%; background: $warning; color: $text; padding: 0 1; }
    """
    EMPTY = "no secrets found"

    def __init__(self, found: list[Finding]) -> None:
        super().__init__()
        self.found = found

    def heading(self) -> str:
        return plural(len(self.found), "secret") + " (masked)"

    def rows(self) -> list[tuple[int, Text]]:
        out = []
        for item in self.found:
            label = row_label(item.line)
            entry = "—" if item.entry is None else f"{item.entry:,}"
            label.append(f"entry {entry:>7}  {item.kind:<18} ")
            label.append(inert(item.preview, keep_newlines=False))
            out.append((item.line, label))
        return out


def list_secrets(screen: SessionHost) -> None:
    """Look for the session's secrets in a thread, then list them."""
    session = screen.state.session
    if session is None:
        return
    if session.partial:
        screen.notify("Only part of the file is read yet: look for secrets once it is indexed", severity="warning")
        return
    app = screen.app

    def jump(line: int | None) -> None:
        if line is None or screen.state.rows is None:
            return
        entry = screen.entry_for_line(line)
        if entry is not None:
            screen.jump_to_entry(len(screen.state.rows) - 1 if entry == -1 else entry, row=entry == -1)

    def scan() -> None:
        from ...model.privacy.secret_scan import session_secrets

        worker = get_current_worker()
        try:
            found = session_secrets(session, should_stop=lambda: worker.is_cancelled)
        except Cancelled:
            return
        app.call_from_thread(app.push_screen, SecretsScreen(found), jump)

    screen.run_worker(scan, thread=True, exclusive=True, group="secrets", exit_on_error=False, description="secrets")
