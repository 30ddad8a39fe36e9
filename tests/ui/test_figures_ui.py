"""Every figure said one way on every screen (issue 36): what the picker
says of a file is what the session view says; counts agree after edits."""

from __future__ import annotations

import pytest

from session_tui.ui.app import SessionApp
from tests.test_cli_paths import binary_piece

from .pilot_support import picker_read, wait_for


async def test_a_piece_of_a_binary_is_refused_by_the_session_view_with_the_picker_s_reason(tmp_path):
    binary_piece(tmp_path / "piece.jsonl")
    reason = "not a session (no JSON object in its first lines)"
    async with SessionApp([str(tmp_path)], watch=False).run_test(size=(120, 40), notifications=True) as pilot:
        screen = await picker_read(pilot, 1)
        assert screen.table.rows[0].problems() == [reason]
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: any(reason in str(t.render()) for t in pilot.app.screen.query("Toast")),
            what="the refusal",
        )
        assert pilot.app.screen is screen  # still the list: no session view of it


@pytest.mark.parametrize("fmt", ["tree", "pi"])
async def test_after_a_leaf_move_in_the_compare_the_branch_list_lists_each_branch_once(tmp_path, fmt):
    from session_tui.ui.screens.compare import CompareScreen
    from session_tui.ui.screens.confirm import ConfirmScreen

    from .pilot_support import session_screen
    from .test_branches_ui import BRANCHED, copy, open_branches

    path = copy(tmp_path, BRANCHED[fmt])
    async with SessionApp(str(path)).run_test(size=(150, 40)) as pilot:
        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: not screen.indexing, what="the index")
        leaves = len(screen.session.tree.conversation_leaves())
        fork = next(e for e in range(screen.session.tree.count) if screen.session.tree.child_count(e) >= 2)
        screen.jump_to_entry(fork)
        await pilot.press("d")
        await wait_for(
            pilot,
            lambda: isinstance(pilot.app.screen, CompareScreen) and pilot.app.screen.view.result is not None,
            what="the compare",
        )
        other = pilot.app.screen.view.result.b.branch.leaf
        await pilot.press("tab", "a")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="the plan")
        await pilot.click("#confirm")
        await wait_for(pilot, lambda: other in screen.session.active_path(), what="the moved leaf")
        listed = await open_branches(pilot)
        rows = listed.all
        assert len(rows) == leaves == 2, [(screen.session.line_of(b.leaf), b.active) for b in rows]
        assert len({b.leaf for b in rows}) == len(rows) and [b.leaf for b in rows if b.active] == [other]
        assert str(listed.query_one("#heading").render()).startswith("2 branches")
