"""Two branches side by side from their fork point (``d``).

One scrolling view draws both columns, so scrolling is synchronized by
construction; the cursor is a row, Tab picks the side. Steps are aligned
(``model.branches.compare``, run in a thread: it reads the two paths only),
equal steps dimmed, the first divergence marked. Enter shows the focused
side's step in the detail pane; ``a`` makes that side's leaf the active
leaf (the same plan and confirmation as in the tree)."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Footer, Static

from ...model.entries.view import role_label
from ...model.errors import Cancelled
from ...model.sanitize import inert
from ...model.session import branches as model
from ...model.session.branches import Branch, Comparison, Side
from ..cells import cell
from ..masking import inert_shown, masked, redacting
from ..widgets.detail import DetailPane

MAX_STEPS = 5_000  # per side: a compare of longer branches shows their first steps


class CompareView(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {"compare--cursor", "compare--same", "compare--diverge", "compare--empty"}
    DEFAULT_CSS = """
    CompareView { background: $surface; }
    CompareView > .compare--cursor { background: $accent 70%; }
    CompareView > .compare--same { color: $st-dim; }
    CompareView > .compare--diverge { color: $st-summary; text-style: bold; }
    CompareView > .compare--empty { color: $st-guide; }
    """

    cursor: reactive[int] = reactive(0, repaint=False, always_update=True)
    side: reactive[int] = reactive(0)  # 0: left (A), 1: right (B)

    class Moved(Message):
        pass

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.result: Comparison | None = None

    def show(self, result: Comparison) -> None:
        self.result = result
        self.virtual_size = Size(self.size.width, len(result.rows))
        first = result.first_divergence
        self.cursor = first if first is not None else 0
        self.refresh()

    def watch_side(self) -> None:
        self.refresh()
        self.post_message(self.Moved())

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        index = self.scroll_offset.y + y
        if self.result is None or index >= len(self.result.rows):
            return Strip.blank(width, base)
        i, j, same = self.result.rows[index]
        half = max((width - 3) // 2, 10)
        first = index == self.result.first_divergence
        mark = Text("=" if same else "▶" if first else " ")
        line = (
            mark
            + self.cell(self.result.a, i, same, first, half, index, 0)
            + Text("│ ")
            + self.cell(self.result.b, j, same, first, half, index, 1)
        )
        line.stylize_before(base)
        return Strip(list(line.render(self.app.console))).adjust_cell_length(width, base).crop(0, width)

    def cell(self, side: Side, k: int | None, same: bool, first: bool, width: int, index: int, which: int) -> Text:
        if k is None:
            text = Text("·", self._style("compare--empty"))
        else:
            step = side.steps[k]
            text = Text(f"{role_label(step.role):<4} ", Style(bold=True)) + Text(
                inert(masked(step.preview, redacting(self.app)), keep_newlines=False)
            )
            if same:
                text.stylize(self._style("compare--same"))
            elif first:
                text.stylize(self._style("compare--diverge"))
        drawn = cell(text, width)
        if index == self.cursor and which == self.side:
            drawn.stylize(self.get_component_rich_style("compare--cursor"))
        return drawn + Text(" ")

    def _style(self, name: str) -> Style:
        full = self.get_component_rich_style(name)
        return Style(color=full.color, bold=full.bold)

    def watch_cursor(self, old: int, new: int) -> None:
        self.refresh_line(old)
        self.refresh_line(new)
        height = max(self.scrollable_content_region.height or self.size.height, 1)
        top = self.scroll_offset.y
        if new < top:
            self.scroll_to(y=new, animate=False, immediate=True)
        elif new >= top + height:
            self.scroll_to(y=new - height + 1, animate=False, immediate=True)
        self.post_message(self.Moved())

    def move_to(self, row: int) -> None:
        if self.result is not None and self.result.rows:
            self.cursor = max(0, min(row, len(self.result.rows) - 1))

    def focused_entry(self) -> int | None:
        """The entry of the focused side at the cursor (None: that side has no step there)."""
        if self.result is None or not self.result.rows:
            return None
        i, j, _ = self.result.rows[self.cursor]
        k, side = (i, self.result.a) if self.side == 0 else (j, self.result.b)
        return side.steps[k].entry if k is not None else None


class Compared(Message):
    def __init__(self, result: Comparison | None, error: str | None = None) -> None:
        self.result, self.error = result, error
        super().__init__()


class CompareScreen(Screen):
    """``a`` and ``b`` compared (or the two newest branches through the
    children of ``fork``); ``act(kind, entry)`` as for the branch list."""

    BINDINGS = [
        Binding("tab", "switch_side", "Switch side"),
        Binding("enter", "detail", "Detail"),
        Binding("a", "make_leaf", "Make this side active"),
        Binding("escape,q", "back", "Back"),
        Binding("up,k", "move(-1)", show=False),
        Binding("down,j", "move(1)", show=False),
        Binding("pageup", "move(-1, True)", show=False),
        Binding("pagedown", "move(1, True)", show=False),
        Binding("home,g", "move_to(0)", show=False),
        Binding("end,G", "move_to(-1)", show=False),
    ]
    DEFAULT_CSS = """
    CompareScreen #heading { height: 1; background: $panel; padding: 0 1; text-style: bold; }
    CompareScreen #sides { height: auto; }
    CompareScreen .summary { width: 1fr; height: auto; padding: 0 1; background: $panel; }
    CompareScreen .summary.focused { background: $accent 30%; }
    CompareScreen CompareView { height: 1fr; }
    CompareScreen DetailPane { height: 40%; display: none; border-top: solid $panel; border-left: none; }
    CompareScreen DetailPane.shown { display: block; }
    """

    def __init__(self, session, act, a: Branch | None = None, b: Branch | None = None, fork: int | None = None) -> None:
        super().__init__()
        self.session, self.act = session, act
        self.a, self.b, self.fork = a, b, fork

    def compose(self) -> ComposeResult:
        yield Static("comparing…", id="heading", markup=False)
        with Horizontal(id="sides"):
            yield Static("", id="side-a", classes="summary focused", markup=False)
            yield Static("", id="side-b", classes="summary", markup=False)
        yield CompareView(id="view")
        yield DetailPane()
        yield Footer(
            compact=True, show_command_palette=False
        )  # from the first frame: the keys are part of what the screen says

    @property
    def view(self) -> CompareView:
        return self.query_one(CompareView)

    def on_mount(self) -> None:
        self.view.focus()
        self.run_compare()

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False, description="compare")
    def run_compare(self) -> None:
        session = self.session
        try:
            if self.a is None or self.b is None:
                pair = model.pair_at_fork(session, self.fork) if self.fork is not None else model.default_pair(session)
                if pair is None:
                    self.post_message(Compared(None, "fewer than two branches here: nothing to compare"))
                    return
                self.a, self.b = pair
            self.post_message(Compared(model.compare(session, self.a, self.b, MAX_STEPS)))
        except Cancelled:
            return

    def on_compared(self, message: Compared) -> None:
        if message.result is None:
            self.notify(message.error or "nothing to compare", timeout=4)
            self.dismiss()
            return
        result = message.result
        session = self.session
        where = f"line {session.line_of(result.fork)}" if result.fork >= 0 else "the start (no shared entry)"
        first = result.first_divergence
        text = f"two branches from the fork point at {where}"
        text += f" · first divergence: row {first + 1}" if first is not None else " · no difference"
        if result.truncated:
            text += f" · the first {MAX_STEPS:,} steps of each side"
        self.query_one("#heading", Static).update(Text(text))
        for name, side, widget in (("A", result.a, "#side-a"), ("B", result.b, "#side-b")):
            summary = inert_shown(self.app, f"{name} " + self._summary(side), keep_newlines=True)
            self.query_one(widget, Static).update(Text(summary))
        self.view.show(result)

    def _summary(self, side: Side) -> str:
        first, second = model.summary(self.session, side)
        return f"{first}\n{second}"

    # -- keys -----------------------------------------------------------------------
    def action_move(self, delta: int, pages: bool = False) -> None:
        view = self.view
        view.move_to(view.cursor + delta * (max(view.size.height - 1, 1) if pages else 1))

    def action_move_to(self, row: int) -> None:
        view = self.view
        view.move_to(row if row >= 0 else len(view.result.rows) - 1 if view.result else 0)

    def action_switch_side(self) -> None:
        view = self.view
        view.side = 1 - view.side
        self.query_one("#side-a").set_class(view.side == 0, "focused")
        self.query_one("#side-b").set_class(view.side == 1, "focused")

    def on_compare_view_moved(self, message: CompareView.Moved) -> None:
        if self.query_one(DetailPane).has_class("shown"):
            self._show_detail()

    def action_detail(self) -> None:
        pane = self.query_one(DetailPane)
        pane.add_class("shown")
        self._show_detail()

    def _show_detail(self) -> None:
        entry = self.view.focused_entry()
        pane = self.query_one(DetailPane)
        if entry is None:
            pane.show_text(Text("(this side has no step here)"), "")
        else:
            pane.show_entry(self.session, entry)

    def action_make_leaf(self) -> None:
        side = self.view.result and (self.view.result.a if self.view.side == 0 else self.view.result.b)
        if side:
            self.act("leaf", side.branch.leaf)

    def action_back(self) -> None:
        pane = self.query_one(DetailPane)
        if pane.has_class("shown"):
            pane.remove_class("shown")
            return
        self.dismiss()
