"""Every way of opening a session lands on its active leaf: the cursor on
it, its row inside the visible region with the rows above it filling the
screen, following on (a file path, Enter in the picker, a sub-agent, a
reload after truncation, a fork opened after an edit, a big file before and
after its full index)."""

from __future__ import annotations

import shutil

from session_tui.ui.app import SessionApp
from session_tui.ui.screens.session import SessionScreen
from session_tui.ui.screens.session import view as session_module
from tests.builders.tree import chain, message
from tests.support import REPO, SAMPLES

from .pilot_support import hold_index, session_screen, tail_armed, wait_for
from .test_picker import picker


def on_leaf(screen: SessionScreen) -> bool:
    """Cursor on the active leaf, its row visible, the rows above it filling the view."""
    tree = screen.tree_widget
    if screen.state.session is None or screen.state.rows is None or tree.size.height == 0:
        return False
    leaf = screen.state.session.active_leaf()
    row = screen.state.rows.row_of(leaf)
    top, height = tree.scroll_offset.y, tree.scrollable_content_region.height
    return (
        tree.cursor_entry == leaf
        and row is not None
        and top <= row < top + height
        and top == max(0, min(row - height + 1, len(screen.state.rows) - height))
        and screen.state.following
    )


async def landed(pilot, screen=None) -> SessionScreen:
    screen = screen or await session_screen(pilot)
    await wait_for(pilot, lambda: on_leaf(screen), what="the cursor on the active leaf, in view")
    return screen


async def test_a_file_path_opens_at_the_leaf(tmp_path):
    path = tmp_path / "long.jsonl"
    path.write_bytes(chain(200))
    async with SessionApp(str(path)).run_test(size=(120, 30)) as pilot:
        screen = await landed(pilot)
        assert screen.tree_widget.scroll_offset.y > 0


async def test_a_real_claude_transcript_opens_at_its_leaf():
    real = sorted((REPO / "tests" / "data" / "real" / "claude").glob("*.jsonl"), key=lambda p: -p.stat().st_size)
    async with SessionApp(str(real[0]), watch=False).run_test(size=(160, 48)) as pilot:
        await landed(pilot)


async def test_enter_in_the_picker_opens_at_the_leaf(tmp_path):
    (tmp_path / "long.jsonl").write_bytes(chain(200))
    async with SessionApp([str(tmp_path)]).run_test(size=(120, 30)) as pilot:
        await picker(pilot)
        await pilot.press("enter")
        await landed(pilot)


async def test_a_sub_agent_opens_at_its_leaf(tmp_path):
    shutil.copytree(SAMPLES / "claude", tmp_path / "claude")
    parent = tmp_path / "claude" / "5b0c7e21-9d3a-4f6e-8a2b-3c4d5e6f7a80.jsonl"
    async with SessionApp(str(parent), watch=False).run_test(size=(120, 30)) as pilot:
        screen = await landed(pilot)
        await wait_for(pilot, lambda: bool(screen.tree_widget.subagents), what="sub-agents found")
        entry = next(iter(screen.tree_widget.subagents))
        screen.jump_to_entry(entry)
        await pilot.press("s")
        await wait_for(
            pilot,
            lambda: pilot.app.screen is not screen and isinstance(pilot.app.screen, SessionScreen),
            what="the sub-agent view",
        )
        await landed(pilot, pilot.app.screen)


async def test_a_reload_after_truncation_lands_on_the_leaf(tmp_path):
    path = tmp_path / "live.jsonl"
    path.write_bytes(chain(200))
    async with SessionApp(str(path)).run_test(size=(120, 30)) as pilot:
        screen = await landed(pilot)
        await pilot.press("g")
        await tail_armed(pilot, screen)
        path.write_bytes(chain(150, prefix="n"))  # shorter: truncated, then rewritten
        await wait_for(
            pilot,
            lambda: screen.state.session.tree.count == 150 and screen.state.session.find("n149") is not None,
            what="the reload",
        )
        await landed(pilot, screen)


async def test_a_fork_opened_after_the_edit_lands_on_its_leaf(tmp_path):
    path = tmp_path / "branched.jsonl"
    path.write_bytes(chain(120) + message("b", "m10", content="an early branch"))
    async with SessionApp(str(path), watch=False).run_test(size=(120, 30)) as pilot:
        screen = await landed(pilot)
        await pilot.press("g", *["j"] * 10)
        await pilot.press("F")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ConfirmScreen", what="the fork plan")
        await pilot.click("#open")
        await wait_for(
            pilot,
            lambda: isinstance(pilot.app.screen, SessionScreen) and pilot.app.screen is not screen,
            what="the fork's view",
        )
        fork = await landed(pilot, pilot.app.screen)
        assert fork.path != screen.path


async def test_a_big_file_lands_on_the_leaf_before_and_after_its_full_index(tmp_path, monkeypatch):
    monkeypatch.setattr(session_module, "SYNC_INDEX_BYTES", 64 << 10)
    monkeypatch.setattr(session_module, "PREVIEW_BYTES", 16 << 10)
    monkeypatch.setattr(session_module, "PREVIEW_MAX_BYTES", 16 << 10)
    release = hold_index(monkeypatch)
    path = tmp_path / "big.jsonl"
    path.write_bytes(chain(30_000))
    async with SessionApp(str(path)).run_test(size=(120, 30)) as pilot:
        screen = await session_screen(pilot)
        assert screen.state.session.partial
        await landed(pilot, screen)
        record = screen.state.session.record(screen.tree_widget.cursor_entry)
        on_screen = screen.state.rows.row_of(screen.tree_widget.cursor_entry) - screen.tree_widget.scroll_offset.y
        release()
        await wait_for(pilot, lambda: not screen.state.indexing, timeout=60, what="the full index")
        await landed(pilot, screen)
        assert screen.state.session.record(screen.tree_widget.cursor_entry) == record  # the same entry
        assert (
            screen.state.rows.row_of(screen.tree_widget.cursor_entry) - screen.tree_widget.scroll_offset.y == on_screen
        )


async def test_a_preview_of_few_big_entries_reads_further_back_for_a_page_of_rows(tmp_path, monkeypatch):
    """The preview of a big file reads its last PREVIEW_BYTES; where those
    hold fewer than PREVIEW_ENTRIES entries (huge tool results) it reads the
    last PREVIEW_MAX_BYTES instead, so the first frame has a page of rows."""
    monkeypatch.setattr(session_module, "SYNC_INDEX_BYTES", 64 << 10)
    monkeypatch.setattr(session_module, "PREVIEW_BYTES", 16 << 10)
    monkeypatch.setattr(session_module, "PREVIEW_MAX_BYTES", 96 << 10)
    monkeypatch.setattr(SessionScreen, "index_file", lambda self: None)  # the preview stays, to be looked at
    path = tmp_path / "big.jsonl"
    lines = [message(f"m{i}", f"m{i - 1}" if i else None, content="x" * 1000 + f" {i}") for i in range(300)]
    path.write_bytes(chain(0) + b"".join(lines))
    async with SessionApp(str(path)).run_test(size=(120, 30)) as pilot:
        screen = await session_screen(pilot)
        assert screen.state.session.partial
        assert 16 < screen.state.session.entries <= 96  # 16 KiB held ~15 of these entries; 96 KiB holds ~90
        assert screen.state.session.record(screen.tree_widget.cursor_entry)["id"] == "m299"
