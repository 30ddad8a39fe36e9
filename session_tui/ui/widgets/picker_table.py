"""The picker's table: one row per session file, only the visible rows drawn."""

from __future__ import annotations

import os
import re
from collections import Counter

from rich.text import Text
from textual.events import Click
from textual.message import Message

from ...model.catalog.session_info import SessionInfo
from ...model.reading.archive_listing import is_archive_url, place_of, shown_address
from ...model.sanitize import inert
from .. import cells
from ..cells import age, cell, entries_text, human_size
from ..masking import inert_shown, masked, redacting
from .row_table import NAV_KEYS, RowTable

#: (heading, width, right-aligned) of the columns after the title
COLUMNS = (
    ("format", 8, False),
    ("entries", 8, True),
    ("last activity", 14, True),
    ("size", 9, True),
    ("problems", 30, False),
    ("", 9, False),
)
#: below 110 columns the title would get under 40: the fixed columns narrow
NARROW_COLUMNS = (
    ("format", 7, False),
    ("entries", 7, True),
    ("active", 10, True),
    ("size", 7, True),
    ("problems", 12, False),
    ("", 6, False),
)
NARROW_BELOW = 110
MACHINE_WIDTH = 14  # the machine column, first, in a picker over the team archive
#: what the last column says of a row's agent (``SessionInfo.badge``): the session view's state, in a word
BADGES = {"running": "▶ running", "live": "● live", "crashed": "✗ crashed"}


_ID_STEM = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def short_name(path: str) -> str:
    """A file's name, short: a Codex rollout's time, a pi session's time,
    the first 8 characters of an id (Claude Code; a session folder's, whose
    file is always ``events.jsonl``: Copilot CLI), a database session's id
    (``opencode.db#ses_…``), else its first 20."""
    name = os.path.basename(path)
    if "#" in name:
        name = name.partition("#")[2]
    elif name == "events.jsonl":
        name = os.path.basename(os.path.dirname(path)) or name
    stem = name.removesuffix(".jsonl")
    if stem.startswith("rollout-"):
        return stem[len("rollout-") : len("rollout-") + 16]
    if len(stem) > 17 and stem[4] == "-" and stem[10] == "T":  # pi: 2026-03-18T00-13-56-549Z_<id>
        return stem[:16]
    if _ID_STEM.match(stem):
        return stem[:8]
    return stem if len(stem) <= 20 else stem[:19] + "…"


def columns_for(width: int) -> tuple[tuple[str, int, bool], ...]:
    return NARROW_COLUMNS if width < NARROW_BELOW else COLUMNS


def title_width(width: int) -> int:
    return max(width - sum(w + 1 for _, w, _ in columns_for(width)), 10)


PASS_KEYS = "?/ " + NAV_KEYS  # keys a focused table leaves to their bindings instead of starting a filter


class PickerTable(RowTable):
    """Rows of session files; only the visible ones are drawn. Line 0 is the
    column heading, pinned; the cursor is a row index."""

    FILTERS = True

    COMPONENT_CLASSES = {"picker--cursor", "picker--heading", "picker--dim", "picker--problem", "picker--live"}
    DEFAULT_CSS = """
    PickerTable { background: $surface; }
    PickerTable > .picker--cursor { background: $accent 40%; }
    PickerTable:focus > .picker--cursor { background: $accent 70%; }
    PickerTable > .picker--heading { color: $st-tool; text-style: bold; }
    PickerTable > .picker--dim { color: $st-dim; }
    PickerTable > .picker--problem { color: $st-problem; }
    PickerTable > .picker--live { color: $st-running; text-style: bold; }
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
        #: a picker over the team archive: a machine column first
        self.archive = any(is_archive_url(root) for root in roots)
        self.rows: list[SessionInfo] = []  # (RowTable's rows)
        self._look: list[tuple[str, str]] = []  # ages and badges (running, live, crashed) last painted
        self.repeated: set[str] = set()  # titles more than one row has: those rows show their file's name too

    @property
    def stuck_after(self) -> float:
        """The user's setting (model/settings.py)."""
        from ..app_services import settings_of

        return settings_of(self).stuck_after

    @staticmethod
    def row_key(row: SessionInfo) -> object:
        return row.path

    def show(self, rows: list, keep: object | None = None) -> None:
        counts = Counter(info.title for info in rows if info.title)
        self.repeated = {title for title, count in counts.items() if count > 1}
        super().show(rows, keep)

    def display_path(self, path: str) -> str:
        """``path`` inside the folder it was found under (one folder given),
        else with ``~`` for the home folder."""
        place = place_of(path)
        if place is not None:  # (an archived session: its path on its machine, the machine in its column)
            return shown_address(path).removeprefix(place.machine + ":")
        prefix = os.path.join(self.roots[0], "")
        if len(self.roots) == 1 and path.startswith(prefix):
            return path[len(prefix) :]
        return cells.tilde(path)

    def visible_rows(self) -> list[SessionInfo]:
        top = self.scroll_offset.y
        return self.rows[top : top + max(self.size.height - 1, 0)]

    def repaint_if_aged(self) -> None:
        """Repaint when an age or a live badge on screen would read
        differently now."""
        at = cells.now()
        stuck = self.stuck_after
        look = [(age(at - info.last_activity), info.badge(at, stuck)) for info in self.visible_rows()]
        if look != self._look:
            self._look = look
            self.refresh()

    # -- rendering ----------------------------------------------------------------
    def _machine_cell(self, text: Text) -> Text:
        return cell(text, MACHINE_WIDTH) + Text(" ") if self.archive else Text("")

    def heading(self, width: int) -> Text:
        line = self._machine_cell(Text("machine"))
        line += cell(Text("title"), self._title_width(width)) + Text(" ")
        for name, column_width, right in columns_for(width):
            line += cell(Text(name), column_width, right) + Text(" ")
        return line

    def row_text(self, info: SessionInfo, width: int) -> Text:
        at = cells.now()
        style = self._style
        dim = style("picker--dim")
        if info.known and info.title:
            title = Text(inert(masked(info.title, redacting(self.app)), keep_newlines=False))
        else:  # not read yet, or nothing names it
            title = Text(inert_shown(self.app, self.display_path(info.path), keep_newlines=False), dim)
        if info.subagent:
            title = Text("⤷ ", dim) + title
        if info.fork:
            title = Text("⋔ ", dim) + title
        if info.known and info.title in self.repeated:  # rows of the same title told apart by their file
            name = inert_shown(self.app, short_name(info.path), keep_newlines=False)
            title = Text.assemble(Text(name, dim), "  ", title)
        stuck = self.stuck_after
        problems, badge = info.row(at, stuck)
        row_cells = [
            Text(info.format or "?") if info.known else Text("…", dim),
            Text(entries_text(info)),
            Text(age(at - info.last_activity)),
            Text(human_size(info.size)),
            Text("⚠ " + " · ".join(problems), style("picker--problem")) if problems else Text(""),
            Text(BADGES[badge], style("picker--problem" if badge == "crashed" else "picker--live"))
            if badge
            else Text(""),
        ]
        place = place_of(info.path)
        line = self._machine_cell(Text(inert_shown(self.app, place.machine, keep_newlines=False) if place else ""))
        parts = [cell(title, self._title_width(width))]
        parts += (cell(content, w, right) for content, (_, w, right) in zip(row_cells, columns_for(width), strict=True))
        for text in parts:  # (in place: ``+`` copied the whole line at each cell)
            text.append(" ")  # (the separator in the cell's own style, as it always was)
            line.append_text(text)
        return line

    def _title_width(self, width: int) -> int:
        return max(title_width(width) - (MACHINE_WIDTH + 1 if self.archive else 0), 10)

    def on_click(self, event: Click) -> None:
        if event.y == 0:
            return
        self.move_to(event.y - 1 + self.scroll_offset.y)
        if event.chain == 2 and self.selected is not None:
            self.post_message(self.Chosen(self.selected))
