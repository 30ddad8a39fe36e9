"""Every figure said one way on every screen (issue 36): what the picker
says of a file is what the session view says; counts agree after edits."""

from __future__ import annotations

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
