"""Every figure said one way on every screen (issue 36): what the picker
says of a file is what the session view says; counts agree after edits."""

from __future__ import annotations

import pytest

from session_tui.ui.app import SessionApp
from tests.commands.test_cli_paths import binary_piece

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
        await wait_for(pilot, lambda: not screen.state.indexing, what="the index")
        leaves = len(screen.state.session.tree.conversation_leaves())
        fork = next(e for e in range(screen.state.session.tree.count) if screen.state.session.tree.child_count(e) >= 2)
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
        await wait_for(pilot, lambda: other in screen.state.session.active_path(), what="the moved leaf")
        listed = await open_branches(pilot)
        rows = listed.all
        assert len(rows) == leaves == 2, [(screen.state.session.line_of(b.leaf), b.active) for b in rows]
        assert len({b.leaf for b in rows}) == len(rows) and [b.leaf for b in rows if b.active] == [other]
        assert str(listed.query_one("#heading").render()).startswith("2 branches")


async def test_the_picker_s_estimate_gives_way_to_the_exact_count_also_after_a_change(tmp_path):
    import json
    import shutil

    from session_tui.ui.cells import entries_text
    from tests.support import REPO, check_json

    path = tmp_path / "large-session.jsonl"
    shutil.copy(REPO / "tests" / "data" / "real" / "pi" / "large-session.jsonl", path)
    (report,) = check_json(path)
    async with SessionApp([str(tmp_path)], watch=True).run_test(size=(160, 40)) as pilot:
        screen = await picker_read(pilot, 1)
        await wait_for(pilot, lambda: screen.table.rows[0].exact, timeout=30, what="the exact count")
        assert screen.table.rows[0].entries == report["entries"] == 1018
        assert entries_text(screen.table.rows[0]) == "1,018"
        await wait_for(pilot, lambda: screen.watch_armed, what="the folder watched")
        more = {"type": "message", "timestamp": "2025-11-21T02:15:00Z", "message": {"role": "user", "content": "ok"}}
        with open(path, "a") as f:  # (a version-1 pi session: entries without ids)
            f.write(json.dumps(more) + "\n")
        await wait_for(
            pilot,
            lambda: screen.table.rows[0].exact and screen.table.rows[0].entries == 1019,
            timeout=30,
            what="the new exact count",
        )
        assert entries_text(screen.table.rows[0]) == "1,019"


async def test_one_session_s_tokens_read_the_same_on_every_screen_and_export(tmp_path):
    """A real Claude Code session whose responses are written over several
    records, each with its usage, and whose sub-agents spend too: the status
    line said out 40.3k, U and check 40.4k, the export 40,320."""
    import json
    import shutil

    from textual.widgets import Static

    from session_tui.model.words import human_tokens
    from tests.support import REPO, run_cli

    from .pilot_support import session_screen
    from .test_usage_ui import open_usage

    real = REPO / "tests" / "data" / "real" / "claude"
    name = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
    shutil.copytree(real / name, tmp_path / name)
    path = tmp_path / f"{name}.jsonl"
    shutil.copy(real / f"{name}.jsonl", path)
    (report,) = [json.loads(line) for line in run_cli("check", "--json", str(path)).stdout.splitlines()]
    out = report["usage"]["output"]
    assert out == 40_359  # (with its sub-agents' 39: the export said the session's own 40,320)
    said = f"out {human_tokens(out)}"
    check = run_cli("check", str(path)).stdout
    html = run_cli("export", str(path), "--to", "html").stdout
    usage = json.loads(run_cli("usage", "--json", str(path)).stdout)
    assert said in check and f"out {out:,}" in html and usage["total"]["output"] == out
    async with SessionApp(str(path), watch=False).run_test(size=(200, 40)) as pilot:
        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: "tokens" in screen.state.usage, timeout=20, what="the status line's tokens")
        assert said in screen.state.usage, screen.state.usage
        shown = await open_usage(pilot)
        assert said in str(shown.query_one("#usage-heading", Static).render())
