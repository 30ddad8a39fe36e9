"""Redaction is handed down, never switched on for the process (issue 40:
no module-level switches): a ``--redact`` app or command line masks what
it shows, and an app or a text beside it in the same process shows what
the file holds."""

from __future__ import annotations

import ast
from pathlib import Path

import session_tui
from session_tui.cli import main
from session_tui.model.privacy.secrets import mark
from session_tui.model.sanitize import inert
from session_tui.ui.app import SessionApp
from tests.commands.test_secrets_cli import ANTHROPIC, secret_session

from .ui.pilot_support import detail_caught_up, session_screen, visible_text

PACKAGE = Path(session_tui.__file__).parent
#: where a process-wide masking switch lived, or would live again
MASKING = [
    PACKAGE / "model" / "sanitize.py",
    *(PACKAGE / "model" / "privacy").glob("*.py"),
    PACKAGE / "inert_output.py",
]


def test_no_masking_module_rebinds_a_global():
    rebinding = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in MASKING
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Global)
    ]
    assert rebinding == []


def test_inert_masks_nothing_after_a_redacting_command_line(tmp_path, capsys):
    path, _ = secret_session(tmp_path)
    main(["check", str(path), "--redact"])
    main(["export", str(path), "--to", "md", "--redact"])
    out = capsys.readouterr().out
    assert ANTHROPIC not in out and mark("anthropic-key", ANTHROPIC)[1:-1] in out  # (Markdown escapes its brackets)
    assert inert(f"key {ANTHROPIC}") == f"key {ANTHROPIC}"


async def test_an_app_with_redact_and_one_without_show_each_their_own(tmp_path):
    path, _ = secret_session(tmp_path)
    masking = SessionApp(str(path), watch=False, redact=True)  # made first, alive throughout
    async with SessionApp(str(path), watch=False).run_test(size=(160, 40)) as pilot:
        screen = await session_screen(pilot)
        await detail_caught_up(pilot, screen)
        assert ANTHROPIC[:40] in visible_text(screen) and "[REDACTED:" not in visible_text(screen)
    async with masking.run_test(size=(160, 40)) as pilot:
        screen = await session_screen(pilot)
        await detail_caught_up(pilot, screen)
        assert ANTHROPIC[:40] not in visible_text(screen) and "[REDACTED:" in visible_text(screen)
    assert inert(ANTHROPIC) == ANTHROPIC
