"""The problems list: pick one to jump to its line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual.binding import Binding

from ...model.words import plural
from ..masking import inert_shown
from .line_list import LineListScreen, row_label

if TYPE_CHECKING:  # pragma: no cover
    from ...model.session.problems import Problem


class ProblemsScreen(LineListScreen):
    """Dismisses with the 1-based line of the chosen problem, or None."""

    BINDINGS = [Binding("escape,q,p", "dismiss_none", "Close")]
    DEFAULT_CSS = """
    ProblemsScreen { align: center middle; }
    ProblemsScreen > OptionList { width: 100; max-width: 95%; height: auto; max-height: 80%;
                                  border: thick $error; }
    ProblemsScreen > Static { width: 100; max-width: 95%; background: $error; color: $text; padding: 0 1; }
    """
    EMPTY = "no problems"

    def __init__(self, problems: list[Problem], resume: str | None = None) -> None:
        """``resume``: the last dry run's verdict on the file as it is (``R``/``D``)."""
        super().__init__()
        self.problems = problems
        self.resume = resume

    def heading(self) -> str:
        found = plural(len(self.problems), "problem")
        return f"{found} · {inert_shown(self.app, self.resume, keep_newlines=False)}" if self.resume else found

    def rows(self) -> list[tuple[int, Text]]:
        theme = self.app.get_css_variables()  # the theme's colours, not fixed ones
        colours = {name: Style(color=theme.get(name)) for name in ("error", "warning")}
        out = []
        for p in self.problems:
            label = row_label(p.line)
            severity = colours["error" if p.severity == "error" else "warning"]
            label.append(f"{p.severity:<8}{p.kind.words:<20} ", style=severity)
            label.append(inert_shown(self.app, p.message, keep_newlines=False))
            out.append((p.line, label))
        return out
