"""A real Claude Code transcript with parallel tool calls (a scrubbed copy,
its shape kept) in the TUI: no fork rows, no problems, progress hidden, the
context view equal to what Claude Code sent (its golden)."""

from __future__ import annotations

import json

import orjson

from session_tui.model.reading.segment import Shape
from session_tui.model.resume.steps import context_steps
from session_tui.model.session.context import resume_items
from session_tui.ui.app import SessionApp
from session_tui.ui.screens.text_view import TextViewScreen
from tests.support import REPO, golden_form

from .pilot_support import session_screen, wait_for

TRANSCRIPT = REPO / "tests" / "data" / "real" / "claude" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
GOLDEN = REPO / "tests" / "golden" / "claude-8463c716-a2ea-4c14-9efa-87158ebd9f20-orig.json"


async def test_parallel_calls_read_as_claude_code_resumes_them():
    app = SessionApp(str(TRANSCRIPT), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: screen.state.problems is not None, timeout=20, what="problems")
        session, rows, tree = screen.state.session, screen.state.rows, screen.state.session.tree
        assert screen.state.problems == [] and tree.branch_points == 0 and tree.leaves == 1
        shown = [rows.at(i).entry for i in range(len(rows))]
        assert not any(tree.shape[e] & Shape.QUIET for e in shown)  # progress rows are hidden...
        assert sum(rows.folded.values()) == tree.quiet  # ...and every one is counted on a row
        assert all(tree.child_count(e) < 2 for e in shown)  # no fork row
        assert "+" in "".join(str(screen.tree_widget.render_line(y).text) for y in range(40))
        await pilot.press("h")  # show them
        await wait_for(
            pilot,
            lambda: any(tree.shape[screen.state.rows.at(i).entry] & Shape.QUIET for i in range(len(screen.state.rows))),
            what="quiet rows shown",
        )
        await pilot.press("h")
        await wait_for(pilot, lambda: len(screen.state.rows) == len(shown), what="quiet rows hidden again")
        session.resume_model = "claude-sonnet-4-5"  # the model its golden was recorded with (the oracle's)
        await pilot.press("l", "c")
        await wait_for(pilot, lambda: isinstance(app.screen, TextViewScreen), what="the context view")
        body = app.screen.body
        assert "Claude Code sends on resume" in app.screen.title_text and "++" not in body
        sent = [s.message for s in resume_items(session)]
        assert (
            golden_form(context_steps("claude", orjson.loads(orjson.dumps(sent))))
            == json.loads(GOLDEN.read_text())["steps"]
        )
