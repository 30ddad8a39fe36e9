"""The usage screen (``U``): the plot of the context per response along the
active branch, the cost with its sub-agents, the tools; a snapshot at 80×24."""

from __future__ import annotations

import shutil

from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from session_tui.ui.app import SessionApp
from tests.support import SAMPLES

from .pilot_support import session_screen, wait_for

PI = SAMPLES / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"


async def open_usage(pilot):
    screen = await session_screen(pilot)
    await wait_for(pilot, lambda: screen.state.problems is not None, what="problems")
    await pilot.press("U")
    await wait_for(pilot, lambda: getattr(pilot.app.screen, "ready", False), what="the usage figures")
    await pilot.pause()
    return pilot.app.screen


async def test_U_plots_the_context_per_response_and_lists_the_tools_u_stays_undo():
    app = SessionApp(str(PI), watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        usage = await open_usage(pilot)
        heading = str(usage.query_one("#usage-heading", Static).render())
        assert "cost $0.28" in heading and "ctx 9.2k/200.0k" in heading
        assert usage.query_one(PlotextPlot).plt is not None
        rows = [usage.query_one(DataTable).get_row_at(k) for k in range(usage.query_one(DataTable).row_count)]
        assert [(r[0], r[1], r[2]) for r in rows] == [("edit", "5", "0"), ("bash", "4", "1"), ("read", "1", "0")]
        await pilot.press("escape")
        await wait_for(pilot, lambda: pilot.app.screen.__class__.__name__ == "SessionScreen", what="back")


async def test_the_heading_rolls_up_the_sub_agents_and_says_so(tmp_path):
    shutil.copytree(SAMPLES / "claude", tmp_path / "claude")
    app = SessionApp(str(tmp_path / "claude" / "5b0c7e21-9d3a-4f6e-8a2b-3c4d5e6f7a80.jsonl"), watch=False)
    async with app.run_test(size=(120, 34)) as pilot:
        usage = await open_usage(pilot)
        assert "1 sub-agent apart" in str(usage.query_one("#usage-heading", Static).render())


async def test_the_status_line_shows_the_context_fill():
    app = SessionApp(str(PI), watch=False)
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: "ctx 9.2k/200.0k" in (screen.state.usage or ""), what="the fill")


def test_usage_screen_snapshot(snap_compare):
    async def run_before(pilot) -> None:
        await open_usage(pilot)

    assert snap_compare(SessionApp(str(PI), watch=False), terminal_size=(80, 24), run_before=run_before)
