"""The usage screen (``U``): the context size per response along the active
branch, the model's window as a line, compactions and forks marked, the cost
so far on a second axis; below, per tool: calls, errors, time, output."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from ...model.errors import Cancelled
from ...model.words import human_seconds, human_tokens, plural
from ..masking import inert_shown

if TYPE_CHECKING:  # pragma: no cover
    from ...model.session.session import Session
    from ...model.usage.over_time import ContextOverTime, ToolStats
    from ...model.usage.totals import Spending


class UsageScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,U", "dismiss_none", "Close")]
    DEFAULT_CSS = """
    UsageScreen { align: center middle; }
    UsageScreen > Vertical { width: 100%; height: 100%; border: thick $primary; background: $surface; }
    UsageScreen #usage-heading { height: auto; padding: 0 1; background: $primary; color: $text; }
    UsageScreen PlotextPlot { height: 1fr; min-height: 8; }
    UsageScreen DataTable { height: auto; max-height: 40%; }
    """

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.ready = False  # the figures are drawn

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("working out the usage…", id="usage-heading", markup=False)
            yield PlotextPlot()
            yield DataTable(cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.work_out()

    @work(thread=True, exclusive=True, exit_on_error=False, description="usage")
    def work_out(self) -> None:
        from textual.worker import get_current_worker

        from ...model.usage.over_time import context_over_time, tool_stats
        from ...model.usage.totals import spending

        worker = get_current_worker()
        stop = lambda: worker.is_cancelled  # noqa: E731
        try:
            over_time = context_over_time(self.session, stop)
            tools = tool_stats(self.session, stop)
            spent = spending(self.session, stop)
        except Cancelled:
            return
        self.app.call_from_thread(self.draw, over_time, tools, spent)

    def draw(self, over_time: ContextOverTime, tools: list[ToolStats], spent: Spending) -> None:
        from ...model.usage.totals import spent_text

        total = spent.total
        parts = [spent_text(total)]
        if spent.subagents:
            own = "?" if spent.own.cost_usd is None else f"${spent.own.cost_usd:,.2f}"
            parts.append(f"own {own}, {plural(len(spent.subagents), 'sub-agent')} apart")
        if over_time.last_fill:
            parts.append(
                f"ctx {over_time.last_fill} ({inert_shown(self.app, over_time.model or '?', keep_newlines=False)})"
            )
        self.query_one("#usage-heading", Static).update(" · ".join(parts))
        self._plot(over_time)
        table = self.query_one(DataTable)
        table.add_columns("tool", "calls", "errors", "time", "output")
        for stats in tools:
            table.add_row(
                inert_shown(self.app, stats.name, keep_newlines=False),
                str(stats.calls),
                str(stats.errors),
                human_seconds(stats.seconds),
                _bytes(stats.output_bytes),
            )
        self.ready = True

    def _plot(self, over_time: ContextOverTime) -> None:
        widget = self.query_one(PlotextPlot)
        plt = widget.plt
        plt.clear_figure()
        if not over_time.points:
            plt.title("no response records its usage")
            widget.refresh()
            return
        xs = list(range(1, len(over_time.points) + 1))
        contexts = [p.context for p in over_time.points]
        plt.plot(xs, contexts, label="context", marker="braille")
        top = max(contexts)
        window = over_time.window
        on_scale = window is not None and window <= 3 * top  # (a far window would flatten the line)
        if window is not None and on_scale:
            plt.hline(float(window), "red")
            top = max(top, window)
        for index in over_time.compactions:
            plt.vline(index + 1, "yellow")
        for index in over_time.branch_points:
            plt.vline(index + 1, "magenta")
        ticks = [top * k / 4 for k in range(5)]
        plt.yticks(ticks, [human_tokens(int(t)) for t in ticks])
        step = max(1, len(xs) // 6)
        plt.xticks([float(x) for x in xs[::step]], [str(x) for x in xs[::step]])
        plt.plot(xs, [p.cost_so_far for p in over_time.points], label="cost so far $", yside="right", marker="dot")
        where = " red" if on_scale else " (off the scale)"
        shown = "" if window is None else f"window {human_tokens(window)}{where}"
        plt.title(f"context per response, active branch · {shown} · compactions yellow, forks magenta")
        plt.xlabel("response")
        widget.refresh()

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def _bytes(count: int) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return f"{count} B"
