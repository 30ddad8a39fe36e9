"""The fleet screen: rows and nesting, open and back, an alert appearing."""

from __future__ import annotations

import shutil
import time

from session_tui.model.fleet.fleet import Fleet
from session_tui.ui.app import SessionApp
from session_tui.ui.screens.fleet import FleetScreen
from session_tui.ui.screens.session import SessionScreen
from tests.model.fleet.builders import Writer
from tests.support import SAMPLES

from .pilot_support import wait_for


def agents(tmp_path, now):
    waiting = (
        Writer(tmp_path / "waiting.jsonl", "claude", now).prompt("Fix the dates", ago=40).answer(ago=30).written(30)
    )
    running = (
        Writer(tmp_path / "running.jsonl", "pi", now)
        .prompt("Run the tests", ago=20)
        .calls_made("bash", ago=10)
        .written(10)
    )
    stuck = (
        Writer(tmp_path / "stuck.jsonl", "codex", now)
        .prompt("Deploy", ago=900)
        .calls_made("shell", ago=700)
        .written(700)
    )
    source = SAMPLES / "claude" / "5b0c7e21-9d3a-4f6e-8a2b-3c4d5e6f7a80"
    shutil.copytree(source, tmp_path / source.name)
    shutil.copy(source.with_suffix(".jsonl"), tmp_path)
    return waiting, running, stuck


async def test_rows_nesting_open_back_and_an_alert(tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")
    now = time.time()
    waiting, running, stuck = agents(tmp_path, now)
    fleet = Fleet([str(tmp_path)], window=1e10, process_check=None)
    async with SessionApp([str(tmp_path)], fleet=fleet).run_test(size=(160, 40)) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, FleetScreen)
        await wait_for(pilot, lambda: len(screen.table.rows) == 5, what="five agents")
        by_name = {agent.path.split("/")[-1]: (depth, agent) for depth, agent in screen.table.rows}
        assert by_name["waiting.jsonl"][1].observed.state.value == "waiting"
        assert by_name["running.jsonl"][1].observed.state_words() == "tool or approval"
        assert by_name["stuck.jsonl"][1].observed.state.value == "stuck"
        order = [agent.path.split("/")[-1] for _, agent in screen.table.rows]
        parent = order.index("5b0c7e21-9d3a-4f6e-8a2b-3c4d5e6f7a80.jsonl")
        assert order[parent + 1].startswith("agent-") and screen.table.rows[parent + 1][0] == 1  # nested under it
        # (the rows are redrawn on a timer, the summary when the watch hands the scan over: either first)
        await wait_for(pilot, lambda: "5 agents" in str(screen.query_one("#summary").render()), what="the summary")
        summary = str(screen.query_one("#summary").render())
        assert "5 agents" in summary and "1 stuck" in summary and "1 waiting" in summary

        await pilot.press("n")  # the next agent that needs you
        needing = screen.table.selected[1]
        assert needing.observed.state.value in ("stuck", "waiting", "crashed") or needing.alerts
        cursor = screen.table.cursor
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, SessionScreen), what="the session view")
        assert pilot.app.screen.path == needing.path
        await pilot.press("escape")
        await wait_for(pilot, lambda: pilot.app.screen is screen, what="the fleet again")
        assert screen.table.cursor == cursor  # where it was

        running.now = time.time()
        for _ in range(3):  # three failed results in a row: an alert appears on its row
            running.result(0, ago=0, error=True).calls_made("bash", ago=0)
        await wait_for(
            pilot,
            lambda: "error" in next(a for _, a in screen.table.rows if a.path == str(running.path)).alerts,
            timeout=10,
            what="the error alert",
        )
