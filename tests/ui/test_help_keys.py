"""The session view's keys are defined once (ui/keys.py): the bindings, the
palette, the help screen and the guide's key table (docs/guide/terminal-ui.md) follow from them."""

from __future__ import annotations

import re

from session_tui.ui import keys
from session_tui.ui.app import SessionApp
from session_tui.ui.screens.help import session_rows
from session_tui.ui.screens.session import SessionScreen
from tests.support import REPO, SAMPLES


def readme_keys() -> set[str]:
    """The keys in the first column of the key table of the terminal UI's guide."""
    table = (REPO / "docs" / "guide" / "terminal-ui.md").read_text()
    cells = [row.split("|")[1] for row in table.splitlines() if row.startswith("| ")]
    found = {key for cell in cells for key in re.findall(r"`([^`]+)`", cell)}
    return found | ({"Esc"} if any("Esc" in cell for cell in cells) else set())


def test_every_key_is_bound_listed_in_the_help_and_in_the_readme():
    bound = {(b.key, b.action) for b in SessionScreen.BINDINGS}
    in_readme = readme_keys()
    for key in keys.SESSION_KEYS:
        assert (key.key, key.action) in bound
        assert hasattr(SessionScreen, f"action_{key.action}"), key.action
        assert (key.shown, key.help.replace("`", "")) in session_rows()
        assert key.shown in in_readme, f"{key.shown} is not in the guide's key table"


async def test_the_palette_offers_each_action_with_its_key():
    app = SessionApp(str(SAMPLES / "tree" / "branched-summary.jsonl"), watch=False)
    async with app.run_test(size=(120, 40)):
        titles = {command.title: command.help for command in app.get_system_commands(app.screen)}
    for key in keys.SESSION_KEYS:
        if key.palette:
            assert titles[key.palette].endswith(f"({key.shown})")
