"""Secrets in the TUI: the list (`S`, the palette's "Secrets"), the detail
pane's mask (`M`), and everything masked when started with --redact."""

from __future__ import annotations

from session_tui.model.privacy.secrets import mark
from session_tui.ui.app import SessionApp
from session_tui.ui.screens.secrets import SecretsScreen
from session_tui.ui.screens.text_view import TextViewScreen
from tests.commands.test_secrets_cli import ANTHROPIC, GITHUB, SECRETS, secret_session

from .pilot_support import cursor_line, detail_caught_up, session_screen, visible_text, wait_for


def body(screen) -> str:
    return screen.query_one("#detail-body").text


async def test_the_secrets_list_jumps_to_one(tmp_path):
    path, data = secret_session(tmp_path)
    async with SessionApp(str(path), watch=False).run_test(size=(140, 40)) as pilot:
        screen = await session_screen(pilot)
        await pilot.press("S")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, SecretsScreen), what="the secrets list")
        listed = pilot.app.screen
        assert [(f.line, f.kind) for f in listed.found][:3] == [
            (2, "anthropic-key"),
            (3, "github-token"),
            (3, "aws-access-key"),
        ]
        shown = "\n".join(str(option.prompt) for option in listed.query_one("OptionList")._options)
        assert "sk-a…(108 chars)" in shown and not any(secret in shown for secret in SECRETS)
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: pilot.app.screen is screen, what="back on the tree")
        assert cursor_line(screen) == 3
    assert path.read_bytes() == data


async def test_the_detail_pane_masks_secrets_on_demand(tmp_path):
    path, _ = secret_session(tmp_path)
    async with SessionApp(str(path), watch=False).run_test(size=(140, 40)) as pilot:
        screen = await session_screen(pilot)
        await detail_caught_up(pilot, screen)
        assert ANTHROPIC in body(screen)  # the last prompt, as written
        await pilot.press("M")
        await wait_for(pilot, lambda: ANTHROPIC not in body(screen), what="the secret masked")
        assert mark("anthropic-key", ANTHROPIC) in body(screen)
        await pilot.press("M")
        await wait_for(pilot, lambda: ANTHROPIC in body(screen), what="the secret shown again")


async def test_started_with_redact_no_view_shows_a_secret(tmp_path):
    path, data = secret_session(tmp_path)
    async with SessionApp(str(path), watch=False, redact=True).run_test(size=(160, 40)) as pilot:
        screen = await session_screen(pilot)
        await detail_caught_up(pilot, screen)
        assert mark("anthropic-key", ANTHROPIC) in body(screen)
        rows = visible_text(screen)
        assert "[REDACTED:" in rows and not any(secret[:40] in rows for secret in SECRETS)
        await pilot.press("M")  # the mask stays on
        assert ANTHROPIC not in body(screen)
        await pilot.press("g", "j")  # the tool call, its arguments JSON in a string
        await detail_caught_up(pilot, screen)
        assert GITHUB not in body(screen) and mark("github-token", GITHUB) in body(screen)
        await pilot.press("r")  # raw JSON
        await wait_for(pilot, lambda: "raw JSON" in str(screen.query_one("#detail-header").render()), what="raw")
        assert GITHUB not in body(screen) and "[REDACTED:github-token:" in body(screen)
        await pilot.press("c")  # the context
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, TextViewScreen), what="the context view")
        text = pilot.app.screen.query_one("#text").text
        assert "[REDACTED:" in text and not any(secret in text for secret in SECRETS)
    assert path.read_bytes() == data
