"""Claude Code's command records in the session view: the tree's row and
the detail pane show the command typed (``❯ /model opus``) and its output,
never the tags; a tool result shows what its call ran, a long one its first
lines (o reads all); tokens per response in short form."""

from __future__ import annotations

from session_tui.model.privacy.secrets import mark
from session_tui.ui.app import SessionApp
from session_tui.ui.screens.text_view import TextViewScreen
from session_tui.ui.widgets.detail import FOLD_LINES
from tests.builders.claude import session_with_commands
from tests.commands.test_export import HOSTILE
from tests.commands.test_secrets_cli import ANTHROPIC, ANTHROPIC_TEXT
from tests.support import REPO

from .pilot_support import detail_caught_up, session_screen, visible_text, wait_for

COMMANDS = REPO / "tests" / "data" / "commands" / "claude" / "50a4beee-fccb-40ea-8981-cf5c4b706f30.jsonl"


def body(screen) -> str:
    return screen.query_one("#detail-body").text


def header(screen) -> str:
    return str(screen.query_one("#detail-header").render())


async def go_to_line(pilot, screen, line: int) -> None:
    rows = screen.state.rows
    row = next(i for i in range(len(rows)) if screen.state.session.line_of(rows.at(i).entry) == line)
    screen.tree_widget.move_to(row)
    await wait_for(
        pilot, lambda: screen.state.session.line_of(screen.tree_widget.cursor_entry) == line, what=f"line {line}"
    )
    await detail_caught_up(pilot, screen)


async def test_the_pane_and_the_rows_show_the_command_typed():
    async with SessionApp(str(COMMANDS), watch=False).run_test(size=(160, 48)) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("g")
        await wait_for(pilot, lambda: "❯ /model opus" in visible_text(screen), what="the command row")
        rows = visible_text(screen)
        assert "<command-" not in rows and "<local-command" not in rows
        assert "⎿ Set model to `Opus 5.5`" in rows and "(caveat:" in rows
        await go_to_line(pilot, screen, 5)  # the command
        assert body(screen).startswith("❯ /model opus") and "<command" not in body(screen)
        assert "user command" in header(screen)
        await go_to_line(pilot, screen, 6)  # its output
        assert body(screen).startswith("Set model to `Opus 5.5`") and "local-command" not in body(screen)
        await pilot.press("h")  # /context's output is display-only (Claude Code never sends it): a quiet row
        await wait_for(pilot, lambda: screen.state.show_quiet, what="the quiet rows")
        await go_to_line(pilot, screen, 339)  # /context's coloured output: the colours dropped, no ␛
        assert "Context usage" in body(screen) and "␛" not in body(screen) and "\x1b" not in body(screen)
        await go_to_line(pilot, screen, 190)  # bash mode
        assert body(screen) == "❯ ! ls -1"
        await go_to_line(pilot, screen, 30)  # a response: its tokens in short form
        assert "in 3.2k · out 47" in header(screen)
        await go_to_line(pilot, screen, 99)  # a failed result: marked, with what its call ran
        assert body(screen).startswith("✗ failed · ← result of Bash") and "$ echo S10 && false" in body(screen)


async def test_a_long_result_shows_its_first_lines_and_o_reads_all(tmp_path):
    path = session_with_commands(tmp_path / "s.jsonl")
    async with SessionApp(str(path), watch=False).run_test(size=(160, 48)) as pilot:
        screen = await session_screen(pilot)
        await go_to_line(pilot, screen, 9)  # seq 100's output
        shown = body(screen)
        assert "$ seq 100" in shown and "\n1\n2\n" in shown and "\n100" not in shown
        assert shown.endswith("more lines — press o to read all")
        assert shown.count("\n") == FOLD_LINES  # the folded lines and the note
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, TextViewScreen), what="the full output")
        assert "\n100" in pilot.app.screen.query_one("#text").text


async def test_a_hostile_or_secret_command_stays_inert_and_masked(tmp_path):
    evil = " ".join(HOSTILE.values())
    path = session_with_commands(tmp_path / "s.jsonl", args=f"{evil} {ANTHROPIC_TEXT}", output=evil)
    async with SessionApp(str(path), watch=False, redact=True).run_test(size=(160, 48)) as pilot:
        screen = await session_screen(pilot)
        await go_to_line(pilot, screen, 2)
        shown = body(screen)
        assert shown.startswith("❯ /model ") and "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown
        assert ANTHROPIC not in shown and mark("anthropic-key", ANTHROPIC) in shown
        rows = visible_text(screen)
        assert "❯ /model" in rows and "\x1b" not in rows and ANTHROPIC[:20] not in rows
