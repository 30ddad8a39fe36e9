"""The branch list (``b``): every leaf of the session, one row each.

Listing runs in a thread (it costs the forks), then the labels (one record
each), then the details of each branch (its own entries), top rows
first; the table draws only the visible rows. Type to filter; Enter
goes to the leaf; ``a`` / ``F`` act on it as in the tree; space marks two
branches and ``d`` compares them (or the one under the cursor with the
active branch)."""

from __future__ import annotations

import time

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Static
from textual.worker import get_current_worker

from ...model.entries.tokens import TokenCounts
from ...model.sanitize import inert
from ...model.session import branches as model
from ...model.session.branches import Branch, Details
from ...model.words import human_tokens
from ..cells import age_since, cell, local_time
from ..masking import masked, redacting
from ..widgets.row_table import NAV_KEYS, RowTable

BATCH_SECONDS = 0.1  # details computed in the thread are posted this often
#: (heading, width, right-aligned) of the columns after the label
COLUMNS = (
    ("fork: line, time", 17, True),
    ("steps", 6, True),
    ("tokens in/out", 15, True),
    ("cost", 8, True),
    ("last activity", 14, True),
    ("ends", 13, False),
)
FIXED = 4 + sum(width + 1 for _, width, _ in COLUMNS)
ACTION_KEYS = "aFd/ " + NAV_KEYS  # keys the table keeps for its bindings: any other printable key starts a filter


def tokens_cell(tokens: TokenCounts) -> str:
    """``in/out`` of a branch's own responses, as the status line says them (``human_tokens``)."""
    return f"{human_tokens(tokens.input)}/{human_tokens(tokens.output)}" if tokens.input or tokens.output else ""


def cost_cell(cost: float | None) -> str:
    return "" if cost is None else f"${cost:,.2f}" if cost >= 0.01 else "<$0.01" if cost > 0 else "$0"


class BranchTable(RowTable):
    """Rows of branches; only the visible ones are drawn. Line 0 is the
    column heading; the cursor is a row index."""

    FILTERS = True

    COMPONENT_CLASSES = {
        "branches--cursor",
        "branches--heading",
        "branches--dim",
        "branches--active",
        "branches--problem",
    }
    DEFAULT_CSS = """
    BranchTable { background: $surface; }
    BranchTable > .branches--cursor { background: $accent 40%; }
    BranchTable:focus > .branches--cursor { background: $accent 70%; }
    BranchTable > .branches--heading { color: $st-tool; text-style: bold; }
    BranchTable > .branches--dim { color: $st-dim; }
    BranchTable > .branches--active { color: $st-running; text-style: bold; }
    BranchTable > .branches--problem { color: $st-problem; }
    """

    PASS_KEYS = ACTION_KEYS
    HEADING, CURSOR = "branches--heading", "branches--cursor"

    class Typed(RowTable.Typed):
        pass

    def __init__(self, session, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.rows: list[Branch] = []
        self.labels: dict[int, str] = {}
        self.details: dict[int, Details] = {}
        self.costs: dict[int, float | None] = {}  # each branch's own responses, priced
        self.marked: list[int] = []  # leaves, at most two

    @staticmethod
    def row_key(row: Branch) -> object:
        return row.leaf

    def show(self, rows: list[Branch], keep: object | None = None) -> None:
        """Show ``rows``, the cursor staying on the branch it is on."""
        super().show(rows, self.selected.leaf if self.selected else None)

    def heading(self, width: int) -> Text:
        line = Text("    ") + cell(Text("branch (first user message after the fork)"), max(width - FIXED, 10))
        for name, column_width, right in COLUMNS:
            line += Text(" ") + cell(Text(name), column_width, right)
        return line

    def row_text(self, branch: Branch, width: int) -> Text:
        dim = self._style("branches--dim")
        mark = Text("✓ " if branch.leaf in self.marked else "  ")
        mark += Text("● ", self._style("branches--active")) if branch.active else Text("  ")
        found = self.labels.get(branch.leaf)
        label = (
            Text(inert(masked(found, redacting(self.app)), keep_newlines=False))
            if found is not None
            else Text("…", dim)
        )
        details = self.details.get(branch.leaf)
        fork = str(self.session.line_of(branch.fork)) if branch.fork >= 0 else "start"
        if details is not None and details.fork_time is not None:
            fork += " " + local_time(details.fork_time, "%m-%d %H:%M")
        if details is None:
            cells = [Text(fork), Text("…", dim), Text(""), Text(""), Text(""), Text("")]
        else:
            when = age_since(details.last_time) if details.last_time is not None else ""
            bad = details.ends in ("dangling call", "error result")
            cells = [
                Text(fork),
                Text(f"{details.steps:,}"),
                Text(tokens_cell(details.tokens)),
                Text(cost_cell(self.costs.get(branch.leaf))),
                Text(when),
                Text(details.ends, self._style("branches--problem") if bad else ""),
            ]
        line = mark + cell(label, max(width - FIXED, 10))
        for content, (_, column_width, right) in zip(cells, COLUMNS, strict=True):
            line += Text(" ") + cell(content, column_width, right)
        return line


class Listed(Message):
    def __init__(self, rows: list[Branch]) -> None:
        self.rows = rows
        super().__init__()


class Labelled(Message):
    def __init__(
        self,
        labels: dict[int, str],
        details: dict[int, Details],
        done: bool,
        costs: dict[int, float | None] | None = None,
    ) -> None:
        self.labels, self.details, self.done, self.costs = labels, details, done, costs or {}
        super().__init__()


class BranchesScreen(Screen):
    """The branches of ``session``; ``act(kind, entry)`` carries out what is
    chosen on the session view ("go", "leaf", "fork", "compare")."""

    BINDINGS = [
        Binding("enter", "go", "Go to leaf"),
        Binding("a", "make_leaf", "Make active"),
        Binding("F", "fork", "Fork"),
        Binding("space", "mark", "Mark"),
        Binding("d", "compare", "Compare"),
        Binding("slash", "filter", "Filter"),
        Binding("escape,q", "back", "Back"),
        Binding("up", "move(-1)", show=False),  # (from the filter too; in the table, its own keys)
        Binding("down", "move(1)", show=False),
        Binding("pageup", "move(-1, True)", show=False),
        Binding("pagedown", "move(1, True)", show=False),
    ]
    DEFAULT_CSS = """
    BranchesScreen #heading { height: 1; background: $panel; padding: 0 1; text-style: bold; }
    BranchesScreen #filter { border: none; height: 1; padding: 0 1; }
    BranchesScreen BranchTable { height: 1fr; }
    """

    def __init__(self, session, act) -> None:
        super().__init__()
        self.session, self.act = session, act
        self.all: list[Branch] = []
        self.listed = False
        self.done = False

    def compose(self) -> ComposeResult:
        yield Static("listing the branches…", id="heading", markup=False)
        yield Input(
            placeholder="type to filter by the branch's first message · space marks two · d compares",
            id="filter",
            select_on_focus=False,
        )
        yield BranchTable(self.session, id="table")
        yield Footer(
            compact=True, show_command_palette=False
        )  # from the first frame: the keys are part of what the screen says

    @property
    def table(self) -> BranchTable:
        return self.query_one(BranchTable)

    def on_mount(self) -> None:
        self.table.focus()
        self.gather()

    @work(thread=True, exclusive=True, group="branches", exit_on_error=False, description="branches")
    def gather(self) -> None:
        """List, then label every branch, then the details, top rows first."""
        worker = get_current_worker()
        session = self.session
        rows = model.branches(session)
        self.post_message(Listed(rows))
        labels = {}
        for branch in rows:
            if worker.is_cancelled:
                return
            labels[branch.leaf] = model.label(session, branch)
        self.post_message(Labelled(labels, {}, False))
        from ...model.usage.totals import entries_usage

        batch: dict[int, Details] = {}
        costs: dict[int, float | None] = {}
        posted = time.monotonic()
        for branch in rows:  # in the order shown: the top rows first
            if worker.is_cancelled:
                return
            batch[branch.leaf] = model.details(session, branch)
            costs[branch.leaf] = entries_usage(session, model.own_entries(session, branch)).cost_usd
            if time.monotonic() - posted >= BATCH_SECONDS:
                self.post_message(Labelled({}, batch, False, costs))
                batch, costs, posted = {}, {}, time.monotonic()
        self.post_message(Labelled({}, batch, True, costs))

    def on_listed(self, message: Listed) -> None:
        self.all, self.listed = message.rows, True
        self._refilter()

    def on_labelled(self, message: Labelled) -> None:
        table = self.table
        table.labels.update(message.labels)
        table.details.update(message.details)
        table.costs.update(message.costs)
        self.done = message.done
        if message.labels:
            self._refilter()
        else:
            table.refresh()
            self._update_heading()

    def _refilter(self) -> None:
        query = self.query_one("#filter", Input).value.strip().lower()
        labels = self.table.labels
        rows = [b for b in self.all if not query or query in labels.get(b.leaf, "").lower()]
        self.table.show(rows)
        self._update_heading()

    def _update_heading(self) -> None:
        shown, total = len(self.table.rows), len(self.all)
        noun = "branch" if total == 1 else "branches"
        count = f"{total:,} {noun}" if shown == total else f"{shown:,} of {total:,} {noun}"
        text = f"{count} · the most recently written first · ● the active one"
        if not self.done:
            text += " · reading…"
        self.query_one("#heading", Static).update(Text(text))

    # -- filter ---------------------------------------------------------------------
    def on_branch_table_typed(self, message: BranchTable.Typed) -> None:
        field = self.query_one("#filter", Input)
        field.value += message.character
        field.cursor_position = len(field.value)
        field.focus()

    def action_type(self, character: str) -> None:
        self.on_branch_table_typed(BranchTable.Typed(character))

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def on_input_changed(self, message: Input.Changed) -> None:
        if self.listed:
            self._refilter()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self.table.focus()

    # -- actions --------------------------------------------------------------------
    def action_move(self, delta: int, pages: bool = False) -> None:
        table = self.table
        table.focus()
        table.move_to(table.cursor + delta * (max(table.size.height - 2, 1) if pages else 1))

    def action_move_to(self, row: int) -> None:
        self.table.move_to(row if row >= 0 else len(self.table.rows) - 1)

    def action_back(self) -> None:
        field = self.query_one("#filter", Input)
        if field.value:
            field.value = ""
            self.table.focus()
            return
        self.dismiss()

    def _chosen(self, kind: str) -> None:
        branch = self.table.selected
        if branch is not None:
            self.act(kind, branch.leaf)

    def action_go(self) -> None:
        self._chosen("go")

    def action_make_leaf(self) -> None:
        self._chosen("leaf")

    def action_fork(self) -> None:
        self._chosen("fork")

    def action_mark(self) -> None:
        branch, table = self.table.selected, self.table
        if branch is None:
            return
        if branch.leaf in table.marked:
            table.marked.remove(branch.leaf)
        else:
            table.marked = (table.marked + [branch.leaf])[-2:]
        table.refresh()

    def action_compare(self) -> None:
        """The two marked branches; else the marked (or the selected) one
        against the active branch (or, from the active one, the newest other)."""
        table = self.table
        if not self.listed:
            self.notify("still listing the branches…", timeout=2)
            return
        chosen = list(table.marked)
        if len(chosen) < 2 and table.selected is not None and table.selected.leaf not in chosen:
            chosen.append(table.selected.leaf)
        others = [b.leaf for b in sorted(self.all, key=lambda b: not b.active) if b.leaf not in chosen]
        chosen += others[: 2 - len(chosen)]  # the active branch first, then the newest
        if len(chosen) < 2:
            self.notify("one branch only: nothing to compare", timeout=3)
            return
        by_leaf = {b.leaf: b for b in self.all}
        from .compare import CompareScreen

        self.app.push_screen(CompareScreen(self.session, self.act, by_leaf[chosen[0]], by_leaf[chosen[1]]))
