"""The session view driven as a person would: real files, real Pilot."""

from __future__ import annotations

import shutil

from session_tui.ui.app import SessionApp
from session_tui.ui.screens.help import HelpScreen
from session_tui.ui.screens.problems import ProblemsScreen
from session_tui.ui.screens.text_view import TextViewScreen
from tests.support import SAMPLES

from .pilot_support import cursor_line, session_screen, wait_for

BRANCHED = SAMPLES / "tree" / "branched-summary.jsonl"
CRASH = SAMPLES / "tree" / "crash-torn.jsonl"


def app_for(path, **kwargs) -> SessionApp:
    return SessionApp(str(path), watch=kwargs.pop("watch", False), **kwargs)


async def test_opens_on_the_active_leaf_and_navigates():
    async with app_for(BRANCHED).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        assert cursor_line(screen) == 24
        await pilot.press("k")
        assert cursor_line(screen) == 23
        await pilot.press("up", "up")
        assert cursor_line(screen) == 21
        await pilot.press("g")
        assert cursor_line(screen) == 2
        await pilot.press("j")
        assert cursor_line(screen) == 3
        await pilot.press("G")
        assert cursor_line(screen) == 24
        await pilot.press("pageup")
        assert screen.tree_widget.cursor == 0
        await pilot.press("l")
        assert cursor_line(screen) == 24
        await wait_for(
            pilot, lambda: "Committed as 5d2e8a1." in screen.query_one("#detail-body").text, what="the detail pane"
        )


async def test_fold_and_unfold_a_branch():
    async with app_for(BRANCHED).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        rows = len(screen.state.rows)
        await pilot.press("g", *["j"] * 7)
        assert cursor_line(screen) == 9  # the head of the abandoned branch
        await pilot.press("enter")
        assert len(screen.state.rows) == rows + 3
        await pilot.press("space")
        assert len(screen.state.rows) == rows


async def test_search_next_and_previous():
    async with app_for(BRANCHED).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        # (each search runs in a thread: its jump may come after the keys are handled)
        await pilot.press("g", "slash", *"round_half", "enter")
        await wait_for(pilot, lambda: cursor_line(screen) == 8, what="the first match, line 8")
        await pilot.press("n")
        await wait_for(pilot, lambda: cursor_line(screen) == 15, what="the next match, line 15")
        await pilot.press("N")
        await wait_for(pilot, lambda: cursor_line(screen) == 8, what="the previous match, line 8")
        await pilot.press("slash", *"72e56246", "enter")  # an id
        await wait_for(pilot, lambda: cursor_line(screen) == 2, what="the id's line, 2")


async def test_a_search_notice_shows_the_query_literally():
    async with app_for(BRANCHED).run_test(size=(120, 40), notifications=True) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("slash", *"[/]x", "enter")  # not found: the notice must not read it as markup
        await wait_for(
            pilot,
            lambda: any("[/]x" in str(t.render()) for t in pilot.app.screen.query("Toast")),
            what="the not-found notice",
        )
        assert cursor_line(screen) == 24


async def test_jump_to_problems_and_the_problems_list():
    async with app_for(CRASH).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: screen.state.problems is not None, what="problems")
        await pilot.press("g", "e")
        assert cursor_line(screen) == 6  # the dangling call
        await pilot.press("e")
        assert screen.tree_widget.cursor_entry == -1  # the pending (torn) row
        await pilot.press("E")
        assert cursor_line(screen) == 6
        await pilot.press("g", "p")
        assert isinstance(pilot.app.screen, ProblemsScreen)
        await pilot.press("enter")
        await wait_for(pilot, lambda: pilot.app.screen is screen, what="the list to close")
        assert cursor_line(screen) == 6


async def test_call_result_jump_and_raw_toggle():
    async with app_for(BRANCHED).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("g", "j", "j")
        assert cursor_line(screen) == 4
        await pilot.press("x")
        assert cursor_line(screen) == 5
        await pilot.press("x")
        assert cursor_line(screen) == 4
        body = screen.query_one("#detail-body")
        await wait_for(pilot, lambda: "→ run_command" in body.text, what="the call in the detail pane")
        assert '"command": "pytest -q"' in body.text  # arguments pretty-printed
        await pilot.press("r")
        await wait_for(pilot, lambda: '"tool_calls"' in body.text, what="raw JSON")


async def test_context_view_and_help():
    async with app_for(BRANCHED).run_test(size=(120, 40)) as pilot:
        await session_screen(pilot)
        await pilot.press("c")  # (the context is built in a thread)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, TextViewScreen), what="the context view")
        assert "7 messages" in pilot.app.screen.title_text
        assert "## Goal" in pilot.app.screen.body
        await pilot.press("escape", "question_mark")
        assert isinstance(pilot.app.screen, HelpScreen)
        await pilot.press("escape")


async def test_long_output_is_capped_with_a_key_to_read_all():
    async with app_for(SAMPLES / "tree" / "huge-output.jsonl").run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("k")
        body = screen.query_one("#detail-body")
        await wait_for(pilot, lambda: "more lines — press o to read all" in body.text, what="the cap")
        await pilot.press("o")
        assert isinstance(pilot.app.screen, TextViewScreen)
        assert pilot.app.screen.body.count("\n") >= 14000


def _palette_hits(pilot) -> int:
    from textual.command import CommandList

    found = pilot.app.screen.query(CommandList)
    return found.first().option_count if found else 0


async def test_palette_jumps_to_an_entry_by_id():
    async with app_for(BRANCHED).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("ctrl+p", *"e7588db2")
        await wait_for(pilot, lambda: _palette_hits(pilot) > 0, what="the palette's hit")
        await pilot.press("enter")
        await wait_for(pilot, lambda: cursor_line(screen) == 19, what="the jump")


async def test_directory_lists_sessions_and_opens_one(tmp_path):
    for name in ("branched-summary.jsonl", "crash-torn.jsonl"):
        shutil.copy(SAMPLES / "tree" / name, tmp_path / name)
    async with SessionApp(str(tmp_path), watch=False).run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: pilot.app.screen.table.rows and pilot.app.screen.listed, what="the rows")
        await pilot.press("enter")
        screen = await session_screen(pilot)
        assert screen.state.session.entries in (6, 22)
        await pilot.press("escape")
        await wait_for(pilot, lambda: pilot.app.screen.__class__.__name__ == "FilesScreen", what="the list")


async def test_a_pi_session_opens_on_its_last_entry():
    from .pilot_support import visible_text

    path = SAMPLES / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"
    async with app_for(path).run_test(size=(140, 50)) as pilot:
        screen = await session_screen(pilot)
        assert cursor_line(screen) == 36
        await pilot.press("g")
        text = visible_text(screen)
        assert "model →" in text and "◆ summary" in text and "⋔" in text


async def test_a_file_that_is_not_a_session_is_refused_in_the_list(tmp_path):
    (tmp_path / "notes.jsonl").write_text('{"foo": 1}\n')
    async with SessionApp([str(tmp_path)], watch=False).run_test(size=(120, 40), notifications=True) as pilot:
        await wait_for(pilot, lambda: pilot.app.screen.table.rows and pilot.app.screen.listed, what="the rows")
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: any("not a session (no known format" in str(t.render()) for t in pilot.app.screen.query("Toast")),
            what="the refusal",
        )
        assert pilot.app.screen.__class__.__name__ == "FilesScreen"  # still the list: no crash


async def test_codex_rolled_back_turn_is_greyed():
    path = SAMPLES / "codex" / "rollout-2026-03-14T10-30-12-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl"
    async with app_for(path).run_test(size=(140, 50)) as pilot:
        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: screen.tree_widget.off_branch, what="the rolled-back turn")
        await pilot.press("g")
        lines = {
            text.split()[0]: text
            for text in (screen.tree_widget.render_line(y).text for y in range(30))
            if text.strip()
        }
        assert "○" in lines["21"] and "●" in lines["33"]


async def test_problems_list_with_two_problems_on_one_line(tmp_path):
    """The most common crashed run: one response with two parallel calls and no result."""
    from tests.builders.tree import chain, message

    calls = [{"id": f"c{n}", "type": "function", "function": {"name": "run", "arguments": "{}"}} for n in (1, 2)]
    path = tmp_path / "crash.jsonl"
    path.write_bytes(chain(2) + message("a", "m1", role="assistant", content=None, tool_calls=calls))
    async with app_for(path).run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        await wait_for(
            pilot, lambda: screen.state.problems is not None and len(screen.state.problems) == 2, what="problems"
        )
        await pilot.press("g", "p")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ProblemsScreen), what="the problems list")
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: pilot.app.screen is screen, what="back on the tree")
        assert cursor_line(screen) == 4


async def test_an_action_on_a_view_being_torn_down_does_nothing(tmp_path):
    """(Under load a key could reach a view already popped: its widgets gone, a query raised NoMatches.)"""
    from session_tui.ui.screens.session import SessionScreen

    async with SessionApp([str(SAMPLES / "tree")]).run_test(size=(120, 30)) as pilot:
        app = pilot.app
        app.push_screen(SessionScreen(str(SAMPLES / "tree" / "branched-summary.jsonl")))
        view = await session_screen(pilot)
        app.pop_screen()
        await pilot.pause()
        for action in ("compare", "go_leaf", "next_problem", "branches", "usage"):
            await view.run_action(action)
        view.state.live = "deleted"  # a status field assigned on it: no line to show, nothing raised
        await pilot.pause()
        assert app.screen is not view and not app.return_value
