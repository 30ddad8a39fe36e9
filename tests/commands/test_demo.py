"""`session-tui demo`: the scripted agent's session, headless and in the UI."""

from __future__ import annotations

import os
import shutil

from session_tui.commands.demo import DemoApp, create_demo_file
from session_tui.model.session.context import context_at
from session_tui.model.session.session import open_session
from tests.support import check_json, run_cli
from tests.ui.pilot_support import session_screen, visible_text, wait_for


def test_fast_headless_demo_writes_branches_a_summary_and_a_crash(tmp_path):
    done = run_cli("demo", "--fast", "--headless", str(tmp_path / "demo"))
    assert done.returncode == 0, done.stderr
    path = done.stdout.strip()
    assert path == str(tmp_path / "demo" / "demo.jsonl")
    [report] = check_json(path)
    assert report["format"] == "tree"
    assert report["branch_points"] >= 1 and report["summaries"] >= 1
    assert len(report["dangling_tool_calls"]) == 1
    kinds = [p["kind"] for p in report["problems"]]
    assert kinds == ["dangling_tool_call", "torn_tail"]
    with open_session(path) as session:
        context = context_at(session)
        assert context[1]["content"].startswith("## Goal")  # the summary stands for the first turns
        assert context[-1]["tool_calls"][0]["id"] == report["dangling_tool_calls"][0]["call_id"]


def test_demo_defaults_to_a_new_temp_dir_and_never_overwrites(tmp_path):
    done = run_cli("demo", "--fast", "--headless")
    assert done.returncode == 0, done.stderr
    path = done.stdout.strip()
    try:
        assert os.path.basename(os.path.dirname(path)).startswith("session-tui-demo-")
        again = run_cli("demo", "--fast", "--headless", os.path.dirname(path))
        assert again.returncode == 1 and "already exists" in again.stderr and again.stderr.count("\n") == 1
    finally:
        shutil.rmtree(os.path.dirname(path))


async def test_the_demo_shows_entries_arriving_in_the_ui(tmp_path):
    path = create_demo_file(str(tmp_path))
    app = DemoApp(path, pace=0.03)
    try:
        async with app.run_test(size=(140, 40), notifications=True) as pilot:
            screen = await session_screen(pilot)
            seen = set()

            def arrived() -> bool:
                seen.add(screen.state.session.entries)
                return not app.writer.is_alive() and bool(screen.state.session.lines.torn)

            await wait_for(pilot, arrived, timeout=20, what="the whole script on screen")
            assert len(seen) >= 3  # entries appeared over time, not all at once
            with open_session(path) as written:
                assert (
                    screen.state.session.entries == written.entries == len(screen.state.rows) - 1
                )  # + the pending row
            text = visible_text(screen)
            assert "torn last line" in text and "◆ summary" in text  # the demo's crash: a line cut for good

            def told() -> bool:  # the writer thread's last notify is a message: it lands a frame later
                return any("crashed mid-write" in str(t.render()) for t in app.screen.query("Toast"))

            await wait_for(pilot, told, timeout=10, what="the crash narrated")
    finally:
        app.stop_agent()
    assert app.agent.error is None
