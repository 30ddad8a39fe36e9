"""Edits from the TUI: a modal with the plan, Confirm / Cancel, undo."""

from __future__ import annotations

import json
import os
import shutil

from session_tui.ui.app import SessionApp
from session_tui.ui.screens.confirm import ConfirmScreen
from tests.store.test_store import old
from tests.support import SAMPLES

from .pilot_support import cursor_line, session_screen, wait_for


def copy(tmp_path, rel):
    dest = tmp_path / os.path.basename(rel)
    shutil.copy(SAMPLES / rel, dest)
    os.chmod(dest, 0o644)
    old(dest)
    return dest


async def test_trim_closes_the_dangling_call_and_undo_puts_it_back(tmp_path):
    path = copy(tmp_path, "tree/crash-torn.jsonl")
    original = path.read_bytes()
    async with SessionApp(str(path)).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("t")
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert "call_j9Y1rP3nO8" in pilot.app.screen.body and "torn" in pilot.app.screen.body
        await pilot.press("escape")  # cancel: nothing changes
        assert path.read_bytes() == original
        await pilot.press("t")
        await pilot.click("#close")
        await wait_for(pilot, lambda: screen.session.entries == 7, what="the closing result")
        assert screen.session.lines.torn == b"" and screen.session.tool_issues() == ([], [])
        assert cursor_line(screen) == 8  # following the new leaf
        await pilot.press("u")
        await pilot.click("#confirm")
        await wait_for(pilot, lambda: path.read_bytes() == original, what="the undo")
        await wait_for(pilot, lambda: screen.session.entries == 6, what="the reload")


async def test_make_leaf_on_a_tree_and_refused_on_chat(tmp_path):
    path = copy(tmp_path, "tree/branched-summary.jsonl")
    async with SessionApp(str(path)).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("g", "j")
        await pilot.press("a")
        await pilot.click("#confirm")
        await wait_for(pilot, lambda: screen.session.active_leaf() == 1, what="the moved leaf")
        last = json.loads(path.read_bytes().splitlines()[-1])
        assert last["type"] == "active_leaf" and last["activeLeafId"].startswith("e1dbe1eb")
    chat = copy(tmp_path, "chat/session-fix-rounding.jsonl")
    before = chat.read_bytes()
    async with SessionApp(str(chat)).run_test(size=(120, 40)) as pilot:
        await session_screen(pilot)
        await pilot.press("g", "j", "a")
        assert isinstance(pilot.app.screen, ConfirmScreen) and "Fork" in pilot.app.screen.title_text
        await pilot.click("#confirm")
        fork = tmp_path / "session-fix-rounding.fork-1.jsonl"
        await wait_for(pilot, fork.exists, what="the fork offered instead")
        assert chat.read_bytes() == before and fork.read_bytes().count(b"\n") == 2


async def test_fork_from_the_tui(tmp_path):
    path = copy(tmp_path, "tree/branched-summary.jsonl")
    async with SessionApp(str(path)).run_test(size=(120, 40)) as pilot:
        await session_screen(pilot)
        await pilot.press("F")
        await pilot.click("#confirm")
        await wait_for(pilot, lambda: (tmp_path / "branched-summary.fork-1.jsonl").exists(), what="the fork")


async def test_a_live_writer_needs_a_second_confirmation(tmp_path):
    path = copy(tmp_path, "tree/crash-dangling.jsonl")
    async with SessionApp(str(path)).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        os.utime(path)  # "written just now"
        await pilot.press("t")
        await pilot.click("#close")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen)
                       and "live agent" in pilot.app.screen.title_text, what="the force question")
        await pilot.click("#force")
        await wait_for(pilot, lambda: screen.session.tool_issues() == ([], []), what="the forced close")
