"""Snapshots of the main screens (pytest-textual-snapshot; plain ``def``).

Update after an intended change: ``pytest tests/ui/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from session_tui.ui.app import SessionApp
from tests.support import SAMPLES

from .pilot_support import cursor_line, session_screen, wait_for

SIZE = (120, 34)


def app_for(name: str) -> SessionApp:
    return SessionApp(str(SAMPLES / "tree" / name), watch=False)


def ready(*keys: str, line: int | None = None):
    """run_before: wait for the view and its problems, press ``keys``, let
    the detail pane catch up."""

    async def run_before(pilot) -> None:
        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: screen.problems is not None, what="problems")
        if keys:
            await pilot.press(*keys)
        if line is not None:
            await wait_for(pilot, lambda: cursor_line(screen) == line, what=f"line {line}")
        await pilot.pause(0.2)

    return run_before


def test_branched_session(snap_compare):
    assert snap_compare(app_for("branched-summary.jsonl"), terminal_size=SIZE, run_before=ready())


def test_summary_node(snap_compare):
    assert snap_compare(
        app_for("branched-summary.jsonl"), terminal_size=SIZE, run_before=ready("k", "k", "k", "k", line=20)
    )


def test_crash_with_dangling_call_and_torn_tail(snap_compare):
    assert snap_compare(app_for("crash-torn.jsonl"), terminal_size=SIZE, run_before=ready("g", "e", line=6))


def test_detail_of_a_tool_call(snap_compare):
    assert snap_compare(
        app_for("branched-summary.jsonl"), terminal_size=SIZE, run_before=ready("g", *["j"] * 9, line=15)
    )


def test_help_screen(snap_compare):
    assert snap_compare(app_for("branched-summary.jsonl"), terminal_size=SIZE, run_before=ready("question_mark"))


def test_problems_list(snap_compare):
    assert snap_compare(app_for("damaged-links.jsonl"), terminal_size=SIZE, run_before=ready("p"))
