"""Snapshots of the main screens (pytest-textual-snapshot; plain ``def``).

Update after an intended change: ``pytest tests/ui/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest

from session_tui.ui.app import SessionApp
from tests.support import SAMPLES

from .pilot_support import cursor_line, detail_caught_up, picker_read, session_screen, wait_for

SIZE = (120, 34)
SIZES = [(80, 24), (160, 48)]  # the smallest terminal a user has, and a large one


def app_for(name: str) -> SessionApp:
    return SessionApp(str(SAMPLES / "tree" / name), watch=False)


async def looked(pilot, screen) -> None:
    """Until the problems' pass has found the problems and also sent the status line's words (its usage,
    title and origin, a second message after the problems)."""
    await wait_for(pilot, lambda: screen.state.problems is not None, what="problems")
    await wait_for(
        pilot,
        lambda: not any(w.group == "problems" and not w.is_finished for w in screen.workers),
        what="the usage words",
    )
    await pilot.pause()


def ready(*keys: str, line: int | None = None):
    """run_before: wait for the view and its problems, press ``keys``, let
    the detail pane catch up."""

    async def run_before(pilot) -> None:
        screen = await session_screen(pilot)
        await looked(pilot, screen)
        if keys:
            await pilot.press(*keys)
        if line is not None:
            await wait_for(pilot, lambda: cursor_line(screen) == line, what=f"line {line}")
        await detail_caught_up(pilot, screen)
        await pilot.pause()

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


#: one session of every other format, as it opens (at its active leaf)
FORMAT_SAMPLES = {
    "chat": "chat/session-crash-dangling.jsonl",
    "pi": "pi/2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl",
    "claude": "claude/d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl",
    "codex": "codex/rollout-2026-03-14T10-30-12-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl",
    "astorlm": "astorlm/5e2ed5fa-83f0-43d9-8687-965f5d9f3315.jsonl",
}


@pytest.mark.parametrize("fmt", sorted(FORMAT_SAMPLES))
def test_a_session_of_each_format(snap_compare, fmt):
    app = SessionApp(str(SAMPLES / FORMAT_SAMPLES[fmt]), watch=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=ready())


def test_a_small_terminal(snap_compare):
    assert snap_compare(app_for("branched-summary.jsonl"), terminal_size=(80, 24), run_before=ready())


def compared():
    """run_before: the compare of the two branches of the session's fork point."""

    async def run_before(pilot) -> None:
        from session_tui.ui.screens.compare import CompareScreen

        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: screen.state.problems is not None, what="problems")
        tree = screen.state.session.tree
        screen.jump_to_entry(next(e for e in range(tree.count) if tree.child_count(e) >= 2))
        await pilot.press("d")
        await wait_for(
            pilot,
            lambda: isinstance(pilot.app.screen, CompareScreen) and pilot.app.screen.view.result is not None,
            what="the compare",
        )
        await pilot.pause()  # the result's message handled: the compare is drawn

    return run_before


def test_compare_of_two_branches(snap_compare):
    assert snap_compare(app_for("branched-summary.jsonl"), terminal_size=SIZE, run_before=compared())


#: the clock the ages and the agent's activity are drawn against (every
#: snapshot: an "idle 262 days" would change daily), and the zone of the times shown
FIXED_NOW = 1_775_000_000.0  # 2026-03-31 23:33:20 UTC


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    import time

    from session_tui.ui import cells

    monkeypatch.setattr(cells, "now", lambda: FIXED_NOW)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("size", SIZES)
def test_picker(snap_compare, fixed_clock, tmp_path, monkeypatch, size):
    """The picker over a folder of every format, at 80×24 and 160×48: the
    home folder is the tmp dir, so the folder reads ``~/sessions``."""
    import os
    import shutil

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "sessions"
    root.mkdir()
    for hours, (_fmt, sample) in enumerate(sorted({"tree": "tree/branched-summary.jsonl", **FORMAT_SAMPLES}.items())):
        target = root / (SAMPLES / sample).name
        shutil.copy(SAMPLES / sample, target)
        sidecar = (SAMPLES / sample).with_suffix(".meta.json")  # astorlm's metadata, named by its id
        if sidecar.exists():
            shutil.copy(sidecar, root / sidecar.name)
        os.utime(target, (FIXED_NOW - 3600 * (hours + 1),) * 2)

    async def run_before(pilot) -> None:
        await picker_read(pilot, 6)
        await pilot.pause()

    assert snap_compare(SessionApp([str(root)], watch=False), terminal_size=size, run_before=run_before)


def test_branch_list(snap_compare, fixed_clock):
    from session_tui.ui.screens.branches import BranchesScreen

    async def run_before(pilot) -> None:
        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: screen.state.problems is not None, what="problems")
        await pilot.press("b")
        await wait_for(
            pilot,
            lambda: isinstance(pilot.app.screen, BranchesScreen) and pilot.app.screen.done,
            what="the branch list, read",
        )
        await pilot.pause()

    assert snap_compare(app_for("branched-summary.jsonl"), terminal_size=SIZE, run_before=run_before)


# -- issue 24: every screen as a user reads it, at 80×24 and 160×48 ---------------------------


def running_call(tmp_path, monkeypatch):
    """A session whose last call was made 12 s before the fixed clock, the
    file written 5 s before it: a call running, not a problem."""
    import os
    from datetime import UTC, datetime

    from tests.builders.tree import call, chain

    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")
    made = datetime.fromtimestamp(FIXED_NOW - 12, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    path = tmp_path / "running.jsonl"
    path.write_bytes(chain(3) + call("a1", "m2", "call_1").replace(b"2026-03-14T11:05:00.000Z", made.encode()))
    os.utime(path, (FIXED_NOW - 5, FIXED_NOW - 5))
    return path


@pytest.mark.parametrize("size", SIZES)
def test_a_running_call_is_drawn_running(snap_compare, fixed_clock, tmp_path, monkeypatch, size):
    path = running_call(tmp_path, monkeypatch)
    assert snap_compare(SessionApp(str(path), watch=False), terminal_size=size, run_before=ready())


@pytest.mark.parametrize("size", SIZES)
def test_the_repair_dialog_of_a_running_call_warns_and_fits(snap_compare, fixed_clock, tmp_path, monkeypatch, size):
    import uuid

    from session_tui.ui.screens.confirm import ConfirmScreen

    path = running_call(tmp_path, monkeypatch)
    from session_tui.store.forms import tree as tree_form

    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=24))  # the planned records' ids and times, fixed
    monkeypatch.setattr(tree_form, "now", lambda: "2026-03-31T23:33:20.000Z")

    async def run_before(pilot) -> None:
        await ready()(pilot)
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="the dialog")
        await pilot.pause()

    assert snap_compare(SessionApp(str(path), watch=False), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_the_context_opens_at_its_newest_message(snap_compare, size):
    from session_tui.ui.screens.text_view import TextViewScreen

    async def run_before(pilot) -> None:
        await ready()(pilot)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, TextViewScreen), what="the context")
        area = pilot.app.screen.text_area
        await wait_for(pilot, lambda: area.cursor_location[0] == area.document.line_count - 1, what="its end")
        await pilot.pause()

    assert snap_compare(app_for("branched-summary.jsonl"), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_failed_tool_results_are_marked_and_reached_with_a_key(snap_compare, size):
    live = SAMPLES.parent / "tests" / "data" / "live-runs" / "claude" / "f754b62a-7bdd-4e42-bceb-db6fb1e1377f.jsonl"
    app = SessionApp(str(live), watch=False)

    async def run_before(pilot) -> None:
        screen = await session_screen(pilot)
        await looked(pilot, screen)
        await pilot.press("g", "right_square_bracket")
        await wait_for(
            pilot,
            lambda: (
                screen.state.session.format.view(screen.state.session.record(screen.tree_widget.cursor_entry)).is_error
            ),
            what="a failed result",
        )
        await detail_caught_up(pilot, screen)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_the_help_of_the_session_fits(snap_compare, size):
    from session_tui.ui.screens.help import HelpScreen

    async def run_before(pilot) -> None:
        await ready()(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), what="the help")
        await pilot.pause()

    assert snap_compare(app_for("branched-summary.jsonl"), terminal_size=size, run_before=run_before)


# -- issue 27: the fleet ------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_the_fleet_with_agents_in_four_states(snap_compare, fixed_clock, tmp_path, monkeypatch, size):
    from session_tui.model.fleet.fleet import Fleet
    from tests.model.fleet.builders import Writer

    from .test_fleet_ui import agents

    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")
    monkeypatch.setenv("HOME", "/home/dev")  # the projects read ~/src/…
    agents(tmp_path, FIXED_NOW)
    Writer(tmp_path / "crashed.jsonl", "claude", FIXED_NOW).prompt("Migrate the schema", ago=120).torn().written(100)
    fleet = Fleet([str(tmp_path)], window=1e10, process_check=None, clock=lambda: FIXED_NOW, stuck_after=0)

    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: len(pilot.app.screen.table.rows) == 6, what="six agents")
        await pilot.pause()

    assert snap_compare(SessionApp([str(tmp_path)], fleet=fleet), terminal_size=size, run_before=run_before)
