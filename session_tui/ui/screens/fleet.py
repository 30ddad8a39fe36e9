"""Every live agent at once: one row per session written lately, its state
kept current by a watch in a worker (``model/fleet``); Enter opens the
session view following it, Esc comes back here with the cursor where it was."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from ...model.fleet.alerts import NoticeGate
from ...model.fleet.fleet import Agent, Fleet
from ...model.fleet.observe import AgentState
from ...model.fleet.watch import SNAPSHOT, follow
from ...model.reading.archive_listing import place_of
from ...model.sanitize import inert
from ...model.words import ago, human_tokens
from .. import cells
from ..app_services import services
from ..cells import cell, tilde
from ..masking import inert_shown, masked, redacting
from ..widgets.row_table import NAV_KEYS, RowTable

#: the states that need the user, first in the summary line
NEEDS_YOU = (AgentState.CRASHED, AgentState.STUCK, AgentState.WAITING)
ORDER = (*NEEDS_YOU, AgentState.TOOL, AgentState.WORKING, AgentState.IDLE)
#: (heading, width, right-aligned) of the fixed columns after the flexible ones
COLUMNS = (("state", 22, False), ("for", 7, True), ("tokens", 6, True), ("ctx", 4, True), ("alerts", 10, False))
FIXED = 8 + sum(width + 1 for _, width, _ in COLUMNS)
WIDE = 120  # from this width on, the project and what the agent does have columns of their own
ACTION_KEYS = NAV_KEYS + "nop"
STYLE = {
    AgentState.CRASHED: "fleet--problem",
    AgentState.STUCK: "fleet--problem",
    AgentState.WAITING: "fleet--waiting",
    AgentState.TOOL: "fleet--running",
    AgentState.WORKING: "fleet--running",
    AgentState.IDLE: "fleet--dim",
}


class FleetTable(RowTable):
    COMPONENT_CLASSES = {
        "fleet--cursor",
        "fleet--heading",
        "fleet--dim",
        "fleet--running",
        "fleet--waiting",
        "fleet--problem",
    }
    DEFAULT_CSS = """
    FleetTable { background: $surface; height: 1fr; }
    FleetTable > .fleet--cursor { background: $accent 40%; }
    FleetTable:focus > .fleet--cursor { background: $accent 70%; }
    FleetTable > .fleet--heading { color: $st-tool; text-style: bold; }
    FleetTable > .fleet--dim { color: $st-dim; }
    FleetTable > .fleet--running { color: $st-running; }
    FleetTable > .fleet--waiting { color: $st-user; text-style: bold; }
    FleetTable > .fleet--problem { color: $st-problem; text-style: bold; }
    """
    PASS_KEYS = ACTION_KEYS
    HEADING, CURSOR = "fleet--heading", "fleet--cursor"

    @staticmethod
    def row_key(row: tuple[int, Agent]) -> object:
        return row[1].path

    def _widths(self, width: int) -> tuple[int, int, int]:
        """(project, title, doing) from what the fixed columns leave; narrow:
        no project column, what it does after the title."""
        free = max(width - FIXED, 20)
        if width < WIDE:
            return 0, free, 0
        project = min(18, free // 5)
        doing = min(30, free // 3)
        return project, free - project - doing - 2, doing

    def heading(self, width: int) -> Text:
        project, title, doing = self._widths(width)
        line = Text("agent   ")
        if project:
            line += cell(Text("project"), project) + Text(" ")
        line += cell(Text("title" if doing else "title · doing"), title)
        if doing:
            line += Text(" ") + cell(Text("doing"), doing)
        for name, column, right in COLUMNS:
            line += Text(" ") + cell(Text(name), column, right)
        return line

    def row_text(self, row: tuple[int, Agent], width: int) -> Text:
        depth, agent = row
        seen = agent.observed
        project, title_width, doing_width = self._widths(width)
        style = self._style(STYLE[seen.state])
        dim = self._style("fleet--dim")
        hide = redacting(self.app)
        kind = ("└ " if depth else "") + agent.format
        line = cell(Text(kind, dim), 7) + Text(" ")
        if project:
            where = tilde(seen.cwd) if seen.cwd else ""
            place = place_of(agent.path)
            if place is not None:  # (a session of the team archive: on which machine)
                where = f"{place.machine}:{seen.cwd or place.project}"
            line += cell(Text(inert_shown(self.app, where, keep_newlines=False), dim), project) + Text(" ")
        title = Text(("  " if depth else "") + (inert(masked(seen.title, hide), keep_newlines=False) or "(no title)"))
        doing = inert(masked(seen.doing, hide), keep_newlines=False)
        if doing_width:
            line += cell(title, title_width) + Text(" ") + cell(Text(doing), doing_width)
        else:
            line += cell(title + Text(f" · {doing}", dim) if doing else title, title_width)
        since, fill = seen.since, seen.fill
        alerts = [a for a in agent.alerts if a != seen.state.value]  # (the state says stuck and crashed)
        columns = (
            (Text(seen.state_words(), style), False),
            (Text(ago(max(0.0, cells.now() - since)) if since is not None else "", dim), True),
            (Text(human_tokens(seen.input_tokens + seen.output_tokens) if seen.input_tokens else ""), True),
            (Text(f"{fill:.0%}" if fill is not None else "", self._style(_fill_style(fill))), True),
            (Text(" ".join(alerts), self._style("fleet--problem")), False),
        )
        for (text, right), (_, column, _) in zip(columns, COLUMNS, strict=True):
            line += Text(" ") + cell(text, column, right)
        return line


def _fill_style(fill: float | None) -> str:
    return "fleet--problem" if fill is not None and fill > 0.9 else "fleet--dim"


class FleetScreen(Screen):
    """The fleet over ``fleet``'s folders."""

    BINDINGS = [
        Binding("enter", "open", "Open"),
        Binding("n", "next_needing", "Needs you"),
        Binding("o", "picker", "Picker"),
        Binding("q", "app.back_or_quit", "Quit"),
    ]
    DEFAULT_CSS = """
    FleetScreen #summary { height: 1; background: $panel; padding: 0 1; }
    """

    def __init__(self, fleet: Fleet, notify_alerts: bool = False) -> None:
        super().__init__()
        self.fleet = fleet
        self.notify_alerts = notify_alerts
        self.gate = NoticeGate()
        self.started = False

    def compose(self) -> ComposeResult:
        yield Static("reading the session folders…", id="summary", markup=False)
        yield FleetTable()
        yield Footer(compact=True, show_command_palette=False)

    @property
    def table(self) -> FleetTable:
        return self.query_one(FleetTable)

    def on_mount(self) -> None:
        from ...model.search_index.feeder import IndexFeeder

        self.feeder = IndexFeeder()  # (what changes is in the index by the next search, ctrl+f in the picker)
        self.table.focus()
        self.run_worker(self._watch, thread=True, exclusive=True, group="fleet", exit_on_error=False)
        self.set_interval(1.0, self._show)  # the durations move on, the tokens grow

    def _watch(self) -> None:
        worker = get_current_worker()
        try:
            follow(self.fleet, self._from_thread, lambda: worker.is_cancelled)
        finally:
            self.fleet.close()

    def _from_thread(self, event: str, agents: list[Agent]) -> None:
        self.app.call_from_thread(self._changed, event, agents)

    def _show(self) -> None:
        selected = self.table.selected
        self.table.show(self.fleet.shown, keep=selected[1].path if selected else None)

    def _changed(self, event: str, agents: list[Agent]) -> None:
        if event != SNAPSHOT:
            self.feeder.changed(agent.path for agent in agents)
        self._show()
        self.started = True
        self._summary()
        if not self.notify_alerts:
            return
        for agent in agents:
            due = self.gate.due(agent.path, agent.alerts, cells.now())
            if due and event != "snapshot":
                self._tell(agent, due)

    def _summary(self) -> None:
        counts = {state: 0 for state in ORDER}
        for _, agent in self.fleet.shown:
            counts[agent.observed.state] += 1
        parts = [f"{n} {state.value}" for state, n in counts.items() if n]
        text = " · ".join(parts) if parts else "no agent wrote a session in the window"
        self.query_one("#summary", Static).update(Text(f"{len(self.fleet.shown)} agents · {text}"))

    def _tell(self, agent: Agent, alerts: list[str]) -> None:
        """A bell, a desktop notice where the terminal shows one (OSC 9 and
        OSC 777), and a notice here."""
        title = inert_shown(self.app, agent.observed.title or tilde(agent.path), keep_newlines=False)[:80]
        text = f"{', '.join(alerts)}: {title}"
        self.app.bell()
        safe = "".join(ch for ch in text if ch.isprintable() and ch not in ";")  # (no byte may end the sequence)
        driver = getattr(self.app, "_driver", None)  # (Textual writes to the terminal through it; no public call)
        if driver is not None and not self.app.is_headless:
            driver.write(f"\x1b]9;session-tui: {safe}\x07\x1b]777;notify;session-tui;{safe}\x07")
        self.app.notify(text, title="session-tui live", severity="warning", timeout=8)

    def action_open(self) -> None:
        selected = self.table.selected
        if selected is not None:
            self.app.open_session_file(selected[1].path)  # type: ignore[attr-defined]

    def action_next_needing(self) -> None:
        """The next agent that needs you: crashed, stuck, waiting, or with an alert."""
        rows = self.table.rows
        for step in range(1, len(rows) + 1):
            k = (self.table.cursor + step) % len(rows)
            agent = rows[k][1]
            if agent.observed.state in NEEDS_YOU or agent.alerts:
                self.table.move_to(k)
                return
        self.notify("no agent needs you", timeout=2)

    def action_picker(self) -> None:
        services(self).show_picker(list(self.fleet.roots))

    def on_unmount(self) -> None:
        self.workers.cancel_group(self, "fleet")
        self.feeder.close()
