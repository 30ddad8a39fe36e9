"""Helpers for the screens' thread workers."""

from __future__ import annotations

import time

from textual.screen import Screen

SLOW_SECONDS = 0.3  # a worker that takes longer says what it is doing


class Slow:
    """A ``should_stop`` helper for a worker: once it has run SLOW_SECONDS,
    says so once in a notice (what it is doing, how to stop it)."""

    def __init__(self, screen: Screen, what: str) -> None:
        self.screen, self.what, self.started, self.told = screen, what, time.monotonic(), False

    def __call__(self) -> bool:
        if not self.told and time.monotonic() - self.started > SLOW_SECONDS:
            self.told = True
            self.screen.app.call_from_thread(self.screen.notify, self.what, timeout=3)
        return False
