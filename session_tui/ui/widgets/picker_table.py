"""The picker's table: one row per session file, only the visible rows drawn."""

from __future__ import annotations

import os
import time

from rich.text import Text
from textual.events import Click
from textual.message import Message

from ...model.sanitize import inert
from ...model.session_info import SessionInfo
from ..cells import age, cell, entries_text, human_size
from .row_table import RowTable

#: (heading, width, right-aligned) of the columns after the title
COLUMNS = (
    ("format", 8, False),
    ("entries", 8, True),
    ("last activity", 14, True),
    ("size", 9, True),
    ("problems", 22, False),
    ("", 7, False),
)
FIXED_WIDTH = sum(width + 1 for _, width, _ in COLUMNS)
PASS_KEYS = "?/ "  # keys a focused table leaves to their bindings instead of starting a filter


class PickerTable(RowTable):
    """Rows of session files; only the visible ones are drawn. Line 0 is the
    column heading, pinned; the cursor is a row index."""

    COMPONENT_CLASSES = {"picker--cursor", "picker--heading", "picker--dim", "picker--problem", "picker--live"}
    DEFAULT_CSS = """
    PickerTable { background: $surface; }
    PickerTable > .picker--cursor { background: $accent 40%; }
    PickerTable:focus > .picker--cursor { background: $accent 70%; }
    PickerTable > .picker--heading { color: $foreground 60%; text-style: bold; }
    PickerTable > .picker--dim { color: $foreground 50%; }
    PickerTable > .picker--problem { color: $error; }
    PickerTable > .picker--live { color: $success; text-style: bold; }
    """

    PASS_KEYS = PASS_KEYS
    HEADING, CURSOR = "picker--heading", "picker--cursor"

    class Highlighted(RowTable.Highlighted):
        pass

    class Chosen(Message):
        def __init__(self, info: SessionInfo) -> None:
            self.info = info
            super().__init__()

    class Typed(RowTable.Typed):
        pass

    def __init__(self, roots: list[str], **kwargs) -> None:
        super().__init__(**kwargs)
        self.roots = roots
        self.rows: list[SessionInfo] = []  # (RowTable's rows)
        self._look: list[tuple[str, bool]] = []  # ages and live badges last painted

    @staticmethod
    def row_key(row: SessionInfo) -> object:
        return row.path

    def display_path(self, path: str) -> str:
        """``path`` inside the folder it was found under (one folder given),
        else with ``~`` for the home folder."""
        one_root = len(self.roots) == 1
        prefix = os.path.join(self.roots[0] if one_root else os.path.expanduser("~"), "")
        if not path.startswith(prefix):
            return path
        return path[len(prefix) :] if one_root else "~/" + path[len(prefix) :]

    def visible_rows(self) -> list[SessionInfo]:
        top = self.scroll_offset.y
        return self.rows[top : top + max(self.size.height - 1, 0)]

    def repaint_if_aged(self) -> None:
        """Repaint when an age or a live badge on screen would read
        differently now."""
        now = time.time()
        look = [(age(now - info.mtime_ns / 1e9), info.live(now)) for info in self.visible_rows()]
        if look != self._look:
            self._look = look
            self.refresh()

    # -- rendering ----------------------------------------------------------------
    def heading(self, width: int) -> Text:
        line = cell(Text("title"), max(width - FIXED_WIDTH, 10)) + Text(" ")
        for name, column_width, right in COLUMNS:
            line += cell(Text(name), column_width, right) + Text(" ")
        return line

    def row_text(self, info: SessionInfo, width: int) -> Text:
        now = time.time()
        style = self._style
        dim = style("picker--dim")
        if info.known and info.title:
            title = Text(inert(info.title, keep_newlines=False))
        else:  # not read yet, or nothing names it
            title = Text(inert(self.display_path(info.path), keep_newlines=False), dim)
        if info.subagent:
            title = Text("⤷ ", dim) + title
        problems = info.problems()
        cells = [
            Text(info.format or "?") if info.known else Text("…", dim),
            Text(entries_text(info)),
            Text(age(now - info.mtime_ns / 1e9)),
            Text(human_size(info.size)),
            Text("⚠ " + " · ".join(problems), style("picker--problem")) if problems else Text(""),
            Text("● live", style("picker--live")) if info.live(now) else Text(""),
        ]
        line = cell(title, max(width - FIXED_WIDTH, 10)) + Text(" ")
        for content, (_, column_width, right) in zip(cells, COLUMNS, strict=True):
            line += cell(content, column_width, right) + Text(" ")
        return line

    def on_click(self, event: Click) -> None:
        if event.y == 0:
            return
        self.move_to(event.y - 1 + self.scroll_offset.y)
        if event.chain == 2 and self.selected is not None:
            self.post_message(self.Chosen(self.selected))
