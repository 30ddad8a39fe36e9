"""A call an agent is running, seen live (a writer in a thread): drawn
running with its elapsed time and no problem, stuck once the file is quiet
for longer than the threshold, and the repair dialog warns while it runs."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

from session_tui.ui.app import SessionApp
from session_tui.ui.screens.confirm import ConfirmScreen
from session_tui.ui.widgets.status import StatusLine
from tests.builders.tree import call, chain

from .pilot_support import session_screen, wait_for


def _row_of_cursor(screen) -> str:
    tree = screen.tree_widget
    return tree.render_line(tree.cursor - tree.scroll_offset.y).text


async def test_a_running_call_then_stuck_and_the_repair_dialog_warns(tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "3")
    path = tmp_path / "live.jsonl"
    path.write_bytes(chain(2))
    async with SessionApp(str(path)).run_test(size=(80, 24)) as pilot:
        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: screen.state.tail_armed, what="the watch")
        status = screen.query_one(StatusLine)

        def agent() -> None:  # the agent calls a tool, which then runs (nothing more is written)
            now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            with open(path, "ab") as f:
                f.write(call("a1", "m1", "c1").replace(b"2026-03-14T11:05:00.000Z", now.encode()))

        writer = threading.Thread(target=agent)
        writer.start()
        writer.join()
        await wait_for(pilot, lambda: "▶ run 0:0" in _row_of_cursor(screen), what="the running call with its time")
        # (the status line follows the state once the handler that changed it is done: waited for, like the row)
        await wait_for(pilot, lambda: "running run" in status.text.plain, what="the status says it runs")
        assert screen.state.problems == [] and "✓ no problems" in status.text.plain

        await pilot.press("t")  # a repair while it runs: the dialog says so
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="the repair dialog")
        assert "may still be running" in pilot.app.screen.warning
        await pilot.press("escape")

        # quiet for longer than the threshold: stuck, a problem
        await wait_for(pilot, lambda: screen.state.problems, timeout=8, what="the call stuck")
        assert [p.kind.value for p in screen.state.problems] == ["dangling_tool_call"]
        await wait_for(pilot, lambda: "⚠ call without result" in _row_of_cursor(screen), what="the stuck mark")
        await wait_for(pilot, lambda: "stuck run" in status.text.plain, what="the status says it is stuck")
        # (the time rule, a tree file: the tick says "stuck" before the problems' pass counts the call)
        await wait_for(pilot, lambda: "⚠ 1 problem" in status.text.plain, what="the problem counted")
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="the repair dialog")
        assert pilot.app.screen.warning == ""
