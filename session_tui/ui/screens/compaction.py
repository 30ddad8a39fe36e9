"""The compaction inspector (Enter on a compaction or summary node): the
span it summarised, the tokens before and after, and the paths and commands
of that span its summary does not mention; Enter jumps to the entry that
used one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.binding import Binding

from ...model.words import human_tokens
from ..masking import inert_shown
from .line_list import LineListScreen, row_label

if TYPE_CHECKING:  # pragma: no cover
    from ...model.session.session import Session
    from ...model.usage.compactions import Compaction


class CompactionScreen(LineListScreen):
    """Dismisses with the 1-based line chosen, or None."""

    BINDINGS = [Binding("escape,q", "dismiss_none", "Close")]
    DEFAULT_CSS = """
    CompactionScreen { align: center middle; }
    CompactionScreen > OptionList { width: 110; max-width: 95%; height: auto; max-height: 80%;
                                    border: thick $warning; }
    CompactionScreen > Static { width: 110; max-width: 95%; background: $warning; color: $text; padding: 0 1; }
    """
    EMPTY = "its summary names every path and command of the span"

    def __init__(self, session: Session, compaction: Compaction) -> None:
        super().__init__()
        self.session = session
        self.compaction = compaction

    def heading(self) -> str:
        item = self.compaction
        before = "?" if item.tokens_before is None else human_tokens(item.tokens_before)
        after = "?" if item.tokens_after is None else human_tokens(item.tokens_after)
        if item.span:
            first, last = self.session.line_of(item.span[0]), self.session.line_of(item.span[-1])
            span = f"summarised lines {first}–{last} ({len(item.span)} entries)"
        else:
            span = f"summarised nothing here: {item.note}" if item.note else "summarised nothing"
        dropped = len(item.dropped_paths) + len(item.dropped_commands)
        return f"compaction · context {before} → {after} · {span} · its summary dropped {dropped}"

    def rows(self) -> list[tuple[int, Text]]:
        out = []
        for kind, items in (("path", self.compaction.dropped_paths), ("command", self.compaction.dropped_commands)):
            for used in items:
                line = self.session.line_of(used.entry)
                label = row_label(line)
                label.append(f"{kind:<9}", style="bold")
                label.append(inert_shown(self.app, used.text, keep_newlines=False))
                out.append((line, label))
        return out
