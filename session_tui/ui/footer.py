"""The key footer, mounted after a screen's first frame: the rows come
first (mounting a footer costs a frame's worth of styling)."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


def footer_after_first_frame(screen: Screen) -> None:
    def add() -> None:
        if screen.is_mounted and screen.is_attached:  # (not when the app quit before its first frame)
            screen.mount(Footer())

    screen.call_after_refresh(add)
