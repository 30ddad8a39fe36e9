"""A config file, read as the command line reads it, takes effect in the
app: a rebound key runs its action (the old one no longer does), the help
shows the key in force, and its stuck_after decides a quiet call's state."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from session_tui.model.settings import load
from session_tui.ui.app import SessionApp
from session_tui.ui.screens.help import HelpScreen, screen_rows
from session_tui.ui.widgets.status import StatusLine
from tests.builders.tree import call, chain

from .pilot_support import session_screen, wait_for


def _quiet_call(path, seconds_ago: float) -> None:
    """A session whose last entry is a call without a result, written ``seconds_ago``."""
    then = datetime.fromtimestamp(time.time() - seconds_ago, UTC).isoformat(timespec="milliseconds")
    stamp = then.replace("+00:00", "Z").encode()
    path.write_bytes(chain(3) + call("a1", "m2", "c1").replace(b"2026-03-14T11:05:00.000Z", stamp))


async def test_a_config_file_rebinds_a_key_and_sets_stuck_after(tmp_path, monkeypatch):
    monkeypatch.delenv("SESSION_TUI_STUCK_AFTER")  # (the tests' own 0 would win over the file)
    path = tmp_path / "quiet.jsonl"
    _quiet_call(path, 1200)  # quiet for 20 minutes: past the default 300 s, within the file's hour
    config = tmp_path / "config.toml"
    config.write_text('stuck_after = 3600\n[keys]\ngo_leaf = "z"\n')
    async with SessionApp(str(path), settings=load(str(config))).run_test(size=(100, 30)) as pilot:
        screen = await session_screen(pilot)
        status = screen.query_one(StatusLine)
        await wait_for(pilot, lambda: "running run" in status.text.plain, what="the first look for problems")
        assert screen.state.problems == []  # within the file's stuck_after
        leaf = screen.tree_widget.cursor
        await pilot.press("home")
        assert screen.tree_widget.cursor != leaf
        await pilot.press("l")  # the default key: no longer bound
        await pilot.pause()
        assert screen.tree_widget.cursor != leaf
        await pilot.press("z")  # the file's key for go_leaf
        await wait_for(pilot, lambda: screen.tree_widget.cursor == leaf, what="the rebound key's action")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), what="the help")
        assert ("z", "go to the active leaf") in screen_rows(screen)  # (what the help's table is made of)
        assert ("l", "go to the active leaf") not in screen_rows(screen)

    # the same file without the config: the default 300 s make the quiet call stuck, a problem
    async with SessionApp(str(path), settings=load(environ={})).run_test(size=(100, 30)) as pilot:
        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: screen.state.problems, what="the stuck call")
        assert [p.kind.value for p in screen.state.problems] == ["dangling_tool_call"]
