"""The session picker: every session file under the given folders, with
what its head and tail tell (title, format, entries, last activity, size,
problems, live). Type to filter (every letter, ``q`` too), ctrl+s sorts,
ctrl+f searches the contents, Enter opens one; Esc clears, or quits when
there is nothing to clear (as ctrl+q); rows follow the files as they change."""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Input, Static
from textual.worker import get_current_worker

from ...model.cache_dir import refusal
from ...model.catalog.cache import SESSION_SUFFIX, Catalog, absolute
from ...model.catalog.finding import SORTS, by_place, rank_rows
from ...model.catalog.first_rows import FirstRows
from ...model.catalog.session_info import SessionInfo
from ...model.errors import Cancelled, SessionError
from ...model.sanitize import Mask, inert
from ...model.words import plural
from ..app_services import services
from ..cells import tilde
from ..masking import inert_shown
from ..messages import InfosRead, OpenSession, SearchProgress
from ..widgets.picker_table import PickerTable
from .files_counting import EntryCounting

if TYPE_CHECKING:  # pragma: no cover
    import sqlite3

    from textual.timer import Timer

BATCH_SECONDS = 0.1  # rows read in a thread are posted this often
TYPING_SECONDS = 0.2  # the contents search asks the index this long after the last key
THREAD_ROWS = 20_000  # more files than this are ranked in a thread
CHUNK_ROWS = 5_000  # rows posted to the screen at a time
REFILTER_SECONDS = 0.25  # changes found in the background are shown at most this often
WATCH_DEBOUNCE_MS = 100
WATCH_STEP_MS = 20
TICK_SECONDS = 1.0  # live badges fade and ages move on this often
FIRST_ROWS_WAIT = 0.1  # the first frame waits this long for the child's rows (then shows none, and they follow)


class FilesScreen(EntryCounting, Screen):
    """The picker over ``roots`` (folders)."""

    BINDINGS = [
        Binding("enter", "open", "Open"),
        Binding("ctrl+s", "sort", "Sort", priority=True),
        Binding("ctrl+f", "search_contents", "Search contents", priority=True),
        Binding("ctrl+l", "fleet", "Live", priority=True),
        Binding("slash", "filter", "Filter"),
        Binding("escape", "clear", "Clear"),  # shown while there is something to clear
        Binding("escape", "nothing_to_clear", show=False),  # else Esc says how to quit: a stray Esc never ends it
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "move(-1, True)", "Page up", show=False),
        Binding("pagedown", "move(1, True)", "Page down", show=False),
    ]
    DEFAULT_CSS = """
    FilesScreen #heading, FilesScreen #where { height: 1; background: $panel; padding: 0 1; }
    FilesScreen #heading { text-style: bold; }
    FilesScreen #filter, FilesScreen #contents { border: none; height: 1; padding: 0 1; }
    FilesScreen #contents { display: none; }
    FilesScreen #contents.shown { display: block; }
    FilesScreen PickerTable { height: 1fr; }
    """

    def __init__(self, roots: str | list[str], mask: Mask | None = None, first_rows: FirstRows | None = None) -> None:
        """``mask`` (``--redact``): titles read with their secrets masked
        before they are cut; ``first_rows``: a child's walk of ``roots``
        under way (``model/catalog/first_rows.py``, with the same mask),
        whose rows are shown first when the cache remembers none."""
        super().__init__()
        self.roots = [absolute(r) for r in ([roots] if isinstance(roots, str) else roots)]
        if first_rows is not None and first_rows.roots != self.roots:  # (found for other folders: not these rows)
            first_rows.close()
            first_rows = None
        self._first_rows = first_rows
        self._walked: tuple[list[SessionInfo], int] | None = None  # the child's rows and count, once taken
        self.catalog = Catalog(mask=mask)
        self.infos: dict[str, SessionInfo] = {}
        self.listed = False  # the folders were walked (until then: what the cache remembers)
        self.remembered_count: int | None = None  # while only the newest remembered rows are shown: how many there are
        self.unread = 0
        self.sort = 0
        self.contents_query = ""  # the text of the last contents search
        self.matches: dict[str, int] | None = None  # files holding it, each its newest hit's line (None: no search)
        self.searching = False
        self.search_state = ""  # what the status line says about it
        self.search_id = 0  # the current search's number: messages of a stopped one are dropped
        self.watch_armed = False  # the folders are watched: every change from now on is seen
        self._search_timer: Timer | None = None  # a search due once typing pauses
        self._refilter_timer: Timer | None = None  # a refilter due for background changes
        self._to_count: dict[str, None] = {}  # rows whose entry count is an estimate, to count in full (in order)
        self._count_lock = threading.Lock()
        self._counting = False  # a worker is at the queue
        self._watch_after_rows = False  # the watch starts once the walk's first rows are shown

    def compose(self) -> ComposeResult:
        yield Static(id="heading", markup=False)
        yield Input(
            placeholder="type to filter by title or path · ctrl+f searches the contents",
            id="filter",
            select_on_focus=False,
        )
        yield PickerTable(self.roots, id="table")
        yield Input(placeholder="search the contents of every file: Enter to search, Esc to close", id="contents")
        yield Static(id="where", markup=False)
        yield Footer(
            compact=True, show_command_palette=False
        )  # from the first frame: the keys are part of what the screen says

    @property
    def table(self) -> PickerTable:
        return self.query_one(PickerTable)

    def on_mount(self) -> None:
        """The first paint shows what the cache remembers of these folders
        (no walk; nothing for a new user); a thread then lists the files and
        reconciles, and reads the ones the cache did not know, newest first
        (the top of the list), while keys stay live. Then the folders are
        watched."""
        self.table.focus()
        refused = refusal()
        if refused is not None:  # (stderr is not seen under the screen)
            self.notify(inert_shown(self.app, refused, keep_newlines=False), severity="warning", markup=False)
        first = self._first_rows
        if first is not None and first.walking:  # the child's rows, in this frame if it is done
            head = first.take(FIRST_ROWS_WAIT)
            if head is not None:
                self._walked = head
        else:
            head = self.catalog.head(self.roots) if first is None else first.remembered
        if head is not None:  # the newest rows first, the whole cache a frame later
            newest, self.remembered_count = head
            self.infos = {info.path: info for info in newest}
            self._refilter()
            self.call_after_refresh(self._remember_all)
        else:
            self._remember_all()
        self.set_interval(TICK_SECONDS, self._tick)

    def _remember_all(self) -> None:
        """Every row the cache remembers of these folders (and the child's,
        newer), then the walk."""
        rows = {info.path: info for info in self.catalog.remembered(self.roots)}
        newest, count = self._walked or ([], None)
        rows.update((info.path, info) for info in newest)
        self.infos, self.remembered_count = rows, count
        self._refilter()
        first = self._first_rows
        if first is not None and first.walking:  # the child's rows come later
            self._take_first_rows(first)
        elif self.infos:
            self.call_after_refresh(self._start_workers)  # the remembered rows first, then the walk
        else:
            self._start_workers()  # nothing to show before the walk: it starts with the first frame

    @work(thread=True, exclusive=True, group="first-rows", exit_on_error=False, description="first rows")
    def _take_first_rows(self, first_rows: FirstRows) -> None:
        """Wait for the child's walk (off the interpreter's lock), then show its rows."""
        found = first_rows.take()
        self.app.call_from_thread(self._show_first_rows, found)

    def _show_first_rows(self, found: tuple[list[SessionInfo], int] | None) -> None:
        """The child's rows, come after the first frame (None: it failed),
        then the walk."""
        if found is None:
            self._start_workers()
            return
        self._walked = found
        newest, self.remembered_count = found
        self.infos.update((info.path, info) for info in newest)
        self._refilter()
        self.call_after_refresh(self._start_workers)

    def _start_workers(self) -> None:
        self.gather(dict(self.infos))
        self._count_later(list(self.infos.values()))  # (remembered estimates: counted while the walk goes on)
        if not services(self).watching:
            return
        if self.infos:
            self.watch_files()
        else:  # nothing on screen yet: the watch (its import ~60 ms, its setup) waits for the walk's first rows
            self._watch_after_rows = True

    def _watch_late(self) -> None:
        """The watch, started after the first rows; once it is armed, the
        folders are walked again, so no change made before it is missed."""
        self.watch_files(walk_again=True)

    def on_unmount(self) -> None:
        if self._first_rows is not None:  # (a thread taking its rows then ends)
            self._first_rows.stop()
        self.catalog.save(self.roots)

    # -- gathering ----------------------------------------------------------------
    @work(thread=True, exclusive=True, group="gather", exit_on_error=False, description="gather")
    def gather(self, shown: dict[str, SessionInfo]) -> None:
        """List the files and correct the ``shown`` rows (remembered by the
        cache: files gone, changed or new); read the head and tail of each
        file the cache did not know, newest first, posting rows in batches
        (the first page at once); then save the cache."""
        worker = get_current_worker()
        for info in self._walked[0] if self._walked else ():  # the child read them: not again
            if info.known:  # (kept while their size and time are the same)
                self.catalog.correct(info)
        listed = self.catalog.listing(self.roots)
        if self.catalog.unreadable:  # (passed over)
            skipped = self.catalog.unreadable
            more = f" and {len(skipped) - 1} more" if len(skipped) > 1 else ""
            first = inert_shown(self.app, tilde(skipped[0]), keep_newlines=False)
            self.app.call_from_thread(self.notify, f"passing over {first}{more}: permission denied", markup=False)
        gc.freeze()  # the rows live as long as the picker: the collector's passes need not walk them
        found = {info.path: info for info in listed}
        fixes: list[tuple[str, SessionInfo | None]] = [(path, None) for path in shown if path not in found]
        fixes += [(path, info) for path, info in found.items() if info.known and shown.get(path) != info]
        unread = sorted(
            (path for path, info in found.items() if not info.known), key=lambda path: -found[path].mtime_ns
        )  # newest first: the rows on screen
        first_page = self.size.height or 50  # read before the listing is shown: one frame with their titles
        fixes = [(path, self.catalog.read(path)) for path in unread[:first_page]] + fixes
        fixes += [(path, found[path]) for path in unread[first_page:] if path not in shown]  # a row until read
        left = max(len(unread) - first_page, 0)
        for start in range(0, max(len(fixes), 1), CHUNK_ROWS):  # the keys stay live while 100,000 rows arrive
            self.post_message(InfosRead(fixes[start : start + CHUNK_ROWS], left, now=not start))
        batch: list[tuple[str, SessionInfo | None]] = []
        posted = time.monotonic()
        for n, path in enumerate(unread[first_page:], first_page + 1):
            if worker.is_cancelled:
                return
            batch.append((path, self.catalog.read(path)))
            if time.monotonic() - posted >= BATCH_SECONDS or n == len(unread):
                self.post_message(InfosRead(batch, len(unread) - n))
                batch, posted = [], time.monotonic()
        self.catalog.save(self.roots)

    async def on_infos_read(self, message: InfosRead) -> None:
        self.listed = True
        self.remembered_count = None  # (the child's count, until the walk's own)
        self.unread = message.left
        self._apply(message.updates)
        if message.now:
            self._refilter()
            if self._watch_after_rows:
                self._watch_after_rows = False
                self.call_after_refresh(self._watch_late)
        # The listing comes as many messages at once, and a queue that holds
        # some never yields: let keys and frames in between them.
        await asyncio.sleep(0)

    def _apply(self, updates: list[tuple[str, SessionInfo | None]]) -> None:
        for path, info in updates:
            current = self.infos.get(path)
            if info is None:
                self.infos.pop(path, None)
            elif current is None or info.mtime_ns >= current.mtime_ns:
                self.infos[path] = info
        self._count_later([info for _, info in updates if info is not None])
        gc.freeze()
        if self.contents_query and not self.searching:  # what was written may hold it: ask the index again
            self.search_id += 1
            self.searching = True
            self.search_contents(self.search_id, self.contents_query)
        self._refilter_soon()

    # -- watching -----------------------------------------------------------------
    @work(exclusive=True, group="watch", exit_on_error=False, description="watch")
    async def watch_files(self, walk_again: bool = False) -> None:
        """Follow the folders' changes; ``walk_again``: walk them once the
        watch is armed (what changed before it was is found then)."""
        folders = [root for root in self.roots if os.path.isdir(root)]
        if not folders:
            return
        from watchfiles import Change, awatch  # after the first frame: anyio is slow to import

        self.call_later(self._armed, walk_again)  # runs once awatch below has set its watches
        async for changes in awatch(
            *folders, debounce=WATCH_DEBOUNCE_MS, step=WATCH_STEP_MS, recursive=True, ignore_permission_denied=True
        ):
            files = sorted({path for _, path in changes if path.endswith(SESSION_SUFFIX)})
            added = sorted({path for change, path in changes if change == Change.added and path not in files})
            gone = tuple(
                os.path.join(path, "") for change, path in changes if change == Change.deleted and path not in files
            )
            updates: list[tuple[str, SessionInfo | None]] = (
                [(path, None) for path in self.infos if path.startswith(gone)] if gone else []
            )
            if files or added:
                updates += await asyncio.to_thread(self._reread, files, added)
            if updates:
                self._apply(updates)

    def _armed(self, walk_again: bool) -> None:
        self.watch_armed = True
        if walk_again:  # (a walk still reading goes on in the new one: what it read is in the catalog)
            self.gather(dict(self.infos))

    def _reread(self, files: list[str], added: list[str]) -> list[tuple[str, SessionInfo | None]]:
        """Fresh infos of changed session files, and of those in folders
        that appeared (moved in, or made faster than the watcher saw their
        files)."""
        found = [info.path for info in self.catalog.listing([p for p in added if os.path.isdir(p)])]
        return [(path, self.catalog.read(path)) for path in files + found]

    def _tick(self) -> None:
        self.table.repaint_if_aged()

    # -- showing ------------------------------------------------------------------
    def _refilter_soon(self) -> None:
        """Refilter for changes found in the background, at most every
        REFILTER_SECONDS: the keys stay quick while thousands of rows fill in."""
        if self._refilter_timer is None:
            self._refilter_timer = self.set_timer(REFILTER_SECONDS, self._refilter)

    def _refilter(self, to_top: bool = False) -> None:
        """Rows for the filter, the contents search and the sort; the
        cursor stays on the same file, or goes to the best match (``to_top``:
        the query changed). Over THREAD_ROWS files the ranking runs in a
        thread (a sort of 100,000 rows would hold the keys for 0.3 s)."""
        if self._refilter_timer is not None:
            self._refilter_timer.stop()
            self._refilter_timer = None
        query = self.query_one("#filter", Input).value
        table = self.table
        keep = table.selected.path if table.selected and not to_top else None
        key: Callable[[SessionInfo], Any] = partial(SORTS[self.sort][1], stuck_after=table.stuck_after)
        if table.archive:  # (grouped by machine and project, sorted within)
            key = by_place(key)
        args = (list(self.infos.values()), query, self.matches, key, table.display_path)
        if len(self.infos) > THREAD_ROWS:
            self.rank_in_thread(args, keep, to_top)
        else:
            self._show_rows(rank_rows(*args), keep, to_top)

    @work(thread=True, exclusive=True, group="rank", exit_on_error=False, description="rank")
    def rank_in_thread(self, args: tuple, keep: str | None, to_top: bool) -> None:
        rows = rank_rows(*args)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_rows, rows, keep, to_top)

    def _show_rows(self, rows: list[SessionInfo], keep: str | None, to_top: bool) -> None:
        table = self.table
        table.show(rows, keep)
        if to_top:
            table.move_to(0)
        self._update_heading()
        self._update_where()
        self.refresh_bindings()

    def _update_heading(self) -> None:
        where = ", ".join(inert_shown(self.app, tilde(root), keep_newlines=False) for root in self.roots)
        shown, total = len(self.table.rows), len(self.infos)
        count = f"{total:,} session files" if shown == total else f"{shown:,} of {total:,} session files"
        if self.remembered_count is not None:  # (the first frame's newest rows: the others come next)
            count = f"{self.remembered_count:,} session files"
        text = f"{count} in {where} · sorted by {SORTS[self.sort][0]} (ctrl+s)"
        if not self.listed:
            text += " · listing the folders…"
        elif self.unread:
            text += f" · reading {total - self.unread:,}/{total:,}"
        self.query_one("#heading", Static).update(Text(text))

    def _update_where(self) -> None:
        info = self.table.selected
        line = Text()
        if self.search_state:
            line.append(self.search_state + "  ", "bold")
        if info is not None:
            line.append(inert_shown(self.app, tilde(info.path), keep_newlines=False))
        else:
            line.append(
                "no session files match"
                if self.infos
                else "no *.jsonl files here"
                if self.listed
                else "listing the folders…"
            )
        self.query_one("#where", Static).update(line)

    @on(PickerTable.Highlighted)
    def _highlighted(self) -> None:
        self._update_where()

    # -- actions ------------------------------------------------------------------
    def action_move(self, delta: int, pages: bool = False) -> None:
        table = self.table
        table.move_to(table.cursor + delta * (table.page() if pages else 1))

    def action_open(self) -> None:
        if self.table.selected is not None:
            self.post_message(
                OpenSession(self.table.selected.path, self._carried(), self._hit(self.table.selected.path))
            )

    @on(PickerTable.Chosen)
    def _chosen(self, message: PickerTable.Chosen) -> None:
        self.post_message(OpenSession(message.info.path, self._carried(), self._hit(message.info.path)))

    def _carried(self) -> str:
        """The first word or phrase of the contents search the rows come
        from: the session view goes on with it (``n``)."""
        if self.matches is None:
            return ""
        from ...model.search_index.query import QueryError, parse

        try:
            terms = parse(self.contents_query).terms()
        except QueryError:
            return ""
        return terms[0] if terms else ""

    def _hit(self, path: str) -> int | None:
        """The line of the newest hit in ``path`` (the view opens there)."""
        return self.matches.get(path) if self.matches is not None else None

    def action_fleet(self) -> None:
        """Every agent written lately under these folders, live (``session-tui live``)."""
        services(self).show_fleet(self.roots)

    def action_sort(self) -> None:
        self.sort = (self.sort + 1) % len(SORTS)
        self._refilter()

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    @on(PickerTable.Typed)
    def _typed(self, message: PickerTable.Typed) -> None:
        self.action_type(message.character)

    def action_type(self, character: str) -> None:
        box = self.query_one("#filter", Input)
        box.focus()
        box.insert_text_at_cursor(character)

    @on(Input.Changed, "#filter")
    def _filter_changed(self) -> None:
        self._refilter(to_top=True)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        self.action_open()

    def _something_to_clear(self) -> bool:
        if self.searching or self.matches is not None:
            return True
        try:
            return bool(self.query_one("#contents", Input).has_class("shown") or self.query_one("#filter", Input).value)
        except NoMatches:  # not composed yet
            return False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Esc clears while there is something to clear; else its next binding runs."""
        if action == "clear":
            return self._something_to_clear()
        return True

    def action_quit(self) -> None:
        self.app.exit()

    def action_nothing_to_clear(self) -> None:
        self.notify("nothing to clear: q quits", timeout=2)

    def action_clear(self) -> None:
        """Esc: close the contents box; stop a contents search (the list
        stays as it was), or drop its result; or the filter."""
        contents = self.query_one("#contents", Input)
        box = self.query_one("#filter", Input)
        if contents.has_class("shown"):
            contents.remove_class("shown")
        elif self.searching:
            self.workers.cancel_group(self, "search")
            self.search_id += 1
            self.searching = False
            shown = inert(self.contents_query, keep_newlines=False)
            self.search_state = f"search for {shown!r} stopped" + (" (Esc lists every file)" if self.matches else "")
            if self.matches is None:
                self.contents_query = ""
            self._refilter()
        elif self.matches is not None:
            self.matches, self.search_state, self.contents_query = None, "", ""
            self._refilter()
        elif box.value:
            box.value = ""
        self.table.focus()
        self.refresh_bindings()

    # -- contents search ----------------------------------------------------------
    def action_search_contents(self) -> None:
        contents = self.query_one("#contents", Input)
        contents.add_class("shown")
        contents.focus()
        self.refresh_bindings()

    @on(Input.Changed, "#contents")
    def _contents_typed(self, event: Input.Changed) -> None:
        """As you type: the index is asked a moment after the last key."""
        if self._search_timer is not None:
            self._search_timer.stop()
        self._search_timer = self.set_timer(TYPING_SECONDS, lambda: self._search(event.value))

    @on(Input.Submitted, "#contents")
    def _contents_submitted(self, event: Input.Submitted) -> None:
        event.input.remove_class("shown")
        self.table.focus()
        self.refresh_bindings()
        if self._search_timer is not None:
            self._search_timer.stop()
        if event.value:
            self._search(event.value)

    def _search(self, text: str) -> None:
        if not text.strip() or text == self.contents_query and not self.searching and self.matches is not None:
            return
        self.search_id += 1
        self.contents_query, self.searching = text, True
        self.search_contents(self.search_id, text)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False, description="search")
    def search_contents(self, search_id: int, text: str) -> None:
        """The files the index finds ``text`` in (the index first brought up
        to date with the files: a grown one is read from where it stopped)."""
        from ...model.search_index.indexer import catch_up
        from ...model.search_index.query import QueryError, parse
        from ...model.search_index.search import matching_files

        worker = get_current_worker()
        try:
            query = parse(text)
        except QueryError as exc:
            self.post_message(SearchProgress(search_id, text, 0, 0, {}, finished=True, error=str(exc)))
            return
        self.post_message(SearchProgress(search_id, text, 0, 1, {}))
        stop = lambda: worker.is_cancelled  # noqa: E731
        from ...model.search_index.database import Unavailable, using_index

        def run(db: sqlite3.Connection) -> dict[str, int]:
            catch_up(db, self.roots, stop)
            return matching_files(db, query, self.roots, stop)

        try:
            found = using_index(run, notice=self._index_notice)  # (a damaged index is built again, once)
        except Cancelled:
            return
        except Unavailable as exc:  # a full disk, a read-only cache dir: one line
            self.post_message(SearchProgress(search_id, text, 0, 0, {}, finished=True, error=str(exc)))
            return
        except (SessionError, OSError) as exc:
            error = f"the search index cannot be used: {exc}"
            self.post_message(SearchProgress(search_id, text, 0, 0, {}, finished=True, error=error))
            return
        self.post_message(SearchProgress(search_id, text, 1, 1, found, finished=True))

    def _index_notice(self, message: str) -> None:
        self.app.call_from_thread(self.notify, message)

    def on_search_progress(self, message: SearchProgress) -> None:
        if message.search_id != self.search_id:
            return
        shown = inert(message.text, keep_newlines=False)
        self.searching = not message.finished
        if message.error:
            self.search_state = inert_shown(self.app, message.error, keep_newlines=False)
            return
        if message.finished:
            verb = "contains" if len(message.found) == 1 else "contain"
            self.search_state = f"{plural(len(message.found), 'file')} {verb} {shown!r} (Esc clears)"
        else:
            self.search_state = f"searching the index for {shown!r}… (Esc stops)"
        if message.finished:  # (while it runs, the list stays as it was)
            self.matches = message.found
            self._refilter()
        else:
            self._refilter_soon()
