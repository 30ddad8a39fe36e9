"""Live tail: real appends to a file in a tmp dir, seen through watchfiles."""

from __future__ import annotations

import os
import shutil

import pytest

from session_tui.model.session.rows import RowFlag
from session_tui.ui.app import SessionApp
from session_tui.ui.screens.session import view as session_module
from tests.builders.tree import chain, fresh, message
from tests.support import SAMPLES

from .pilot_support import cursor_line, hold_index, session_screen, tail_armed, wait_for


def append(path, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


async def started(pilot):
    screen = await session_screen(pilot)
    await tail_armed(pilot, screen)
    return screen


async def test_appended_entries_appear_and_are_followed(tmp_path):
    path = tmp_path / "live.jsonl"
    path.write_bytes(chain(3))
    async with SessionApp(str(path)).run_test(size=(120, 30)) as pilot:
        screen = await started(pilot)
        assert len(screen.state.rows) == 3 and cursor_line(screen) == 4
        append(path, message("m3", "m2", content="fresh entry"))
        await wait_for(pilot, lambda: len(screen.state.rows) == 4, what="the appended row")
        assert cursor_line(screen) == 5  # following: the cursor is on the new leaf
        assert "fresh entry" in screen.tree_widget.render_line(3).text


async def test_not_following_shows_a_new_badge(tmp_path):
    path = tmp_path / "live.jsonl"
    path.write_bytes(chain(3))
    async with SessionApp(str(path)).run_test(size=(120, 30)) as pilot:
        screen = await started(pilot)
        await pilot.press("g")
        assert not screen.state.following
        append(path, message("m3", "m2") + message("m4", "m3"))
        await wait_for(pilot, lambda: len(screen.state.rows) == 5, what="the appended rows")
        assert cursor_line(screen) == 2 and screen.state.new_entries == 2
        await pilot.press("f")
        assert cursor_line(screen) == 6 and screen.state.new_entries == 0


async def test_a_line_written_in_two_halves_is_pending_then_one_row(tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")  # a writer at it: the half line is being written, not torn
    path = tmp_path / "live.jsonl"
    path.write_bytes(fresh(chain(2)))
    line = fresh(message("m2", "m1", content="written in two halves"))
    async with SessionApp(str(path)).run_test(size=(120, 30)) as pilot:
        screen = await started(pilot)
        append(path, line[:30])
        await wait_for(pilot, lambda: len(screen.state.rows) == 3, what="the pending row")
        assert screen.state.rows.at(2).flags & RowFlag.PENDING
        await wait_for(pilot, lambda: "being written" in screen.tree_widget.render_line(2).text, what="being written")
        append(path, line[30:])
        await wait_for(pilot, lambda: screen.state.session.entries == 3, what="the completed entry")
        assert len(screen.state.rows) == 3 and not screen.state.rows.at(2).flags & RowFlag.PENDING
        assert "written in two halves" in screen.tree_widget.render_line(2).text


async def test_replace_truncate_and_delete(tmp_path):
    path = tmp_path / "live.jsonl"
    shutil.copy(SAMPLES / "tree" / "branched-summary.jsonl", path)
    async with SessionApp(str(path)).run_test(size=(120, 30)) as pilot:
        screen = await started(pilot)
        assert screen.state.session.entries == 22
        tmp = tmp_path / "next.jsonl"
        tmp.write_bytes(chain(4, prefix="r"))
        os.replace(tmp, path)  # a new inode
        await wait_for(pilot, lambda: screen.state.session.entries == 4, what="the reload after os.replace")
        assert len(screen.state.rows) == 4
        with open(path, "r+b") as f:  # truncation
            f.truncate(len(chain(2, prefix="r")))
        await wait_for(pilot, lambda: screen.state.session.entries == 2, what="the reload after truncation")
        os.unlink(path)
        await wait_for(pilot, lambda: screen.state.live == "deleted", what="the deleted notice")
        assert len(screen.state.rows) == 2  # the last view stays


@pytest.fixture
def big_from_64k(monkeypatch):
    """Treat files over 64 KiB as big: index in the background, show the last 16 KiB first."""
    monkeypatch.setattr(session_module, "SYNC_INDEX_BYTES", 64 << 10)
    monkeypatch.setattr(session_module, "PREVIEW_BYTES", 16 << 10)
    monkeypatch.setattr(session_module, "PREVIEW_MAX_BYTES", 16 << 10)


async def test_quit_while_indexing_a_big_file(tmp_path, big_from_64k, monkeypatch):
    release = hold_index(monkeypatch)
    path = tmp_path / "big.jsonl"
    path.write_bytes(chain(60_000))
    async with SessionApp(str(path)).run_test(size=(120, 30)) as pilot:
        screen = await session_screen(pilot)
        assert screen.state.session.partial and screen.state.indexing  # the end first
        assert cursor_line(screen) is not None
        release()
        await pilot.press("k", "k")  # keys work while indexing
    # leaving the context manager quits: it returned, so no worker hung


async def test_big_file_shows_the_end_first_then_the_whole(tmp_path, big_from_64k, monkeypatch):
    release = hold_index(monkeypatch)
    path = tmp_path / "big.jsonl"
    path.write_bytes(chain(30_000))
    async with SessionApp(str(path)).run_test(size=(120, 30)) as pilot:
        screen = await session_screen(pilot)
        first_rows = len(screen.state.rows)
        assert first_rows < 30_000
        release()
        await wait_for(pilot, lambda: not screen.state.indexing, timeout=30, what="the full index")
        assert len(screen.state.rows) == 30_000 and cursor_line(screen) == 30_001


async def test_escape_stops_indexing_and_keeps_the_end_on_screen(tmp_path, big_from_64k, monkeypatch):
    from session_tui.model.reading import segment

    monkeypatch.setattr(segment, "BLOCK_LINES", 64)  # many small blocks: a slow index
    path = tmp_path / "big.jsonl"
    path.write_bytes(chain(200_000))
    async with SessionApp(str(path)).run_test(size=(120, 30)) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: "stopped" in screen.state.indexing, timeout=10, what="indexing to stop")
        assert screen.state.session.partial and len(screen.state.rows) > 0


async def test_problems_markers_and_totals_follow_each_append_in_the_same_frame(tmp_path, monkeypatch):
    """A writer that never pauses: a call, then its result, over and over.
    When a row appears, its marker, the problem count and the status line
    already say what the file holds (no wait for the writer to pause): a
    call just written is running, never a problem."""
    from session_tui.ui.widgets.status import StatusLine

    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")

    path = tmp_path / "live.jsonl"
    path.write_bytes(chain(2))
    async with SessionApp(str(path)).run_test(size=(120, 30)) as pilot:
        screen = await started(pilot)
        await wait_for(
            pilot, lambda: screen.state.problems is not None, what="the view's first look"
        )  # (then the writer)
        status = screen.query_one(StatusLine)
        parent = "m1"
        for n in range(6):
            call, result = f"a{n}", f"r{n}"
            calls = [{"id": f"c{n}", "type": "function", "function": {"name": "run", "arguments": "{}"}}]
            append(path, fresh(message(call, parent, role="assistant", content=None, tool_calls=calls)))
            await wait_for(pilot, lambda n=n: len(screen.state.rows) == 3 + 2 * n, what="the call's row")
            assert screen.state.problems == []
            # (the status line follows the state once the tail's handler is done: waited for, like the row)
            await wait_for(pilot, lambda: "running run" in status.text.plain, what="the status says it runs")
            assert "✓ no problems" in status.text.plain
            row = screen.tree_widget.render_line(screen.tree_widget.cursor - screen.tree_widget.scroll_offset.y).text
            assert "▶ run" in row and "⚠" not in row
            append(path, message(result, call, role="tool", content="ok", tool_call_id=f"c{n}"))
            await wait_for(pilot, lambda n=n: len(screen.state.rows) == 4 + 2 * n, what="the result's row")
            await wait_for(pilot, lambda n=n: f"{4 + 2 * n} entries" in status.text.plain, what="the status's count")
            assert screen.state.problems == [] and "✓ no problems" in status.text.plain
            parent = result


def test_an_appended_active_leaf_pointer_moves_the_marks_on_screen(tmp_path):
    """A pointer line is not an entry: no row is added, but the active branch
    changes in the terminal (a real one: what was repainted, not what would be)."""
    import orjson

    from tests.terminal import Terminal

    path = tmp_path / "live.jsonl"
    path.write_bytes(chain(3) + message("b2", "m1", content="the other branch"))

    def mark(screen: str, text: str) -> str | None:
        """The row's mark; None while the row is not on the screen (a frame read half repainted)."""
        line = next((line for line in screen.splitlines() if text in line), None)
        if line is None:
            return None
        return "●" if "●" in line.split(text)[0] else "○"

    with Terminal(str(path)) as term:
        term.wait_for(
            lambda screen: (
                "the other branch" in screen
                and mark(screen, "the other branch") == "●"
                and mark(screen, "message 2") == "○"
            ),
            what="b2 active",
        )
        term.wait_quiet(0.3)  # the watcher armed
        append(path, orjson.dumps({"type": "active_leaf", "activeLeafId": "m2"}) + b"\n")
        term.wait_for(
            lambda screen: mark(screen, "message 2") == "●" and mark(screen, "the other branch") == "○",
            what="the marks to follow the pointer",
        )


def test_following_appends_writes_only_what_changed(tmp_path):
    """In a real terminal (160×45): each append repaints its row, the row the
    cursor left and the status line, not the page; a scroll now and then. The
    bytes written per appended entry stay under 4 KB (a whole page is ~12 KB; quiet, ~1.8 KB; a loaded CI
    run, where an append and its status line may take two frames, 2.3 KB; 3.3 KB at a load of 6 on 2 cores)."""
    from tests.terminal import Terminal

    path = tmp_path / "live.jsonl"
    path.write_bytes(chain(40))
    with Terminal(str(path), width=160, height=45) as term:
        term.wait_text("message 39")
        term.wait_quiet(0.5)
        start = len(term.output)
        for i in range(40, 100):
            append(path, message(f"m{i}", f"m{i - 1}", content=f"message {i} " + "lorem ipsum " * 8))
            term.wait_text(f"message {i} lorem")
        term.wait_quiet(0.5)
        per_entry = (len(term.output) - start) / 60
    assert per_entry < 4096, f"{per_entry:.0f} bytes per appended entry"


def test_a_watched_file_opens_with_its_last_entry_at_the_bottom_of_a_full_page(tmp_path):
    """The room a live tree keeps for appends is below the view, not on it."""
    from tests.terminal import Terminal

    path = tmp_path / "live.jsonl"
    path.write_bytes(chain(60))
    with Terminal(str(path), width=160, height=45) as term:
        term.wait_text("user message 59")  # its row (the detail pane shows "message 59" too)
        lines = term.text().splitlines()
        last = next(n for n, line in enumerate(lines) if "user message 59" in line)
        assert last >= 40 and "message 20" in term.text(), "\n".join(lines)


async def test_an_opencode_session_follows_its_database_wal(tmp_path):
    """opencode writes rows, not lines: a new part through the WAL is a new
    row; a part updated in place (the call's result) is read again."""
    import sqlite3

    import orjson

    from tests.model.formats.test_opencode import CRASH_ID, _copy

    db = _copy("crash", tmp_path)
    async with SessionApp(f"{db}#{CRASH_ID}").run_test(size=(120, 30)) as pilot:
        screen = await started(pilot)
        assert screen.state.session.entries == 17
        await wait_for(pilot, lambda: "without result" in screen.tree_widget.render_line(6).text, what="the problem")
        conn = sqlite3.connect(db, isolation_level=None)  # (another writer: the agent going on)
        part_id, message_id, data = conn.execute(
            "select id, message_id, data from part where session_id = ? order by id desc", (CRASH_ID,)
        ).fetchone()
        done = orjson.loads(data)
        done["state"].update(status="completed", output="C02\nC02 finished\n")
        conn.execute("update part set data = ? where id = ?", (orjson.dumps(done).decode(), part_id))
        text = orjson.dumps({"type": "text", "text": "the long job finished"}).decode()
        conn.execute(
            "insert into part values (?, ?, ?, 1, 1, ?)", ("prt_zzzzzzzzzzzzzz00000000000", message_id, CRASH_ID, text)
        )
        conn.close()
        await wait_for(pilot, lambda: screen.state.session.entries == 18, what="the new part")
        assert screen.state.session.record(16)["data"]["state"]["status"] == "completed"  # (read again, not appended)
        await wait_for(pilot, lambda: "without result" not in screen.tree_widget.render_line(6).text, what="the answer")
        assert "the long job finished" in screen.tree_widget.render_line(7).text
        assert not [n for n in pilot.app._notifications if "reloaded" in n.message]  # (rows change in place)


async def test_a_look_begun_before_an_append_never_shows_what_it_mixed(tmp_path, monkeypatch):
    """The view's look for problems is in a thread when the agent appends a
    call: that look read the session before and after the append, and would
    say the just-written call is a stopped agent's dangling one. It is
    dropped, and the look made once the writes pause says the truth."""
    import threading

    from session_tui.model.session import problems as problems_module
    from session_tui.ui.screens.session.problems import ProblemActions

    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")
    real, held, release = problems_module.find_problems, threading.Event(), threading.Event()

    def first_waits(*args, **kwargs):  # the view's first look holds on until the append is shown
        if not held.is_set():
            held.set()
            release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(problems_module, "find_problems", first_waits)
    shown: list[list | None] = []  # the problems the view held after each look's answer
    apply = ProblemActions.on_problems_ready
    held_after = lambda self, m: (apply(self, m), shown.append(self.state.problems))  # noqa: E731
    monkeypatch.setattr(ProblemActions, "on_problems_ready", held_after)
    path = tmp_path / "live.jsonl"
    path.write_bytes(chain(2))
    async with SessionApp(str(path)).run_test(size=(120, 30)) as pilot:
        screen = await started(pilot)
        await wait_for(pilot, held.is_set, what="the first look under way")
        calls = [{"id": "c0", "type": "function", "function": {"name": "run", "arguments": "{}"}}]
        append(path, fresh(message("a0", "m1", role="assistant", content=None, tool_calls=calls)))
        await wait_for(pilot, lambda: len(screen.state.rows) == 3, what="the call's row")
        release.set()
        await wait_for(
            pilot, lambda: screen.state.problems == [] and "running run" in screen.state.live_state.words(0), 30
        )
        assert all(not problems for problems in shown), shown  # (None: not looked yet; never a false problem)


LIVE = SAMPLES.parent / "tests" / "data" / "live-2026-12-03"


def _looked_at(tmp_path, data: bytes, name: str):
    """What a fresh open of ``data`` shows: (entries, rows, the entry of the
    last row: where a following cursor is, the leaf or the row it is quiet after)."""
    from session_tui.model.session.rows import RowLayout
    from session_tui.model.session.session import open_session

    fresh = tmp_path / "fresh" / name
    fresh.parent.mkdir(exist_ok=True)
    fresh.write_bytes(data)
    with open_session(fresh) as session:
        rows = RowLayout(session)
        return session.entries, len(rows), rows.at(len(rows) - 1).entry


def _row_text(screen, entry: int) -> str:
    row = screen.state.rows.row_of(entry)
    return screen.tree_widget.render_line(row - screen.tree_widget.scroll_offset.y).text


async def _follows(pilot, screen, tmp_path, path, data: bytes) -> None:
    """The view says what a fresh open of the file says: its entries, its rows, the
    entry count in the status line, the cursor on the leaf (it follows)."""
    from session_tui.model.words import plural
    from session_tui.ui.widgets.status import StatusLine

    entries, rows, last = _looked_at(tmp_path, data, path.name)
    state = screen.state
    await wait_for(
        pilot,
        lambda: (state.session.entries, len(state.rows), screen.tree_widget.cursor_entry) == (entries, rows, last),
        what=f"{entries} entries in {rows} rows, the cursor on {last}",
    )
    status = screen.query_one(StatusLine)
    await wait_for(pilot, lambda: plural(entries, "entry", "entries") in status.text.plain, what="the status's count")


async def _tail_in_pieces(tmp_path, source, cuts: list[int], name: str | None = None, check=None) -> None:
    """Write the lines of ``source`` before ``cuts[0]``, open the view, append the
    rest piece by piece (up to each cut, then to the end): after each, the view
    follows (``check(pilot, screen, lines, end)`` says more where given)."""
    lines = source.read_bytes().splitlines(keepends=True)
    path = tmp_path / (name or source.name)
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(b"".join(lines[: cuts[0]]))
    async with SessionApp(str(path)).run_test(size=(140, 40)) as pilot:
        screen = await started(pilot)
        await _follows(pilot, screen, tmp_path, path, path.read_bytes())
        for start, end in zip(cuts, [*cuts[1:], len(lines)], strict=True):
            append(path, b"".join(lines[start:end]))
            await _follows(pilot, screen, tmp_path, path, path.read_bytes())
            if check is not None:
                await check(pilot, screen, lines, end)


async def test_a_gemini_session_follows_its_appends_and_a_response_written_again(tmp_path):
    """Gemini CLI's work file, rewound (tests/data/live-2026-12-03/gemini): cut
    right after a response's first copy, so its second copy (with the calls,
    the last copy wins) comes in a later append and redraws that row, one
    step still; ``$set`` lines and the ``$rewindTo`` come in later pieces."""
    import orjson

    source = LIVE / "gemini" / "session-rewound-415406b9.jsonl"
    lines = source.read_bytes().splitlines(keepends=True)
    records = [orjson.loads(raw) for raw in lines]
    second = next(n for n, r in enumerate(records) if r.get("toolCalls") and n > 20)
    assert records[second - 2]["id"] == records[second]["id"] and "$set" in records[second - 1]
    rewind = next(n for n, r in enumerate(records) if "$rewindTo" in r)

    async def check(pilot, screen, lines, end):
        if end == second + 1:  # the second copy: the same row, now with its calls
            session, entry = screen.state.session, screen.state.session.entries - 1
            await wait_for(  # (its count and rows are as they were: the row says the line it reads now)
                pilot,
                lambda: _row_text(screen, entry).split()[0] == str(second + 1) and "→" in _row_text(screen, entry),
                what="the row redrawn with its call",
            )
            called = session.format.view(session.record(entry)).tool_calls
            assert called[0].name == records[second]["toolCalls"][0]["name"]
        if end == len(lines):  # past the rewind: what it cut is greyed, not gone
            await wait_for(pilot, lambda: bool(screen.tree_widget.off_branch), what="the rewound rows greyed")

    await _tail_in_pieces(tmp_path, source, [second - 1, second, second + 1, rewind, rewind + 1], check=check)


async def test_a_qwen_session_follows_its_appends(tmp_path):
    """Qwen Code's work file (tests/data/live-2026-12-03/qwen): calls, a failed
    one and its telemetry records, appended in pieces."""
    source = LIVE / "qwen" / "f238aa5c-6258-4c19-aac0-37a76ae839f1.jsonl"
    await _tail_in_pieces(tmp_path, source, [20, 21, 60, 95])


async def test_a_copilot_session_follows_its_appends(tmp_path):
    """Copilot CLI's work events (tests/data/live-2026-12-03/copilot): a call's
    start without its completion, then the rest, appended in pieces."""
    import orjson

    from session_tui.ui.widgets.status import StatusLine

    folder = LIVE / "copilot" / "9a473a5e-524e-45f5-9c38-e1e276be8640"
    source = folder / "events.jsonl"
    events = [orjson.loads(raw) for raw in source.read_bytes().splitlines()]
    started_at = [e["type"] for e in events].index("tool.execution_start", 10)
    tool = events[started_at]["data"]["toolName"]
    (tmp_path / folder.name).mkdir()
    shutil.copy(folder / "workspace.yaml", tmp_path / folder.name)

    async def check(pilot, screen, lines, end):
        live = lambda: screen.state.live_state  # noqa: E731
        if end == started_at + 1:  # a call started, its completion not written: awaited (no process: crashed)
            await wait_for(pilot, lambda: live() is not None and live().tools() == tool, what="the call awaited")
            words = live().words()  # (no copilot process runs it here: crashed, or by the time rule)
            await wait_for(pilot, lambda: words in screen.query_one(StatusLine).text.plain, what="the status says it")
        if end == started_at + 2:  # its completion
            await wait_for(pilot, lambda: live() is not None and not live().awaited, what="the call answered")

    await _tail_in_pieces(
        tmp_path, source, [started_at - 3, started_at + 1, started_at + 2, 80], f"{folder.name}/events.jsonl", check
    )
