"""One key grammar on every screen, checked against what each screen binds:
j/k/g/G/Home/End move in every list and text view, Esc and q go back one
screen (q quits from the first), ctrl+q quits from anywhere, and every
screen has its key footer from its first frame."""

from __future__ import annotations

import pytest
from textual.widgets import Footer

from session_tui.ui.app import SessionApp
from session_tui.ui.screens.branches import BranchesScreen
from session_tui.ui.screens.compare import CompareScreen
from session_tui.ui.screens.files import FilesScreen
from session_tui.ui.screens.help import HelpScreen
from session_tui.ui.screens.session import SessionScreen
from session_tui.ui.screens.text_view import TextViewScreen
from tests.support import SAMPLES

from .pilot_support import session_screen, wait_for

BRANCHED = SAMPLES / "tree" / "branched-summary.jsonl"


def has_footer(screen) -> bool:
    return bool(screen.query(Footer))


async def test_every_screen_moves_with_the_same_keys_and_goes_back_with_esc_and_q(tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(tmp_path / "cache"))
    async with SessionApp([str(SAMPLES / "tree")], watch=False).run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, FilesScreen) and pilot.app.screen.table.rows)
        picker = pilot.app.screen
        assert has_footer(picker)
        table = picker.table
        for key, expected in (("G", len(table.rows) - 1), ("g", 0), ("j", 1), ("k", 0), ("end", len(table.rows) - 1)):
            await pilot.press(key)
            assert table.cursor == expected, key
        assert picker.query_one("#filter").value == ""  # none of them typed
        await pilot.press("home")
        # open the branched sample
        await pilot.press("slash", *"branched", "enter")
        session = await session_screen(pilot)
        assert has_footer(session)
        tree = session.tree_widget
        await pilot.press("g")
        assert tree.cursor == 0
        await pilot.press("j", "j")
        assert tree.cursor == 2
        await pilot.press("G")
        assert tree.cursor == len(session.state.rows) - 1
        # the context: a text view, opened at its end
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, TextViewScreen), what="the context")
        text = pilot.app.screen
        assert has_footer(text)
        area = text.text_area
        await wait_for(pilot, lambda: area.cursor_location[0] == area.document.line_count - 1, what="opened at the end")
        await pilot.press("g")
        assert area.cursor_location == (0, 0)
        await pilot.press("j")
        assert area.cursor_location[0] == 1
        await pilot.press("G")
        assert area.cursor_location[0] == area.document.line_count - 1
        await pilot.press("q")  # back to the session
        assert pilot.app.screen is session
        # the branch list, then compare from it
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, BranchesScreen) and pilot.app.screen.done)
        branches = pilot.app.screen
        assert has_footer(branches)
        await pilot.press("j")
        assert branches.table.cursor == 1
        await pilot.press("g")
        assert branches.table.cursor == 0 and branches.query_one("#filter").value == ""
        await pilot.press("space", "j", "space", "d")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, CompareScreen), what="compare")
        assert has_footer(pilot.app.screen)
        await pilot.press("escape")
        assert pilot.app.screen is branches
        await pilot.press("q")
        assert pilot.app.screen is session
        await pilot.press("question_mark")
        assert isinstance(pilot.app.screen, HelpScreen)
        await pilot.press("q")
        assert pilot.app.screen is session
        await pilot.press("q")  # back to the picker: not out of the app
        assert pilot.app.screen is picker and pilot.app.return_code is None
        await pilot.press("escape")  # the filter typed to open it is cleared: the list has the keys again
        assert picker.query_one("#filter").value == ""
        await pilot.press("q")  # the first screen: quit
        await wait_for(pilot, lambda: pilot.app.return_code == 0, what="the app to quit")


@pytest.mark.parametrize("key", ["q", "ctrl+q"])
async def test_a_session_opened_alone_quits_with_q_and_ctrl_q(key):
    async with SessionApp(str(BRANCHED), watch=False).run_test(size=(80, 24)) as pilot:
        screen = await session_screen(pilot)
        assert isinstance(screen, SessionScreen)
        await pilot.press(key)
        await wait_for(pilot, lambda: pilot.app.return_code == 0, what="the app to quit")


async def test_ctrl_q_quits_from_a_screen_above_others():
    async with SessionApp(str(BRANCHED), watch=False).run_test(size=(80, 24)) as pilot:
        await session_screen(pilot)
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, BranchesScreen))
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: pilot.app.return_code == 0, what="the app to quit")
