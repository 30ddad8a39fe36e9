"""`R` and `D` in the session view, with stand-in clients on PATH: the plan
dialog, the client run in the session's directory, the view following the
file after; the dry run in a worker and its report."""

from __future__ import annotations

import json
import os

from session_tui.model.resume.verdicts import verdict_on
from session_tui.ui.app import SessionApp
from session_tui.ui.screens.confirm import ConfirmScreen
from session_tui.ui.screens.problems import ProblemsScreen
from session_tui.ui.screens.text_view import TextViewScreen
from tests.actions.stand_ins import pi_session_in, stand_in
from tests.support import REPO, SAMPLES

from .pilot_support import session_screen, wait_for

CRASHED_CLAUDE = SAMPLES / "claude" / "e400ea4e-b13c-4400-a7d6-45a85f4a56c7.jsonl"
RECORDED = REPO / "tests" / "data" / "dry-run" / "claude-e400ea4e.json"


async def test_R_moves_pis_leaf_runs_pi_there_and_follows_the_file(tmp_path, monkeypatch):
    path, project = pi_session_in(tmp_path)
    record = tmp_path / "ran.json"
    stand_in(
        tmp_path / "bin",
        "pi",
        f"json.dump({{'argv': sys.argv[1:], 'cwd': os.getcwd()}}, open({str(record)!r}, 'w'))",
    )
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    async with SessionApp(str(path)).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        session = screen.state.session
        other = next(leaf for leaf in session.tree.leaf_list() if leaf != session.active_leaf())
        entries = session.tree.count
        screen.jump_to_entry(other)
        await wait_for(pilot, lambda: screen.tree_widget.cursor_entry == other, what="the cursor on the other leaf")
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="the plan")
        plan = pilot.app.screen.body
        assert "first: append the record that moves pi's leaf here" in plan and f"directory: {project}" in plan
        assert "command: pi --session" in plan
        await pilot.press("enter")  # "Run pi"
        await wait_for(pilot, record.exists, timeout=20, what="the client run")
        ran = json.loads(record.read_text())
        assert ran["argv"] == ["--session", str(path)] and ran["cwd"] == str(project)
        await wait_for(  # (pi's leaf record is a child of the leaf it moves to)
            pilot,
            lambda: screen.state.session.tree.count == entries + 1 and other in screen.state.session.active_path(),
            timeout=10,
            what="the view following the moved leaf",
        )


async def test_D_dry_runs_in_a_worker_and_shows_the_report(tmp_path, monkeypatch):
    ran = tmp_path / "ran.json"
    body = f"""
if "--version" in sys.argv:
    print("2.1.328 (Claude Code)")
    sys.exit(0)
import urllib.request
json.dump(sys.argv, open({str(ran)!r}, "w"))
sent = json.load(open({str(RECORDED)!r}))
data = json.dumps({{"model": sent["model"], "messages": sent["messages"], "max_tokens": 10}}).encode()
url = os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages"
urllib.request.urlopen(urllib.request.Request(url, data, {{"content-type": "application/json"}})).read()
"""
    stand_in(tmp_path / "bin", "claude", body)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    path = tmp_path / CRASHED_CLAUDE.name
    path.write_bytes(CRASHED_CLAUDE.read_bytes())
    async with SessionApp(str(path)).run_test(size=(120, 40)) as pilot:
        await session_screen(pilot)
        await pilot.press("D")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, TextViewScreen), timeout=30, what="the report")
        report = pilot.app.screen
        assert "accepted" in report.title_text
        assert "agrees with session-tui's context at the leaf" in report.body and "Claude Code 2.1.328" in report.body
        await pilot.press("escape", "p")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ProblemsScreen), what="the problems list")
        assert "Claude Code 2.1.328 accepts the file as it is (dry run)" in pilot.app.screen.heading()
    verdict = verdict_on(str(path))
    assert verdict is not None and verdict.accepted and verdict.client == "Claude Code"
    assert path.read_bytes() == CRASHED_CLAUDE.read_bytes()  # a copy was resumed, not the file
