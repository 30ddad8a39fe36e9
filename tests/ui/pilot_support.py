"""Helpers for Pilot tests: poll a condition against a deadline."""

from __future__ import annotations

import asyncio
import time

from session_tui.ui.screens.session import SessionScreen


async def wait_for(pilot, predicate, timeout: float = 5.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


async def session_screen(pilot) -> SessionScreen:
    await wait_for(
        pilot,
        lambda: isinstance(pilot.app.screen, SessionScreen) and pilot.app.screen.rows is not None,
        what="the session view",
    )
    return pilot.app.screen


def cursor_line(screen) -> int | None:
    entry = screen.tree_widget.cursor_entry
    return screen.session.line_of(entry) if entry >= 0 else None


def visible_text(screen) -> str:
    tree = screen.tree_widget
    return "\n".join(tree.render_line(y).text for y in range(tree.size.height))


async def settle(pilot) -> None:
    await asyncio.sleep(0)
    await pilot.pause(0.05)
