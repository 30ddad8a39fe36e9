"""The branch list (b) and the compare (d) on the branched samples of every
format that has branches: tree, pi, a Claude Code rewind, a Codex rollback."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from session_tui.ui.app import SessionApp
from session_tui.ui.screens.branches import BranchesScreen
from session_tui.ui.screens.compare import CompareScreen
from session_tui.ui.screens.confirm import ConfirmScreen
from tests.store.test_store import old
from tests.support import SAMPLES

from .pilot_support import session_screen, wait_for

BRANCHED = {
    "tree": "tree/branched-summary.jsonl",
    "pi": "pi/2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl",
    "claude": "claude/d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl",
    "codex": "codex/rollout-2026-03-14T10-30-12-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl",
}
FIRST_WORDS = {"Actually, leave the tests alone", "Quickest path: just update the expected values"}


def copy(tmp_path, rel):
    dest = tmp_path / os.path.basename(rel)
    shutil.copy(SAMPLES / rel, dest)
    old(dest)
    return dest


async def open_branches(pilot) -> BranchesScreen:
    screen = await session_screen(pilot)
    await wait_for(pilot, lambda: not screen.state.indexing, what="the index")
    await pilot.press("b")
    await wait_for(
        pilot,
        lambda: isinstance(pilot.app.screen, BranchesScreen) and pilot.app.screen.done,
        what="the branch list, read",
    )
    return pilot.app.screen


@pytest.mark.parametrize("fmt", sorted(BRANCHED))
async def test_the_branch_list_shows_each_branch_and_enter_goes_to_its_leaf(tmp_path, fmt):
    path = copy(tmp_path, BRANCHED[fmt])
    async with SessionApp(str(path)).run_test(size=(150, 40)) as pilot:
        branches = await open_branches(pilot)
        table = branches.table
        assert len(table.rows) == 2 and [b.active for b in table.rows] == [True, False]
        labels = [table.labels[b.leaf] for b in table.rows]
        assert [any(label.startswith(w) for w in FIRST_WORDS) for label in labels] == [True, True], labels
        details = [table.details[b.leaf] for b in table.rows]
        assert all(d.ends == "answer" for d in details) and details[0].steps > details[1].steps
        drawn = table.render_line(1).text
        assert "●" in drawn and "answer" in drawn  # the active branch's row, drawn
        await pilot.press("down", "enter")
        session = await session_screen(pilot)
        assert session.tree_widget.cursor_entry == table.rows[1].leaf


async def test_type_to_filter_then_compare_two_marked_branches_in_sync(tmp_path):
    path = copy(tmp_path, BRANCHED["claude"])
    async with SessionApp(str(path)).run_test(size=(150, 40)) as pilot:
        branches = await open_branches(pilot)
        await pilot.press("slash", "q", "u", "i", "c", "k")  # (q alone goes back: / starts a filter with it)
        await wait_for(pilot, lambda: len(branches.table.rows) == 1, what="the filter")
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(branches.table.rows) == 2, what="the filter cleared")
        await pilot.press("space", "down", "space", "d")
        await wait_for(
            pilot,
            lambda: isinstance(pilot.app.screen, CompareScreen) and pilot.app.screen.view.result is not None,
            what="the compare",
        )
        compare = pilot.app.screen
        view = compare.view
        result = view.result
        assert result.first_divergence == 0 and view.cursor == 0
        assert len(result.rows) == max(len(result.a.steps), len(result.b.steps))
        await pilot.press("pagedown")  # one view draws both columns: they scroll together
        top = view.scroll_offset.y
        i, j, _ = result.rows[top]
        line = view.render_line(0).text
        assert result.a.steps[i].preview[:20] in line if i is not None else True
        assert "·" in line or result.b.steps[j].preview[:20] in line
        await pilot.press("home", "tab", "enter")  # the right side's step in the detail pane
        assert compare.query_one("DetailPane").has_class("shown") and view.side == 1
        assert view.focused_entry() == result.b.steps[0].entry


@pytest.mark.parametrize("fmt", ["tree", "pi"])
async def test_a_in_the_compare_makes_that_side_the_active_leaf(tmp_path, fmt):
    path = copy(tmp_path, BRANCHED[fmt])
    async with SessionApp(str(path)).run_test(size=(150, 40)) as pilot:
        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: not screen.state.indexing, what="the index")
        fork = next(e for e in range(screen.state.session.tree.count) if screen.state.session.tree.child_count(e) >= 2)
        screen.jump_to_entry(fork)
        await pilot.press("d")
        await wait_for(
            pilot,
            lambda: isinstance(pilot.app.screen, CompareScreen) and pilot.app.screen.view.result is not None,
            what="the compare of the fork point",
        )
        result = pilot.app.screen.view.result
        assert result.fork == fork and result.a.branch.active and not result.b.branch.active
        other = result.b.branch.leaf
        await pilot.press("tab", "a")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="the plan")
        assert "active leaf" in pilot.app.screen.title_text.lower()
        await pilot.click("#confirm")
        # (pi: the leaf record is a child of the target, outside the context)
        await wait_for(pilot, lambda: other in screen.state.session.active_path(), what="the moved leaf")
        last = json.loads(path.read_bytes().splitlines()[-1])
        assert last.get("type") in ("active_leaf", "custom")


async def test_d_off_a_fork_point_says_what_it_does(tmp_path):
    path = copy(tmp_path, BRANCHED["tree"])
    async with SessionApp(str(path)).run_test(size=(150, 40)) as pilot:
        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: not screen.state.indexing, what="the index")
        await pilot.press("d")
        assert pilot.app.screen is screen


async def test_d_with_every_row_filtered_away_compares_the_active_and_the_newest(tmp_path):
    path = copy(tmp_path, BRANCHED["tree"])
    async with SessionApp(str(path)).run_test(size=(150, 40)) as pilot:
        branches = await open_branches(pilot)
        await pilot.press("z", "z", "z")
        await wait_for(pilot, lambda: not branches.table.rows, what="every row filtered away")
        await pilot.press("enter", "d")
        await wait_for(
            pilot,
            lambda: isinstance(pilot.app.screen, CompareScreen) and pilot.app.screen.view.result is not None,
            what="the compare",
        )
        assert pilot.app.screen.view.result.a.branch.active


async def test_a_replaced_file_closes_the_branch_list_over_it(tmp_path):
    path = copy(tmp_path, BRANCHED["tree"])
    async with SessionApp(str(path), watch=True).run_test(size=(150, 40)) as pilot:
        await open_branches(pilot)
        shorter = tmp_path / "shorter.jsonl"
        shorter.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:3]))
        os.replace(shorter, path)
        await wait_for(
            pilot,
            lambda: not isinstance(pilot.app.screen, BranchesScreen),
            timeout=10,
            what="the list closed after the reload",
        )
        screen = pilot.app.screen
        await wait_for(pilot, lambda: screen.state.session.entries == 2, what="the reloaded view")
        await pilot.press("b", "down", "enter")  # a fresh list of the file as it is now: no stale entry
        await wait_for(pilot, lambda: not isinstance(pilot.app.screen, BranchesScreen), what="back in the view")


async def test_the_branch_list_prices_each_branchs_own_responses(tmp_path):
    path = copy(tmp_path, BRANCHED["pi"])
    async with SessionApp(str(path)).run_test(size=(150, 40)) as pilot:
        branches = await open_branches(pilot)
        table = branches.table
        costs = [table.costs[b.leaf] for b in table.rows]
        assert all(c is not None and c > 0 for c in costs) and costs[0] > costs[1]  # the active one is longer
        assert f"${costs[0]:,.2f}" in table.render_line(1).text and "cost" in table.render_line(0).text


async def test_the_live_state_tick_over_a_file_replaced_before_its_reload_raises_nothing(tmp_path):
    # (the race the test above can lose: the tick reads the last entry and the awaited calls' records
    # every second, and a file replaced a moment ago holds other bytes there until the reload)
    path = copy(tmp_path, BRANCHED["tree"])
    with open(path, "ab") as f:
        f.write(b'{"type":"message","id":"a9","parentId":null,"createdAt":"2026-03-14T11:00:00.000Z",')
        f.write(b'"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c9","type":"function",')
        f.write(b'"function":{"name":"bash","arguments":"{}"}}]}}\n')
    async with SessionApp(str(path), watch=False).run_test(size=(150, 40)) as pilot:
        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: screen.state.problems is not None, what="the problems")
        size = path.stat().st_size
        path.write_bytes(b"x" * size)  # (other bytes where every record was)
        screen.tick_live_state()
        path.write_bytes(b"")
        screen.tick_live_state()
        await pilot.pause()
        assert pilot.app.return_code is None and pilot.app.screen is screen  # still running, no error shown
