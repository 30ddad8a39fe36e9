"""What the model raises, and the poll that stops long work: shared by the
session and the format adapters without either importing the other."""

from __future__ import annotations

from collections.abc import Callable

STOP_EVERY = 4096  # entries between two polls of should_stop


class SessionError(Exception):
    """A file that cannot be read as a session; ``str()`` is a one-line reason."""


class Cancelled(Exception):
    """Indexing was stopped by ``should_stop``; the session holds a valid prefix."""


def check_stop(should_stop: Callable[[], bool] | None, count: int) -> None:
    """Raise Cancelled every STOP_EVERY calls once ``should_stop()`` is true."""
    if should_stop is not None and not count % STOP_EVERY and should_stop():
        raise Cancelled()
