"""The entry tree: a virtualized Line-API view over the model's RowLayout.

Only the visible rows are rendered, each read back from disk through a small
cache: millions of entries cost what ten do to draw. Session text is shown
as plain ``Text`` after ``inert()``: never markup, never a raw escape."""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Collection
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...model.entries.readable import command_of
from ...model.entries.view import EntryView, role_label
from ...model.reading.segment import Shape
from ...model.session.rows import Row, RowFlag, RowLayout
from ...model.words import clock
from .. import cells
from ..labels import one_line, short_args
from ..masking import inert_shown, masked_record, redacting

if TYPE_CHECKING:  # pragma: no cover
    from ...model.session.session import Session

MAX_GUIDES = 12
VIEW_CACHE = 4096
STRIP_CACHE = 1024
CHROME_LINES = 2  # the session view's status and footer lines: the tree's height is the rest


class EntryTree(ScrollView, can_focus=True):
    """Rows of a session; the cursor is a row index."""

    COMPONENT_CLASSES = {
        "entry-tree--cursor",
        "entry-tree--guide",
        "entry-tree--active",
        "entry-tree--inactive",
        "entry-tree--summary",
        "entry-tree--problem",
        "entry-tree--pending",
        "entry-tree--running",
        "entry-tree--lineno",
        "entry-tree--user",
        "entry-tree--assistant",
        "entry-tree--tool",
        "entry-tree--system",
        "entry-tree--call",
        "entry-tree--branch",
    }
    DEFAULT_CSS = """
    EntryTree { background: $surface; overflow-x: hidden; overflow-y: scroll; }
    EntryTree > .entry-tree--cursor { background: $accent 40%; }
    EntryTree:focus > .entry-tree--cursor { background: $accent 70%; }
    EntryTree > .entry-tree--guide { color: $st-guide; }
    EntryTree > .entry-tree--active { color: $st-running; }
    EntryTree > .entry-tree--inactive { color: $st-dim; }
    EntryTree > .entry-tree--summary { color: $st-summary; text-style: bold; }
    EntryTree > .entry-tree--problem { color: $st-problem; text-style: bold; }
    EntryTree > .entry-tree--pending { color: $st-problem; text-style: italic; }
    EntryTree > .entry-tree--running { color: $st-running; text-style: bold; }
    EntryTree > .entry-tree--lineno { color: $st-lineno; }
    EntryTree > .entry-tree--user { color: $st-user; text-style: bold; }
    EntryTree > .entry-tree--assistant { color: $st-assistant; text-style: bold; }
    EntryTree > .entry-tree--tool { color: $st-tool; }
    EntryTree > .entry-tree--system { color: $st-system; text-style: italic; }
    EntryTree > .entry-tree--call { color: $st-call; }
    EntryTree > .entry-tree--branch { color: $st-summary; }
    """
    BINDINGS = [
        Binding("up,k", "cursor_up", "Up", show=False),
        Binding("down,j", "cursor_down", "Down", show=False),
        Binding("home,g", "first", "First", show=False),
        Binding("end,G", "last", "Last", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding(
            "enter,space", "toggle_fold", "Fold", show=False
        ),  # (not "toggle": DOMNode.action_toggle sets an attribute)
    ]

    cursor: reactive[int] = reactive(0, repaint=False, always_update=True)

    class Chosen(Message):
        """Enter on an entry that does not fold."""

        def __init__(self, entry: int) -> None:
            self.entry = entry
            super().__init__()

    class Highlighted(Message):
        """The cursor moved to ``entry`` (-1: the pending row)."""

        def __init__(self, entry: int) -> None:
            self.entry = entry
            super().__init__()

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session: Session | None = None  # with the rows, from show()
        self.rows: RowLayout | None = None
        self.problems: dict[int, str] = {}  # entry -> problem kinds, for the ⚠ marker
        self.running: dict[int, tuple[str, float | None]] = {}  # call entry -> (tool, started): ▶ bash 0:12
        self.writing = False  # the file is being written (live state): a line without newline is not torn yet
        self.off_branch: set[int] = set()  # trunk entries the model no longer sees (rolled back)
        self.subagents: dict[int, str] = {}  # call entry -> the sub-agent transcript it spawned
        self._views: OrderedDict[int, tuple[EntryView | None, Text]] = OrderedDict()
        self._strips: OrderedDict[tuple, Strip] = OrderedDict()  # (row, cursor?, width) -> strip
        self._style_cache: dict[str, Style] = {}
        self._tailing = False
        self.live = False  # the file is watched: leave room below the last row for appends
        self._shown_rows = 0
        self._tool_names: dict[str, str] = {}

    # -- data ---------------------------------------------------------------------
    def show(
        self,
        session: Session,
        rows: RowLayout,
        cursor_entry: int | None = None,
        changed: Collection[int] | None = None,
        cursor_row: int | None = None,
        tailing: bool = False,
    ) -> None:
        """Show ``rows`` of ``session`` (a new one, or the same one rebuilt).
        ``changed``: the only entries whose look may have changed (after an
        append: the parents of the new entries); None: any of them."""
        if session is not self.session:
            self._tool_names.clear()
        if changed is None or session is not self.session:
            self.clear_caches()
        else:
            for key in [k for k in self._strips if k[0].entry in changed or k[0].entry < 0]:
                del self._strips[key]
            for entry in changed:
                self._views.pop(entry, None)
        appended_from = self._shown_rows - 1 if tailing and session is self.session and self.rows is not None else None
        self.session, self.rows = session, rows
        self._shown_rows = len(rows)
        # Rows are cut to the width: never a horizontal scrollbar. A new height
        # repaints the whole tree: a live file's tree has room for three
        # quarters of a page of appends, and grows only when they fill it
        # (when the cursor scrolls anyway).
        room = (self.size.height or self.app.size.height) * 3 // 4 if self.live else 0  # (no size before layout)
        if not tailing or len(rows) > self.virtual_size.height:
            self.virtual_size = Size(0, len(rows) + room)
        row = cursor_row
        if row is None and cursor_entry is not None and cursor_entry >= 0:
            shown = rows.shown_entry(cursor_entry)  # (a leaf that is a quiet record: the row it is counted on)
            row = rows.row_of(shown) if shown >= 0 else None
        if row is None:
            row = min(self.cursor, max(len(rows) - 1, 0))
        self._tailing = tailing
        top = self.scroll_offset.y
        self.cursor = row
        self._tailing = False
        if appended_from is not None and changed is not None and self.scroll_offset.y == top:
            # Only rows were added at the end (and their parents changed):
            # repaint those lines, not the page.
            for entry in changed or ():
                changed_row = rows.row_of(entry) if entry >= 0 else None
                if changed_row is not None:
                    self.refresh_line(changed_row)
            start = max(appended_from, top)
            end = min(max(len(rows), appended_from + 1), top + self.size.height)  # blank rows below stay blank
            self.refresh_lines(start, max(end - start, 0))
        else:
            self.refresh()

    def set_problems(
        self, problems: dict[int, str], off_branch: set[int] | None = None, subagents: dict[int, str] | None = None
    ) -> None:
        off_branch, subagents = off_branch or set(), subagents or {}

        def differ(old: dict, new: dict) -> set[int]:
            return {e for e in old.keys() | new.keys() if old.get(e) != new.get(e)}

        changed = differ(self.problems, problems) | differ(self.subagents, subagents) | (off_branch ^ self.off_branch)
        self.problems, self.off_branch, self.subagents = problems, off_branch, subagents
        self._repaint(changed)

    def set_running(self, running: dict[int, tuple[str, float | None]]) -> None:
        """Mark the calls running now with their tool and elapsed time; the
        rows of calls that ran or run are repainted (their clocks move)."""
        changed = self.running.keys() | running.keys()
        self.running = running
        self._repaint(changed)

    def _repaint(self, entries: Collection[int]) -> None:
        """Draw again only the rows of ``entries`` (their marks changed)."""
        for key in [k for k in self._strips if k[0].entry in entries]:
            del self._strips[key]
        for entry in entries:
            self._views.pop(entry, None)
            row = self.rows.row_of(entry) if self.rows is not None else None
            if row is not None:
                self.refresh_line(row)

    @property
    def shown_session(self) -> Session:
        """The session shown: rows are drawn (and their entries read) only once show() gave one."""
        assert self.session is not None, "no session shown yet"
        return self.session

    @property
    def cursor_entry(self) -> int:
        if not self.rows or not len(self.rows):
            return -1
        return self.rows.at(self.cursor).entry

    def _view(self, entry: int) -> tuple[EntryView | None, Text]:
        cached = self._views.get(entry)
        if cached is not None:
            self._views.move_to_end(entry)
            return cached
        view: EntryView | None
        try:
            session = self.shown_session
            read = session.format.view(masked_record(session.record(entry), redacting(self.app)))
        except Exception as exc:  # the line changed under us: show why, never crash the view
            view, label = None, Text(f"(unreadable: {type(exc).__name__})", style="italic")
        else:
            view, label = read, self._label(entry, read)
        self._views[entry] = (view, label)
        if len(self._views) > VIEW_CACHE:
            self._views.popitem(last=False)
        return view, label

    def tool_name(self, entry: int, call_id: str) -> str:
        """The name of the tool ``call_id`` (looked up among the ancestors of ``entry``)."""
        if call_id in self._tool_names:
            return self._tool_names[call_id]
        session = self.shown_session
        tree = session.tree
        node = tree.parent[entry]
        for _ in range(64):
            if node < 0:
                break
            if tree.shape[node] & Shape.CALLS:
                record = masked_record(session.record(node), redacting(self.app))  # (masked before a row cuts it)
                for call in session.format.view(record).tool_calls:
                    self._tool_names[call.id] = call.name
                if call_id in self._tool_names:
                    return self._tool_names[call_id]
            node = tree.parent[node]
        return "result"

    def _label(self, entry: int, view: EntryView) -> Text:
        styles = self.get_component_rich_style
        text = Text(no_wrap=True, overflow="ellipsis")
        problem = self.problems.get(entry)
        running = self.running.get(entry)
        if problem:
            text.append(f"⚠ {problem} ", styles("entry-tree--problem"))
        elif running:
            tool, started = running
            elapsed = f" {clock(cells.now() - started)}" if started is not None else ""
            text.append(f"▶ {short_args(tool, 30)}{elapsed} ", styles("entry-tree--running"))
        role_style = {
            "user": "entry-tree--user",
            "assistant": "entry-tree--assistant",
            "tool": "entry-tree--tool",
            "summary": "entry-tree--summary",
        }.get(view.role, "entry-tree--system")
        if self._continues_step(entry, view):  # the same model response as the row above
            text.append("   ┆ ", styles(role_style))
        else:
            text.append(f"{role_label(view.role):<4} ", styles(role_style))
        agent = self.subagents.get(entry)
        if agent:  # first, so a narrow pane still shows it
            name = os.path.basename(agent).removesuffix(".jsonl")
            text.append(
                f"⤷ sub-agent {inert_shown(self.app, name, keep_newlines=False)} (s) ", styles("entry-tree--call")
            )
        command = command_of(view)
        if command is not None:  # a command run in Claude Code itself: as typed, its output, its caveat
            if command.kind == "command":
                text.append(f"❯ {inert_shown(self.app, command.line, keep_newlines=False)}", styles("entry-tree--call"))
            elif command.kind == "caveat":
                text.append(command.line, styles("entry-tree--lineno"))
            else:
                text.append(one_line(command.line))
        elif view.kind == "summary":
            tokens = f" ({view.tokens_before:,} tokens before)" if view.tokens_before is not None else ""
            text.append(f"◆ summary{tokens}: ", styles("entry-tree--summary"))
            text.append(one_line(view.text))
        elif view.result_for is not None:
            failed = "✗ " if view.is_error else ""  # the client marks it failed (is_error, isError, an exit code)
            arrow = styles("entry-tree--problem") if view.is_error else styles("entry-tree--call")
            text.append(f"{failed}← {short_args(self.tool_name(entry, view.result_for), 40)}: ", arrow)
            text.append(one_line(view.text))
        else:
            if view.text.strip():
                text.append(one_line(view.text))
            for call in view.tool_calls:
                text.append(f" → {short_args(call.name, 40)}", styles("entry-tree--call"))
                text.append(f"({short_args(call.arguments)})")
        folded = self.rows.folded.get(entry) if self.rows is not None else None
        if folded:
            text.append(f"  +{folded} quiet", styles("entry-tree--lineno"))
        return text

    def _continues_step(self, entry: int, view: EntryView) -> bool:
        parent = self.shown_session.tree.parent[entry]
        if view.step is None or parent < 0:
            return False
        above = self._view(parent)[0]
        return above is not None and above.step == view.step

    # -- rendering ----------------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._style_cache.clear()
        self.clear_caches()

    def clear_caches(self) -> None:
        self._views.clear()
        self._strips.clear()

    def _style(self, name: str) -> Style:
        style = self._style_cache.get(name)
        if style is None:
            style = self._style_cache[name] = self.rich_style if name == "base" else self.get_component_rich_style(name)
        return style

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.size.width
        if self.rows is None or index >= len(self.rows):
            return Strip.blank(width, self._style("base"))
        row = self.rows.at(index)
        is_cursor = index == self.cursor
        key = (row, is_cursor, width)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._strips[key] = self._render_row(row, is_cursor, width)
            if len(self._strips) > STRIP_CACHE:
                self._strips.popitem(last=False)
        return strip

    def _render_row(self, row: Row, is_cursor: bool, width: int) -> Strip:
        styles = self._style
        base = styles("entry-tree--cursor") if is_cursor else Style()
        line = Text(no_wrap=True, overflow="ellipsis")
        session = self.shown_session
        if row.flags & RowFlag.PENDING:
            torn = len(session.lines.torn)
            line.append("      ", styles("entry-tree--lineno"))
            line.append(
                f"… being written: {torn:,} bytes, no newline yet"
                if self.writing
                else f"⚠ torn last line: {torn:,} bytes and no newline (not an entry)",
                styles("entry-tree--pending"),
            )
        else:
            entry = row.entry
            line.append(f"{session.line_of(entry):>5} ", styles("entry-tree--lineno"))
            depth = min(row.depth, MAX_GUIDES)
            if depth:
                line.append(
                    "│ " * (depth - 1) + ("├ " if row.flags & RowFlag.ALT_HEAD else "│ "), styles("entry-tree--guide")
                )
            if row.flags & RowFlag.ACTIVE and entry not in self.off_branch:
                line.append("● ", styles("entry-tree--active"))
            else:
                line.append("○ ", styles("entry-tree--inactive"))
            fork = session.tree.child_count(entry) >= 2
            if row.flags & RowFlag.ALT_HEAD:
                line.append("▸ " if row.flags & RowFlag.FOLDED else "▾ ", styles("entry-tree--branch"))
            line.append("⋔ " if fork else "  ", styles("entry-tree--branch"))
            label = self._view(entry)[1]
            if entry in self.off_branch:  # rolled back: greyed
                label = Text(label.plain, style=styles("entry-tree--inactive"), no_wrap=True, overflow="ellipsis")
            line.append_text(label)
        line.stylize(base)
        segments = list(line.render(self.app.console))
        strip = Strip(segments).adjust_cell_length(width, styles("base") + base)
        return strip.crop(0, width)

    # -- cursor -------------------------------------------------------------------
    def watch_cursor(self, old: int, new: int) -> None:
        if self.rows is None:
            return
        self.refresh_line(old)  # row numbers: ScrollView subtracts the scroll offset
        self.refresh_line(new)
        self.scroll_to_row(new)
        self.post_message(self.Highlighted(self.cursor_entry))

    def scroll_to_row(self, row: int) -> None:
        height = self.scrollable_content_region.height or self.size.height
        if not height:  # not laid out yet: place the cursor's row once the tree has its size
            # (the cursor's then, not this row: a key pressed before that frame has moved it)
            self.call_after_refresh(lambda: self.scroll_to_row(self.cursor))
            # and now, at the height the tree will have below the panes' status and
            # footer lines: the first frame shows the row, not a frame of the top rows
            height = self.app.size.height - CHROME_LINES
            if height <= 0:
                return
        top = self.scroll_offset.y
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + height:
            # Following a live file, scroll by three quarters of a page at a time: the
            # next appends then paint only their own line, not a whole page.
            spare = height * 3 // 4 if self._tailing else 0
            self.scroll_to(y=row - height + 1 + spare, animate=False, immediate=True)

    def move_to(self, row: int) -> None:
        if self.rows is not None and len(self.rows):
            self.cursor = max(0, min(row, len(self.rows) - 1))

    def action_cursor_up(self) -> None:
        self.move_to(self.cursor - 1)

    def action_cursor_down(self) -> None:
        self.move_to(self.cursor + 1)

    def action_first(self) -> None:
        self.move_to(0)

    def action_last(self) -> None:
        self.move_to(len(self.rows) - 1 if self.rows else 0)

    def action_page_up(self) -> None:
        self.move_to(self.cursor - max(1, self.size.height - 1))

    def action_page_down(self) -> None:
        self.move_to(self.cursor + max(1, self.size.height - 1))

    def action_toggle_fold(self) -> None:
        entry = self.cursor_entry  # (-1 without rows)
        if entry >= 0 and self.rows is not None and self.rows.toggle(entry, self.cursor):
            # the entry keeps its row, and rows keep their look: keep the cache
            self.show(self.shown_session, self.rows, changed=(), cursor_row=self.cursor)
        elif entry >= 0:
            self.post_message(self.Chosen(entry))  # nothing to fold: the screen may open it (a compaction)

    def on_click(self, event) -> None:
        self.move_to(event.y + self.scroll_offset.y)
