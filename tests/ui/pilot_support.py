"""Helpers for Pilot tests: poll a condition against a deadline."""

from __future__ import annotations

import time

from session_tui.ui.screens.session import SessionScreen


async def wait_for(pilot, predicate, timeout: float = 20.0, what: str = "condition"):
    """Until ``predicate()`` holds; an AssertionError naming ``what`` after ``timeout`` s. The deadline
    only ends a test that fails: a CI run on two loaded cores took over 5 s to show a palette's notice."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


async def session_screen(pilot) -> SessionScreen:
    await wait_for(
        pilot,
        lambda: (
            isinstance(pilot.app.screen, SessionScreen)
            and pilot.app.screen.state.rows is not None
            and bool(pilot.app.screen.query("#detail-body"))
        ),  # (mounted just after the first frame)
        what="the session view",
    )
    return pilot.app.screen


def cursor_line(screen) -> int | None:
    entry = screen.tree_widget.cursor_entry
    return screen.state.session.line_of(entry) if entry >= 0 else None


def visible_text(screen) -> str:
    tree = screen.tree_widget
    return "\n".join(tree.render_line(y).text for y in range(tree.size.height))


async def tail_armed(pilot, screen) -> None:
    """Wait until the session view watches its file: every write from then on is seen."""
    await wait_for(pilot, lambda: screen.state.tail_armed, what="the file watched")


async def detail_caught_up(pilot, screen) -> None:
    """Wait until the detail pane shows the entry under the cursor."""
    from session_tui.ui.widgets.detail import DetailPane

    pane = screen.query_one(DetailPane)
    await wait_for(pilot, lambda: pane.entry_shown == screen.tree_widget.cursor_entry, what="the detail pane")


async def picker_read(pilot, rows: int):
    """Wait for the picker with ``rows`` rows, every one read."""
    from session_tui.ui.screens.files import FilesScreen

    await wait_for(
        pilot,
        lambda: (
            isinstance(pilot.app.screen, FilesScreen)
            and len(pilot.app.screen.table.rows) == rows
            and all(info.known for info in pilot.app.screen.table.rows)
        ),
        what=f"the picker with its {rows} rows read",
    )
    return pilot.app.screen


def hold_index(monkeypatch):
    """A big file's full index waits until the returned function is called
    (on the app's loop): the preview before it, looked at on a machine
    quick enough to index the whole file before the view's first look."""
    held: list[SessionScreen] = []
    released = False
    index_file = SessionScreen.index_file

    def asked(screen: SessionScreen) -> None:
        if released:
            index_file(screen)
        else:
            held.append(screen)

    monkeypatch.setattr(SessionScreen, "index_file", asked)

    def release() -> None:
        nonlocal released
        released = True  # (asked after the first frame: maybe not yet, then at once when it is)
        for screen in held:
            index_file(screen)
        held.clear()

    return release
