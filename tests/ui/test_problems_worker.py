"""The problem count never waits in silence: a look for problems that fails
says so in a notice, with the error's one line."""

from __future__ import annotations

import shutil

from session_tui.model.session import problems as problems_module
from session_tui.ui.app import SessionApp
from tests.support import SAMPLES

from .pilot_support import session_screen, wait_for


async def test_a_failed_look_for_problems_is_said_not_swallowed(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the disk went away \x1b]0;pwned\x07")

    monkeypatch.setattr(problems_module, "find_problems", broken)
    path = tmp_path / "s.jsonl"
    shutil.copy(SAMPLES / "chat" / "session-crash-dangling.jsonl", path)
    app = SessionApp(str(path), watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await session_screen(pilot)
        notices = lambda: [str(n.message) for n in app._notifications]  # noqa: E731
        await wait_for(pilot, lambda: any("could not look for problems" in n for n in notices()), 30, "the notice")
        said = next(n for n in notices() if "could not look for problems" in n)
        assert "RuntimeError: the disk went away" in said and "\x1b" not in said
