"""One sample per format in the TUI: its summary/compaction node, its
dangling call, and what is special about Claude Code transcripts."""

from __future__ import annotations

import pytest

from session_tui.ui.app import SessionApp
from session_tui.ui.screens.confirm import ConfirmScreen
from session_tui.ui.screens.session import SessionScreen
from session_tui.ui.screens.text_view import TextViewScreen
from session_tui.ui.widgets.status import StatusLine
from tests.support import SAMPLES

from .pilot_support import session_screen, visible_text, wait_for

CLAUDE = SAMPLES / "claude"
SUMMARIES = [
    ("pi", SAMPLES / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"),
    ("claude", CLAUDE / "d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl"),
    ("codex", SAMPLES / "codex" / "rollout-2026-03-14T10-30-12-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl"),
]
CRASHES = [
    ("pi", SAMPLES / "pi" / "2026-03-15T16-40-11-052Z_876adc47-614e-495d-ac53-be28b587216d.jsonl"),
    ("claude", CLAUDE / "e400ea4e-b13c-4400-a7d6-45a85f4a56c7.jsonl"),
    ("codex", SAMPLES / "codex" / "rollout-2026-03-16T08-20-10-019cf5bb-2c70-734a-8f4d-7f8b69651b42.jsonl"),
    ("astorlm", SAMPLES / "astorlm" / "5e2ed5fa-83f0-43d9-8687-965f5d9f3315.jsonl"),
]
SUBAGENT = CLAUDE / "5b0c7e21-9d3a-4f6e-8a2b-3c4d5e6f7a80.jsonl"


def app_for(path) -> SessionApp:
    return SessionApp(str(path), watch=False)


def all_rows(screen) -> str:
    tree = screen.tree_widget
    return "\n".join(tree.render_line(y).text for y in range(len(screen.state.rows)))


@pytest.mark.parametrize("fmt, path", SUMMARIES, ids=[f for f, _ in SUMMARIES])
async def test_summary_node_is_shown(fmt, path):
    async with app_for(path).run_test(size=(140, 80)) as pilot:
        screen = await session_screen(pilot)
        assert screen.state.session.format.name == fmt
        await pilot.press("g")
        assert "◆ summary" in all_rows(screen)


@pytest.mark.parametrize("fmt, path", CRASHES, ids=[f for f, _ in CRASHES])
async def test_dangling_call_is_marked(fmt, path):
    async with app_for(path).run_test(size=(140, 80)) as pilot:
        screen = await session_screen(pilot)
        assert screen.state.session.format.name == fmt
        await wait_for(pilot, lambda: screen.state.problems, what="the problems")
        dangling = [p.line for p in screen.state.problems if p.kind == "dangling_tool_call"]
        assert dangling
        await pilot.press("g", "e")  # the first problem
        rows = {text.split()[0]: text for text in all_rows(screen).splitlines() if text.strip()}
        assert "⚠ call without result" in rows[str(dangling[0])]


async def test_claude_response_lines_are_grouped_and_title_shown():
    async with app_for(CLAUDE / "d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl").run_test(size=(160, 60)) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("g")
        rows = {text.split()[0]: text for text in visible_text(screen).splitlines() if text.strip()}
        assert "asst" in rows["3"] and "┆" in rows["4"] and "┆" in rows["5"]  # one response, three lines
        assert "┆" not in rows["6"]
        await wait_for(
            pilot,
            lambda: "Fix invoice rounding" in screen.query_one(StatusLine).text.plain,
            what="the title in the status line",
        )


async def test_claude_subagent_opens_from_its_call_and_esc_comes_back():
    async with app_for(SUBAGENT).run_test(size=(160, 40)) as pilot:
        screen = await session_screen(pilot)
        await wait_for(pilot, lambda: screen.tree_widget.subagents, what="the sub-agent link")
        call = next(iter(screen.tree_widget.subagents))
        await pilot.press("g")
        assert "⤷ sub-agent agent-a1b2c3d4e5f6a7b8c" in visible_text(screen)
        screen.tree_widget.move_to(screen.state.rows.row_of(call))
        await pilot.press("s")
        await wait_for(
            pilot,
            lambda: (
                pilot.app.screen is not screen
                and isinstance(pilot.app.screen, SessionScreen)
                and pilot.app.screen.state.rows is not None
            ),
            what="the sub-agent view",
        )
        assert pilot.app.screen.path.endswith("agent-a1b2c3d4e5f6a7b8c.jsonl")
        assert pilot.app.screen.state.session.entries == 4
        await pilot.press("escape")
        await wait_for(pilot, lambda: pilot.app.screen is screen, what="back to the session")


async def test_a_sub_agent_gone_before_its_view_opens_says_so_and_comes_back(tmp_path):
    """The file's view is the first screen: a second view that cannot open
    goes back to it (it once quit the app, counting a blank screen under the first)."""
    async with app_for(SUBAGENT).run_test(size=(160, 40)) as pilot:
        screen = await session_screen(pilot)
        pilot.app.push_screen(SessionScreen(str(tmp_path / "agent-gone.jsonl")))
        await wait_for(pilot, lambda: pilot.app.screen is screen, what="back to the session")
        await wait_for(
            pilot, lambda: [n.title for n in pilot.app._notifications] == ["Cannot open"], what="the one-line reason"
        )
        assert pilot.app.is_running


async def test_claude_metadata_listed_and_leaf_move_offers_a_fork():
    async with app_for(CLAUDE / "d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl").run_test(size=(160, 40)) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, TextViewScreen), what="the metadata list")
        await pilot.press("escape")
        await wait_for(pilot, lambda: pilot.app.screen is screen, what="back")
        await pilot.press("g", "a")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="the fork offer")
        assert "Fork at this entry instead?" in str(pilot.app.screen.title_text)


async def test_codex_assistant_entry_shows_the_tokens_of_its_turn():
    path = SUMMARIES[2][1]
    async with app_for(path).run_test(size=(160, 40)) as pilot:
        screen = await session_screen(pilot)
        session = screen.state.session
        entry = next(e for e in range(session.entries) if session.format.entry_tokens(session, e) is not None)
        screen.tree_widget.move_to(screen.state.rows.row_of(entry))
        await wait_for(
            pilot,
            lambda: " in " in str(screen.query_one("#detail-header").render()),
            what="the tokens in the detail header",
        )
