"""A library imported without one of its own imports that it needs only later.

detect-secrets imports ``requests`` at the top of its plugins (64 ms of a
process's start: urllib3, charset-normalizer, idna, http.client) for the
functions that verify a key against its service, which session-tui never
calls. While its plugins are imported, ``deferred("requests")`` puts a
stand-in in ``sys.modules``; the stand-in imports the real module the first
time anything is asked of it, and is out of ``sys.modules`` once the block
ends, so any later ``import requests`` gets the real one.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class _StandIn(types.ModuleType):
    """A module not imported yet: the first attribute asked of it imports it."""

    def __getattr__(self, attr: str) -> Any:
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), attr)


@contextmanager
def deferred(name: str) -> Iterator[None]:
    """Within the block, ``import NAME`` gives a stand-in that imports NAME on first use."""
    if name in sys.modules:
        yield
        return
    stand_in = _StandIn(name)
    sys.modules[name] = stand_in
    try:
        yield
    finally:
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]
