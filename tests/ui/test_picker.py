"""The session picker driven as a person would: real files in a tmp dir, real Pilot."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime

import orjson
import pytest

from session_tui.ui.app import SessionApp
from session_tui.ui.screens.files import FilesScreen
from tests.builders.tree import message
from tests.support import SAMPLES

from .pilot_support import session_screen, wait_for

HOUR_AGO = time.time() - 3600
ROUNDING_WRITTEN = 1773483000  # 2026-03-14T10:10:00Z
FILES = {  # name in the tmp dir: sample
    "crash.jsonl": "tree/crash-torn.jsonl",
    "branched.jsonl": "tree/branched-summary.jsonl",
    "rounding.jsonl": "chat/session-fix-rounding.jsonl",
    "pi.jsonl": "pi/2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl",
}


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def folder(tmp_path):
    """Four sessions, each last written a different number of minutes ago
    (crash.jsonl the newest)."""
    root = tmp_path / "sessions"
    root.mkdir()
    for minutes, (name, sample) in enumerate(FILES.items()):
        shutil.copy(SAMPLES / sample, root / name)
        stamp = HOUR_AGO - 60 * minutes
        os.utime(root / name, (stamp, stamp))
    # last activity is the last entry's time (2026-03-15 for crash, then 03-14 11:08 and 09:17); the chat
    # sample records none: its file's time places it between branched and pi
    os.utime(root / "rounding.jsonl", (ROUNDING_WRITTEN, ROUNDING_WRITTEN))
    return root


async def picker(pilot) -> FilesScreen:
    await wait_for(
        pilot,
        lambda: (
            isinstance(pilot.app.screen, FilesScreen)
            and pilot.app.screen.table.rows
            and all(info.known for info in pilot.app.screen.table.rows)
        ),
        what="the picker with every row read",
    )
    return pilot.app.screen


def names(screen: FilesScreen) -> list[str]:
    return [os.path.basename(info.path) for info in screen.table.rows]


def screen_text(screen: FilesScreen) -> list[str]:
    table = screen.table
    return [table.render_line(y).text for y in range(1, len(table.rows) + 1)]


def numbered_sessions(tmp_path, count: int):
    """``count`` chat sessions ``s000``… in one folder, each titled ``Session N: …``, the last the newest."""
    root = tmp_path / "many"
    root.mkdir()
    sample = (SAMPLES / "chat" / "session-fix-rounding.jsonl").read_bytes()
    for n in range(count):
        path = root / f"s{n:03d}.jsonl"
        path.write_bytes(sample.replace(b"The test suite", f"Session {n}: the test suite".encode(), 1))
        os.utime(path, (HOUR_AGO + n, HOUR_AGO + n))
    return root


def first_frames(monkeypatch) -> list[tuple[list[str], str]]:
    """The rows and heading of the picker's first frame (as the whole cache is then read), once it is drawn."""
    seen: list[tuple[list[str], str]] = []
    remember_all = FilesScreen._remember_all

    def seen_first(screen: FilesScreen) -> None:
        seen.append((names(screen), str(screen.query_one("#heading").render())))
        remember_all(screen)

    monkeypatch.setattr(FilesScreen, "_remember_all", seen_first)
    return seen


async def test_rows_show_title_format_entries_problems(folder):
    async with SessionApp([str(folder)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        assert names(screen) == list(FILES)  # newest first
        crash = screen_text(screen)[0]
        for part in (
            "The CSV exporter integration tests",
            "tree",
            " 6 ",
            " d ago",  # the last entry's time (2026-03-15), not the copy's mtime
            "2.4 KB",
            "⚠ call without result · torn",
        ):
            assert part in crash, (part, crash)
        assert "Fix half-up rounding in invoice totals" in screen_text(screen)[3]
        assert "● live" not in "".join(screen_text(screen))


async def test_typing_filters_and_escape_clears(folder):
    async with SessionApp([str(folder)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        await pilot.press(*"half-up")  # typed on the list: the filter takes it
        assert screen.query_one("#filter").value == "half-up"
        assert names(screen) == ["pi.jsonl"]
        await pilot.press("escape")
        assert len(names(screen)) == 4
        await pilot.press("slash", *"branched")  # a word of the path
        assert names(screen) == ["branched.jsonl"]
        await pilot.press("escape", "slash", *"fxhlfp")  # letters of a title, in order
        assert names(screen) == ["pi.jsonl"]


def footer_keys(screen: FilesScreen) -> dict[str, str]:
    """Key: description of what the footer shows."""
    return {
        key: active.binding.description
        for key, active in screen.active_bindings.items()
        if active.binding.show and active.enabled
    }


async def test_q_quits_the_first_screen_a_stray_escape_never_does_and_other_letters_filter(folder):
    async with SessionApp([str(folder)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        assert footer_keys(screen).get("q") == "Quit"
        await pilot.press(*"half")  # typed on the list: a filter (q, j, k, g, G are keys; / types them)
        assert screen.query_one("#filter").value == "half" and pilot.app.return_code is None
        assert footer_keys(screen).get("escape") == "Clear"
        await pilot.press("q")  # in the filter: a letter
        assert screen.query_one("#filter").value == "halfq"
        await pilot.press("escape")  # clears the filter
        assert screen.query_one("#filter").value == "" and len(names(screen)) == 4
        assert pilot.app.return_code is None and "escape" not in footer_keys(screen)
        await pilot.press("escape", "escape", "escape")  # nothing left to clear: a stray Esc does not end the app
        assert pilot.app.return_code is None and pilot.app.screen is screen
        await pilot.press("q")  # on the list, in the first screen: quit
        await wait_for(pilot, lambda: pilot.app.return_code == 0, what="the app to quit")
    async with SessionApp([str(folder)], watch=False).run_test(size=(140, 30)) as pilot:
        await picker(pilot)
        await pilot.press("slash", "q")  # / then q: the filter's letter
        assert pilot.app.screen.query_one("#filter").value == "q"
        await pilot.press("ctrl+q")  # quits from anywhere
        assert pilot.app.return_code == 0


async def test_enter_after_typing_opens_the_best_match(folder):
    async with SessionApp([str(folder)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        await pilot.press("down", "down")  # on rounding.jsonl, which the query matches by its path only
        await pilot.press(*"rounding", "enter")
        session = await session_screen(pilot)
        assert os.path.basename(session.path) == "pi.jsonl"  # its title says "rounding": the best match
        assert screen.table.cursor == 0


async def test_sort_by_size_then_problems(folder):
    async with SessionApp([str(folder)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        await pilot.press("ctrl+s")
        sizes = [info.size for info in screen.table.rows]
        assert sizes == sorted(sizes, reverse=True) and names(screen)[0] == "pi.jsonl"
        await pilot.press("ctrl+s")
        assert names(screen)[0] == "crash.jsonl"  # dangling and torn
        assert "sorted by problems" in str(screen.query_one("#heading").render())


async def test_open_a_session_and_come_back_with_escape(folder):
    async with SessionApp([str(folder)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        await pilot.press("down", "enter")
        session = await session_screen(pilot)
        assert os.path.basename(session.path) == "branched.jsonl"
        await pilot.press("escape")
        await wait_for(pilot, lambda: pilot.app.screen is screen, what="the picker again")
        assert screen.table.selected.path.endswith("branched.jsonl")


async def test_full_text_search_lists_the_files_that_contain_the_text(folder):
    async with SessionApp([str(folder)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        await pilot.press("ctrl+f", *"ROUND_HALF_UP", "enter")
        await wait_for(pilot, lambda: not screen.searching, what="the search to end")
        assert sorted(names(screen)) == ["branched.jsonl", "pi.jsonl", "rounding.jsonl"]
        assert "3 files contain 'ROUND_HALF_UP'" in str(screen.query_one("#where").render())
        await pilot.press("escape")
        assert len(names(screen)) == 4


async def test_escape_stops_a_search_and_the_list_stays_as_it_was(folder, monkeypatch):
    from session_tui.model.search_index import search as index_search

    def slow(db, query, roots, should_stop=None):
        """A search that takes until it is stopped."""
        deadline = time.monotonic() + 10
        while not should_stop() and time.monotonic() < deadline:
            time.sleep(0.01)
        stopped.set()
        return set()

    stopped = threading.Event()
    monkeypatch.setattr(index_search, "matching_files", slow)
    async with SessionApp([str(folder)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        await pilot.press("ctrl+f", *"needle", "enter")
        await wait_for(pilot, lambda: "searching the index for 'needle'" in where(screen), what="the search running")
        assert screen.searching and len(names(screen)) == 4  # the list stays while it runs
        await pilot.press("escape")
        assert not screen.searching and len(names(screen)) == 4
        assert "search for 'needle' stopped" in where(screen)
        await wait_for(
            pilot,
            lambda: stopped.is_set() and not any(w.group == "search" and w.is_running for w in screen.workers),
            timeout=30,  # (under load the worker's end reaches the event loop late)
            what="the search thread ended",
        )
        await pilot.pause()  # a late message of the stopped search changes nothing
        assert len(names(screen)) == 4 and not screen.searching and pilot.app.return_code is None


def where(screen) -> str:
    return str(screen.query_one("#where").render())


HOLD_AND_WRITE = (
    "import sys, time; f = open(sys.argv[1], 'a'); f.write(sys.argv[2]); f.flush(); "
    "print('written', flush=True); time.sleep(60)"
)


async def test_an_append_shows_the_live_badge_and_new_and_deleted_files_follow(folder):
    async with SessionApp([str(folder)], watch=True).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        await wait_for(pilot, lambda: screen.watch_armed, what="the folders watched")
        line = orjson.dumps(
            {"type": "message", "id": "feedf00d", "parentId": None, "timestamp": now()}
            | {"message": {"role": "user", "content": "one more"}}
        ).decode()
        agent = subprocess.Popen(  # its agent writes it, and holds it open while it runs (its writer lives)
            [sys.executable, "-c", HOLD_AND_WRITE, str(folder / "pi.jsonl"), line + "\n"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert agent.stdout is not None and agent.stdout.readline().strip() == "written"
            await wait_for(pilot, lambda: names(screen)[0] == "pi.jsonl", what="the appended file on top")
            await wait_for(pilot, lambda: "● live" in screen_text(screen)[0], what="the live badge")
            assert "● live" not in "".join(screen_text(screen)[1:])
        finally:
            agent.kill()
            agent.wait()

        (folder / "new").mkdir()
        fresh = message("a", None, content="A brand new session").replace(b"2026-03-14T11:05:00.000Z", now().encode())
        (folder / "new" / "fresh.jsonl").write_bytes(fresh)
        await wait_for(pilot, lambda: "fresh.jsonl" in names(screen), what="the new file")
        assert "A brand new session" in screen_text(screen)[0]
        os.unlink(folder / "crash.jsonl")
        await wait_for(pilot, lambda: "crash.jsonl" not in names(screen), what="the deleted file to go")

        outside = folder.parent / "elsewhere"
        (outside / "project").mkdir(parents=True)
        shutil.copy(SAMPLES / "tree" / "crash-dangling.jsonl", outside / "project" / "moved.jsonl")
        os.rename(outside / "project", folder / "project")  # a folder moved in: one event for all it holds
        await wait_for(pilot, lambda: "moved.jsonl" in names(screen), what="the moved-in folder's file")
        os.rename(folder / "project", outside / "back")  # and out again
        await wait_for(pilot, lambda: "moved.jsonl" not in names(screen), what="the moved-out folder's file to go")


async def test_remembered_rows_come_first_then_the_folder_as_it_is(folder):
    """A second start shows the cache's rows at once, then corrects them:
    a file deleted, one changed and one added since the cache was saved."""
    async with SessionApp([str(folder)], watch=False).run_test(size=(140, 30)) as pilot:
        await picker(pilot)
    os.unlink(folder / "crash.jsonl")
    (folder / "fresh.jsonl").write_bytes(message("a", None, content="A brand new session"))
    with open(folder / "pi.jsonl", "ab") as f:
        f.write(
            b'{"type":"session_info","id":"feedf00d","parentId":"9b2cfffd","timestamp":"2026-03-14T11:00:00Z",'
            b'"name":"Renamed while away"}\n'
        )
    app = SessionApp([str(folder)], watch=False)
    async with app.run_test(size=(140, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FilesScreen) and app.screen.table.rows, what="rows")
        screen = app.screen
        await wait_for(
            pilot,
            lambda: (
                sorted(names(screen)) == ["branched.jsonl", "fresh.jsonl", "pi.jsonl", "rounding.jsonl"]
                and all(info.known for info in screen.table.rows)
            ),
            what="the folder as it is now",
        )
        titles = {os.path.basename(info.path): info.title for info in screen.table.rows}
        assert titles["pi.jsonl"] == "Renamed while away" and titles["fresh.jsonl"] == "A brand new session"


async def test_with_an_empty_cache_the_first_rows_shown_already_have_their_titles(tmp_path):
    """A new user's first start: the newest files are read before the listing is
    shown, so the first rows on screen carry their titles, not bare paths."""
    root = numbered_sessions(tmp_path, 300)  # s299 the newest
    async with SessionApp([str(root)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = pilot.app.screen
        await wait_for(
            pilot,
            lambda: isinstance(pilot.app.screen, FilesScreen) and bool(pilot.app.screen.table.rows),
            what="the first rows",
        )
        screen = pilot.app.screen
        top = screen.table.rows[:20]
        assert [os.path.basename(info.path) for info in top[:2]] == ["s299.jsonl", "s298.jsonl"]
        assert all(info.known for info in top), "the first rows on screen came without their titles"
        assert "Session 299" in screen.table.render_line(1).text


async def test_sorting_keeps_the_cursor_on_its_file(folder):
    async with SessionApp([str(folder)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        await pilot.press("j", "j")
        chosen = screen.table.selected.path
        for _ in range(3):  # size, problems, back to last activity
            await pilot.press("ctrl+s")
            assert screen.table.selected.path == chosen
        await pilot.press("enter")
        session = await session_screen(pilot)
        assert session.path == chosen


async def test_rows_of_the_same_title_show_their_file_and_a_fork_is_marked(tmp_path):
    root = tmp_path / "sessions"
    root.mkdir()
    sample = SAMPLES / "tree" / "branched-summary.jsonl"
    shutil.copy(sample, root / "first-copy.jsonl")
    shutil.copy(sample, root / "second-copy.jsonl")
    forked = (SAMPLES / "tree" / "crash-torn.jsonl").read_bytes().split(b"\n", 1)
    header = orjson.loads(forked[0])
    header["parentSession"] = {"path": "first-copy.jsonl", "id": "x", "entryId": "y"}
    (root / "forked.jsonl").write_bytes(orjson.dumps(header) + b"\n" + forked[1])
    async with SessionApp([str(root)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        rows = dict(zip(names(screen), screen_text(screen), strict=True))
        assert "first-copy" in rows["first-copy.jsonl"] and "second-copy" in rows["second-copy.jsonl"]
        assert "⋔" in rows["forked.jsonl"] and "forked" not in rows["forked.jsonl"].split("⋔")[0]


async def test_an_estimate_is_corrected_once_the_file_is_opened(tmp_path, monkeypatch):
    from session_tui.model.catalog import info_reader

    root = tmp_path / "sessions"
    root.mkdir()
    lines = [message(f"m{i}", f"m{i - 1}" if i else None, content="x" * (40 + 37 * (i % 9))) for i in range(3000)]
    (root / "big.jsonl").write_bytes(b"".join(lines))
    monkeypatch.setattr(info_reader, "SAMPLE_BYTES", 4096)  # sampled: an estimate
    from session_tui.ui.screens.files import FilesScreen

    monkeypatch.setattr(FilesScreen, "_count_later", lambda self, infos: None)  # (no count in the background here)
    async with SessionApp([str(root)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        info = screen.table.rows[0]
        assert not info.exact and "≈" in screen_text(screen)[0]
        await pilot.press("enter")
        await session_screen(pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: pilot.app.screen is screen, what="the picker")
        assert info.exact and info.entries == 3000
        assert "3,000" in screen_text(screen)[0] and "≈" not in screen_text(screen)[0]


async def test_a_search_hit_opens_its_session_at_the_newest_hit_and_n_goes_on(folder):
    async with SessionApp([str(folder)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        await pilot.press("ctrl+f", *'"ROUND_HALF_UP" role:assistant', "enter")
        await wait_for(pilot, lambda: not screen.searching and screen.matches, what="the search to end")
        path = screen.table.selected.path
        line = screen.matches[path]
        await pilot.press("enter")
        session = await session_screen(pilot)
        assert session.state.query_text == "ROUND_HALF_UP"  # the phrase, not the filter
        await wait_for(
            pilot,
            lambda: (
                session.state.session is not None
                and session.tree_widget.cursor_entry >= 0
                and session.state.session.tree.entry_line[session.tree_widget.cursor_entry] == line
            ),
            what="the cursor on the hit",
        )


async def test_the_contents_search_word_goes_on_in_the_session(folder):
    async with SessionApp([str(folder)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        await pilot.press("ctrl+f", *"ROUND_HALF_UP", "enter")
        await wait_for(pilot, lambda: not screen.searching, what="the search to end")
        await pilot.press("enter")
        session = await session_screen(pilot)
        assert session.state.query_text == "ROUND_HALF_UP"
        await wait_for(
            pilot,
            lambda: (
                "ROUND_HALF_UP"
                in session.state.session.raw_line(
                    session.state.session.tree.entry_line[session.tree_widget.cursor_entry]
                ).decode()
            ),
            what="the first match",
        )


async def test_the_contents_search_asks_the_index_as_you_type_and_an_append_is_found_live(folder):
    async with SessionApp([str(folder)], watch=True).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        await wait_for(pilot, lambda: screen.watch_armed, what="the folders watched")
        await pilot.press("ctrl+f", *"kumquat-42")  # no Enter: as you type
        await wait_for(pilot, lambda: screen.matches == {}, timeout=10, what="no file holds it yet")
        await pilot.press("enter")
        with open(folder / "pi.jsonl", "ab") as f:
            f.write(
                b'{"type":"message","id":"feedf00e","parentId":null,"timestamp":"%s",'
                b'"message":{"role":"user","content":"what about kumquat-42?"}}\n' % now().encode()
            )
        written = time.monotonic()
        await wait_for(pilot, lambda: names(screen) == ["pi.jsonl"], timeout=5, what="the appended file found")
        assert time.monotonic() - written < 2.0
        assert "1 file contains 'kumquat-42'" in where(screen)


def test_a_row_is_named_by_what_tells_sessions_apart():
    """A Copilot CLI session's file is always events.jsonl: its folder names
    it; a session of an opencode database is named by its id."""
    from session_tui.ui.widgets.picker_table import short_name

    assert short_name("/s/9b18baab-7802-4ab5-91bd-d84a96dbd7d5/events.jsonl") == "9b18baab"
    assert short_name("/d/opencode.db#ses_dc486f233ffeZIh7BHTlbpc31f") == "ses_dc486f233ffeZIh…"
    assert short_name("/c/3a2dec82-3264-4fa4-bb60-d92b18d2e064.jsonl") == "3a2dec82"


@pytest.mark.terminal
def test_a_filter_typed_fast_keeps_every_letter_even_the_ones_that_move(tmp_path):
    """Typed (or pasted) faster than the filter box takes the focus, the
    whole word reaches the list first: its g, j, k and spaces are letters of
    the filter, not moves. One write of the keys makes that race every time."""
    from tests.terminal import Terminal

    shutil.copytree(SAMPLES, tmp_path / "s")
    with Terminal(str(tmp_path / "s"), "--no-watch") as term:
        term.wait_text("session files in", timeout=60)
        term.wait_quiet(0.3)
        term.send("invoice rounding jk")
        term.wait_for(lambda text: text.splitlines()[1].strip() == "invoice rounding jk", 30, "the whole filter")
        term.send("\x7f\x7f\x7f")  # backspace: the list answers the filter again
        term.wait_text("Fix invoice rounding test failures", timeout=30)


async def test_a_file_written_before_the_late_watch_is_armed_is_listed(tmp_path, monkeypatch):
    """With nothing cached, the folders' watch starts after the walk's first
    rows (its start cost the cold picker ~145 ms before them): what is
    written between the walk and the watch is found by a walk made once the
    watch is armed."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    shutil.copy(SAMPLES / "tree" / "crash-torn.jsonl", folder / "old.jsonl")
    late = FilesScreen._watch_late

    def write_then_watch(self):
        assert self.listed and not self.watch_armed  # (late: after the walk's first rows)
        (folder / "between.jsonl").write_bytes((SAMPLES / "tree" / "branched-summary.jsonl").read_bytes())
        late(self)

    monkeypatch.setattr(FilesScreen, "_watch_late", write_then_watch)
    async with SessionApp([str(folder)], watch=True).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        await wait_for(pilot, lambda: screen.watch_armed, what="the folders watched")
        await wait_for(pilot, lambda: "between.jsonl" in names(screen), what="the file written before the watch")


async def test_a_remembered_folder_shows_its_newest_rows_in_the_first_frame_then_all(tmp_path, monkeypatch):
    """The first frame shows the cache's head (the newest rows, the count of
    all), and the whole cache the next."""
    from session_tui.model.catalog.head import HEAD_ROWS
    from tests.model.catalog.test_head import FILES, remembered_folder

    root = remembered_folder(tmp_path, str(tmp_path / "cache"))
    first = first_frames(monkeypatch)
    async with SessionApp([root], watch=False).run_test(size=(120, 40)) as pilot:
        screen = await picker(pilot)
        await wait_for(pilot, lambda: len(screen.table.rows) == FILES, what="every row")
        [(shown, heading)] = first
        assert len(shown) == HEAD_ROWS and shown == names(screen)[:HEAD_ROWS]
        assert shown[0] == f"run-{FILES - 1:04d}.jsonl"
        assert f"{FILES:,} session files" in heading


@pytest.mark.parametrize("wait", [60.0, 0.0], ids=["in-the-first-frame", "after-it"])
async def test_with_an_empty_cache_a_childs_walk_gives_the_first_rows_and_none_is_read_twice(
    tmp_path, monkeypatch, wait
):
    """``session-tui DIR`` with nothing cached forks a child that walks the
    folder and reads the newest heads while the app starts: its rows are
    the first shown (when done in time; else just after), with the count of
    every file, and the app's own walk reads only the files the child did not."""
    from session_tui.model import forked
    from session_tui.model.catalog.cache import Catalog
    from session_tui.model.catalog.first_rows import start
    from session_tui.ui.screens import files

    monkeypatch.setattr(forked, "alone", lambda: True)  # (as the command line forks: the suite has threads)
    monkeypatch.setattr(files, "FIRST_ROWS_WAIT", wait)

    root = numbered_sessions(tmp_path, 90)  # s089 the newest
    first_rows = start([str(root)], page=30)
    assert first_rows is not None and first_rows.walking
    read_here: list[str] = []
    read = Catalog.read

    def counted(catalog, path):
        read_here.append(os.path.basename(path))
        return read(catalog, path)

    monkeypatch.setattr(Catalog, "read", counted)  # (in this process: the child was forked before)
    shown = first_frames(monkeypatch)
    async with SessionApp([str(root)], watch=False, first_rows=first_rows).run_test(size=(140, 30)) as pilot:
        screen = await picker(pilot)
        await wait_for(pilot, lambda: len(screen.table.rows) == 90 and screen.unread == 0, what="every row read")
        [(first, heading)] = shown
        if wait:
            assert first[:3] == ["s089.jsonl", "s088.jsonl", "s087.jsonl"] and "90 session files" in heading
        assert "Session 89" in screen.table.render_line(1).text
        assert sorted(read_here) == [f"s{n:03d}.jsonl" for n in range(60)]  # the 30 newest: read by the child only
