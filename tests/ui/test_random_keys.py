"""No key sequence crashes the app: random keys (with waits) over every screen
of every sample, of the hostile sessions and of the picker; the app stays
alive and still answers a key afterwards."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from session_tui.ui.app import SessionApp
from session_tui.ui.screens.files import FilesScreen
from session_tui.ui.screens.help import HelpScreen
from session_tui.ui.screens.session import SessionScreen
from tests.hostile import hostile_dir
from tests.support import SAMPLES

from .pilot_support import wait_for

# every key a screen binds, but the ones that quit the app (q, ctrl+q, ctrl+c) on purpose
KEYS = [
    "j",
    "k",
    "g",
    "G",
    "l",
    "e",
    "E",
    "p",
    "c",
    "r",
    "x",
    "o",
    "slash",
    "n",
    "N",
    "escape",
    "a",
    "F",
    "t",
    "u",
    "s",
    "m",
    "h",
    "f",
    "question_mark",
    "ctrl+p",
    "enter",
    "space",
    "tab",
    "up",
    "down",
    "pageup",
    "pagedown",
    "home",
    "end",
    "y",
    "b",
    "d",
    "ctrl+s",
    "ctrl+f",
    "backspace",
    "left",
    "right",
    "1",
]
WAIT = "wait"  # let timers and workers run between keys

TARGETS = sorted(str(p.relative_to(SAMPLES)) for p in SAMPLES.rglob("*.jsonl")) + [
    ".",
    "tree",
    "hostile:tree",
    "hostile:chat",
    "hostile:pi",
    "hostile:claude",
    "hostile:codex",
    "hostile:astorlm",
    "hostile:",
]


def target_path(target: str, work: Path) -> str:
    """A private copy of the target (keys may edit files): a sample, a folder (the picker) or a hostile session."""
    if target.startswith("hostile:"):
        paths = hostile_dir(work)
        name = target.removeprefix("hostile:")
        return str(paths[name]) if name else str(work)
    shutil.copytree(SAMPLES, work / "s")
    return str(work / "s" / target)


async def drive(path: str, keys: list[str]) -> None:
    app = SessionApp(path, watch=True)
    async with app.run_test(size=(100, 30)) as pilot:
        for key in keys:
            if key == WAIT:
                await pilot.pause(0.1)
            else:
                await pilot.press(key)
        await pilot.pause()
        if not app.is_running:  # quit on purpose: the palette's "Quit" chosen (ctrl+p, u, Enter in a text view)
            assert app.return_code == 0, f"the app ended with {app.return_code}"
            return
        for _ in range(10):  # back to the session or the picker as a person would: Esc
            if isinstance(app.screen, (SessionScreen, FilesScreen)):
                break
            await pilot.press("escape")
            await pilot.pause()
        if isinstance(app.screen, SessionScreen) and app.screen.focused is not app.screen.tree_widget:
            app.screen.tree_widget.focus()  # the search box keeps "?" as text
        await pilot.press("question_mark")
        await pilot.pause()
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, HelpScreen) or isinstance(app.screen, FilesScreen),
            what="the app to answer a key",
        )


PARTS = 6  # the examples are spread over this many tests, run side by side (each well under 20 s)


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
@settings(
    max_examples=max(1, -(-int(os.environ.get("RANDOM_KEY_EXAMPLES", "30")) // PARTS)),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(data=st.data(), keys=st.lists(st.sampled_from([*KEYS, WAIT]), min_size=1, max_size=30))
def test_random_keys_never_crash_the_app(part, data, keys):
    """A sixth of the targets a test (a sixth of the examples each), so they run side by side."""
    target = data.draw(st.sampled_from(TARGETS[part::PARTS]), label="target")
    with tempfile.TemporaryDirectory() as work:
        asyncio.run(drive(target_path(target, Path(work)), keys))
