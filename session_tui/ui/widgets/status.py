"""The status line: what file, how big, how healthy, live or not."""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ...model.sanitize import inert
from ...model.words import plural
from ..masking import inert_shown


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class StatusFacts:
    """What the status line says of a session view, as plain values."""

    path: str  # the file's name
    entries: int
    leaves: int
    forks: int
    format: str | None
    problems: int | None  # None: not looked for yet
    leaf_text: str
    live: str  # what the agent is doing, or the tail's state
    indexing: str = ""
    new: int = 0  # appended since the cursor left the leaf
    usage: str = ""
    title: str | None = None
    origin: str | None = None


class StatusLine(Widget):
    """One line, bound to ``facts``: a view sets them and the line follows.
    Updating it repaints only itself (no layout pass), and only when its
    text changes, which matters when a live file updates it many times a
    second."""

    facts: reactive[StatusFacts | None] = reactive(None, layout=False, repaint=False)

    COMPONENT_CLASSES = {"status--problem", "status--healthy", "status--quiet"}
    DEFAULT_CSS = """
    StatusLine { height: 1; background: $panel; color: $foreground; padding: 0 1; }
    StatusLine > .status--problem { color: $st-problem; text-style: bold; }
    StatusLine > .status--healthy { color: $st-running; }
    StatusLine > .status--quiet { color: $st-tool; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.text = Text()

    def render(self) -> Text:
        return self.text

    def update(self, text: Text) -> None:
        if text != self.text:  # an append that changes nothing here writes nothing to the terminal
            self.text = text
            self.refresh()

    def _style(self, name: str) -> Style:
        """The theme's colour and weight of a component (the line gives the background)."""
        full = self.get_component_rich_style(name)
        return Style(color=full.color, bold=full.bold)

    def watch_facts(self, facts: StatusFacts | None) -> None:
        if facts is not None:
            self.update(self._line(facts))

    def _line(self, facts: StatusFacts) -> Text:
        problems, new, indexing, usage = facts.problems, facts.new, facts.indexing, facts.usage
        title, origin = facts.title, facts.origin
        text = Text(no_wrap=True, overflow="ellipsis")
        # by priority: a narrow terminal cuts the end, so health and what the agent does come first
        if problems is None:
            text.append("problems …")
        elif problems:
            text.append(f"⚠ {plural(problems, 'problem', 'problems')}", style=self._style("status--problem"))
        else:
            text.append("✓ no problems", style=self._style("status--healthy"))
        text.append(f"  {facts.live}", style="bold")
        if new:
            text.append(f"  +{new} new", style="reverse")
        if indexing:
            text.append(f"  {indexing}", style="italic")
        text.append(
            f"  {plural(facts.entries, 'entry', 'entries')} · {plural(facts.leaves, 'leaf', 'leaves')}"
            f" · {plural(facts.forks, 'fork', 'forks')}"
        )
        if usage:
            text.append(f"  {usage}", style=self._style("status--quiet"))
        text.append(f"  leaf {facts.leaf_text}")
        text.append(f"  {facts.format or '?'}")
        if title:
            text.append(f"  “{inert(_cut(title, 40), keep_newlines=False)}”", style="italic")
        text.append(f"  {inert_shown(self.app, facts.path, keep_newlines=False)}", style="bold")
        if origin:
            text.append(
                f"  ⑂ fork of {inert_shown(self.app, _cut(origin, 60), keep_newlines=False)}",
                style=self._style("status--quiet"),
            )
        return text
