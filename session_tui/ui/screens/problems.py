"""The problems list: pick one to jump to its line."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...model.sanitize import inert

MAX_SHOWN = 5000


class ProblemsScreen(ModalScreen[int | None]):
    """Dismisses with the 1-based line of the chosen problem, or None."""

    BINDINGS = [Binding("escape,q,p", "dismiss_none", "Close")]
    DEFAULT_CSS = """
    ProblemsScreen { align: center middle; }
    ProblemsScreen > OptionList { width: 100; max-width: 95%; height: auto; max-height: 80%;
                                  border: thick $error; }
    ProblemsScreen > Static { width: 100; max-width: 95%; background: $error; color: $text; padding: 0 1; }
    """

    def __init__(self, problems) -> None:
        super().__init__()
        self.problems = problems

    def compose(self) -> ComposeResult:
        count = len(self.problems)
        yield Static(
            Text(f"{count:,} problem{'s' if count != 1 else ''} — Enter jumps to it, Esc closes"), markup=False
        )
        theme = self.app.get_css_variables()  # the theme's colours, not fixed ones
        colours = {name: Style(color=theme.get(name)) for name in ("error", "warning")}
        options = []
        for p in self.problems[:MAX_SHOWN]:
            label = Text(no_wrap=True, overflow="ellipsis")
            label.append(f"line {p.line:>6}  ", style="bold")
            label.append(
                f"{p.severity:<8}{p.kind.value:<20} ", style=colours["error" if p.severity == "error" else "warning"]
            )
            label.append(inert(p.message, keep_newlines=False))
            options.append(Option(label))  # no id: one line can have several problems
        if not options:
            options.append(Option(Text("no problems"), disabled=True))
        yield OptionList(*options)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_index < min(len(self.problems), MAX_SHOWN):
            self.dismiss(self.problems[event.option_index].line)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
