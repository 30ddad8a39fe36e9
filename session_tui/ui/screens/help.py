"""The help screen: the keys of the screen it was opened from, one table
generated from that screen's bindings (the session view's from the key
registry, ui/keys.py), then what the marks mean. It fits 80×24: the tables
scroll (j/k, g/G, PgUp/PgDn) inside a frame the size of the terminal."""

from __future__ import annotations

from collections.abc import Mapping

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from ..keys import SESSION_KEYS, shown

TREE_MOVES = [
    ("↑ ↓  k j", "previous / next row"),
    ("g G  Home End", "first / last row"),
    ("PgUp PgDn", "a page up / down"),
    ("Enter Space", "fold or unfold a branch (on a fork: all its branches)"),
    ("Tab", "switch between the tree and the detail pane"),
]
LIST_MOVES = [("↑ ↓  k j", "previous / next row"), ("g G  Home End", "first / last row"), ("PgUp PgDn", "a page")]
APP_KEYS = [
    ("?", "this help"),
    ("ctrl+p", "command palette: every action, jump to an entry, export, themes"),
    ("ctrl+q", "quit, from anywhere"),
]

SESSION_MARKS = [
    ("● ○", "on / off the active branch"),
    ("⋔", "a fork: the entry has several children"),
    ("▸ ▾", "an alternative branch, folded / unfolded"),
    ("◆", "a summary (compaction) node, with the tokens it replaced"),
    ("→ name(args)  ← name:", "a tool call / a tool result"),
    ("✗ ←", "a failed tool result (an error, a non-zero exit): ] and [ go there"),
    ("▶ bash 0:12", "a call running now: no result yet, the file is being written"),
    ("⚠", "a problem: a call without a result (stuck), a bad line, a missing parent…"),
    ("┆", "the same model response as the row above"),
    ("⤷ sub-agent", "a call that spawned a sub-agent; s opens its transcript"),
    ("grey rows", "turns the model no longer sees (Codex: a rollback or a rewind)"),
    ("… being written", "a last line without newline while the file is written (later: ⚠ torn)"),
]
PICKER_MARKS = [
    ("● live  ▶ running", "written in the last 5 s / a call running now"),
    ("≈1.2k", "entries estimated from the head and tail (exact once opened)"),
    ("⤷", "a sub-agent transcript"),
    ("⋔", "a fork of another session"),
]


def session_rows(keymap: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """The session view's keys, those the config file rebinds (``keymap``) as rebound."""
    return TREE_MOVES + [(shown(k, keymap or {}), k.help.replace("`", "")) for k in SESSION_KEYS]


def screen_rows(screen: Screen) -> list[tuple[str, str]]:
    """The keys ``screen`` declares (its bindings, described), after the
    moves every list has, as the help table's rows."""
    from .session import SessionScreen

    if isinstance(screen, SessionScreen):
        settings = getattr(screen.app, "settings", None)
        return session_rows(settings.keys if settings is not None else None)
    rows: list[tuple[str, str]] = []
    seen: set[str] = set()
    for binding in Binding.make_bindings(type(screen).BINDINGS):
        if not binding.description or not binding.show or binding.action in seen:
            continue
        seen.add(binding.action)
        shown = binding.key_display or screen.app.get_key_display(binding)
        rows.append((shown, binding.description))
    typed = [("letters", "start the filter (j k g G q move and go back: / types them)")] if _filters(screen) else []
    return LIST_MOVES + typed + rows + [("q", "back one screen; in the first one, quit")]


def _filters(screen: Screen) -> bool:
    from ..widgets.row_table import RowTable

    return bool(screen.query(RowTable))


def _table(title: str, rows: list[tuple[str, str]]) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, expand=True, show_header=False)
    table.add_column(style="bold", no_wrap=True, max_width=24)
    table.add_column(ratio=1)
    for key, what in rows:
        table.add_row(Text(key), Text(what))
    return table


def help_tables(screen: Screen) -> Group:
    from .files import FilesScreen
    from .session import SessionScreen

    name = {SessionScreen: "the session", FilesScreen: "the picker"}.get(type(screen), "this screen")
    parts = [_table(f"Keys of {name}", screen_rows(screen) + APP_KEYS)]
    marks = {SessionScreen: SESSION_MARKS, FilesScreen: PICKER_MARKS}.get(type(screen))
    if marks:
        parts.append(_table("Marks", marks))
    return Group(*parts)


class HelpScreen(ModalScreen):
    BINDINGS = [
        Binding("escape,q,question_mark", "app.pop_screen", "Close"),
        Binding("j,down", "scroll(1)", show=False),
        Binding("k,up", "scroll(-1)", show=False),
        Binding("pagedown", "scroll(10)", show=False),
        Binding("pageup", "scroll(-10)", show=False),
        Binding("g,home", "scroll_to(0)", show=False),
        Binding("G,end", "scroll_to(-1)", show=False),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 100; max-width: 100%; height: auto; max-height: 100%;
                                  background: $surface; border: round $primary; padding: 0 1; }
    HelpScreen Static { height: auto; }
    """

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.tables = help_tables(screen)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self.tables)

    def action_scroll(self, rows: int) -> None:
        self.query_one(VerticalScroll).scroll_relative(y=rows, animate=False)

    def action_scroll_to(self, row: int) -> None:
        area = self.query_one(VerticalScroll)
        if row < 0:
            area.scroll_end(animate=False)
        else:
            area.scroll_home(animate=False)
