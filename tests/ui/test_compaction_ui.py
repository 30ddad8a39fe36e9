"""Enter on a compaction node opens its inspector; Enter on a dropped item
jumps to the entry that used it."""

from __future__ import annotations

import shutil

from textual.widgets import OptionList, Static

from session_tui.model.usage.compactions import compactions
from session_tui.ui.app import SessionApp
from session_tui.ui.screens.compaction import CompactionScreen
from tests.support import REPO

from .pilot_support import cursor_line, session_screen, wait_for

REAL = REPO / "tests" / "data" / "real" / "claude" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"


async def at_line(pilot, line: int):
    """The session view, indexed, its cursor on ``line``."""
    screen = await session_screen(pilot)
    await wait_for(pilot, lambda: not screen.state.indexing, what="the index")
    screen.jump_to_entry(screen.entry_for_line(line))
    await wait_for(pilot, lambda: cursor_line(screen) == line, what=f"line {line}")
    return screen


async def test_enter_on_a_compaction_lists_what_its_summary_dropped_and_jumps_to_it(tmp_path):
    path = tmp_path / REAL.name
    shutil.copy(REAL, path)
    async with SessionApp(str(path), watch=False).run_test(size=(140, 40)) as pilot:
        screen = await at_line(pilot, 714)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, CompactionScreen), what="the inspector")
        inspector = pilot.app.screen
        heading = str(inspector.query_one(Static).render())
        (expected,) = compactions(screen.state.session)
        dropped = len(expected.dropped_paths) + len(expected.dropped_commands)
        assert dropped > 0 and f"dropped {dropped}" in heading
        assert "167.7k → 42.6k" in heading and f"({len(expected.span)} entries)" in heading
        assert inspector.query_one(OptionList).option_count == dropped
        first = inspector.lines[0]
        await pilot.press("enter")
        await wait_for(pilot, lambda: pilot.app.screen is screen, what="back")
        await wait_for(pilot, lambda: cursor_line(screen) == first, what=f"line {first}")


async def test_enter_on_a_plain_message_does_not_open_it(tmp_path):
    path = tmp_path / REAL.name
    shutil.copy(REAL, path)
    async with SessionApp(str(path), watch=False).run_test(size=(140, 40)) as pilot:
        screen = await at_line(pilot, 713)
        await pilot.press("enter")
        await pilot.pause()  # (the key and the message it posts handled)
        assert pilot.app.screen is screen
        assert not [w for w in screen.workers if w.group == "compaction"]  # (no inspector on its way)
