"""Every colour session text is drawn in passes WCAG AA (4.5:1; the tree's
guide lines, which are not text, 3:1) against the background it is drawn
on, in the default dark and light themes: measured on the widgets as the
app styles them."""

from __future__ import annotations

import pytest

from session_tui.ui.app import SessionApp
from session_tui.ui.colours import DECORATIVE, contrast
from session_tui.ui.widgets.entry_tree import EntryTree
from session_tui.ui.widgets.status import StatusLine
from tests.support import SAMPLES

from .pilot_support import session_screen


def pairs(widget) -> list[tuple[str, float]]:
    background = widget.styles.background
    out = []
    for name in sorted(widget.COMPONENT_CLASSES):
        color = widget.get_component_rich_style(name).color
        if name.endswith("--cursor") or color is None:  # (a background, not text)
            continue
        rgb = color.get_truecolor()
        out.append((name, contrast((rgb.red, rgb.green, rgb.blue), (background.r, background.g, background.b))))
    return out


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_text_colours_pass_wcag_aa(theme):
    app = SessionApp(str(SAMPLES / "tree" / "branched-summary.jsonl"), watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await session_screen(pilot)
        app.theme = theme
        await pilot.pause()
        measured = pairs(screen.query_one(EntryTree)) + pairs(screen.query_one(StatusLine))
        assert len(measured) >= 15
        for name, ratio in measured:
            needed = 3.0 if name.split("--")[-1] in DECORATIVE else 4.5
            assert ratio >= needed, f"{theme}: {name} {ratio:.2f}:1"


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_the_picker_colours_pass_wcag_aa(theme, tmp_path, monkeypatch):
    from session_tui.ui.screens.files import FilesScreen
    from session_tui.ui.widgets.picker_table import PickerTable

    from .pilot_support import wait_for

    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(tmp_path / "cache"))
    app = SessionApp([str(SAMPLES / "tree")], watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, FilesScreen))
        app.theme = theme
        await pilot.pause()
        for name, ratio in pairs(pilot.app.screen.query_one(PickerTable)):
            assert ratio >= 4.5, f"{theme}: {name} {ratio:.2f}:1"
