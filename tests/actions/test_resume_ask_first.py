"""The session view's `R` asks before it writes into the client's folders:
cancelled, nothing is written and the client never runs. And the path
checks on their own."""

from __future__ import annotations

import os
import shutil

import pytest

from session_tui.model.checked_paths import ResumeRefused, checked_name, inside
from session_tui.ui.app import SessionApp
from session_tui.ui.screens.confirm import ConfirmScreen
from tests.ui.pilot_support import session_screen, wait_for

from .stand_ins import stand_in
from .test_resume_cli import CLAUDE


async def test_R_on_a_fork_asks_first_and_a_cancel_writes_nothing(tmp_path, monkeypatch):
    source = shutil.copy(CLAUDE, tmp_path)
    record = tmp_path / "ran"
    stand_in(tmp_path / "bin", "claude", f"open({str(record)!r}, 'w').write('ran')")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    async with SessionApp(source).run_test(size=(120, 40)) as pilot:
        await session_screen(pilot)
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="the plan")
        dialog = pilot.app.screen
        assert "first: fork the path to this entry" in dialog.body
        assert dialog.choices == [("run", "Write, then run claude")]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(pilot.app.screen, ConfirmScreen), what="the plan gone")
    assert not (tmp_path / ".claude").exists() and not record.exists()


def test_inside_resolves_and_keeps_to_its_root(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "out").symlink_to(tmp_path)
    assert inside(str(tmp_path / "root"), "a", "b.jsonl") == str(tmp_path / "root" / "a" / "b.jsonl")
    for parts in (("..", "x"), ("/etc/passwd",), ("out", "x"), ("a/../../x",)):
        with pytest.raises(ResumeRefused):
            inside(str(tmp_path / "root"), *parts)


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "-x.jsonl", "a\nb", "a\0b", "a\\b"])
def test_a_name_is_a_name(name):
    with pytest.raises(ResumeRefused):
        checked_name(name, "f")
    assert checked_name("rollout-2026-03-14T10-30-12-x.jsonl", "f").startswith("rollout")
