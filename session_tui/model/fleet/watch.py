"""Keeping a fleet current: a watch on its local folders (watchfiles: the
OS says which files changed, nothing is polled), a poll of its remote ones,
and a tick for what time alone changes. Each change is handed on as the
agents whose state, tool or alerts changed."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from ..formats.opencode.database import changed_database
from ..reading.source import is_url
from .fleet import Agent, Fleet

TICK = 1.0  # seconds between two looks at what time alone changes
REMOTE_POLL = 2.0  # seconds between two listings of a remote folder
SNAPSHOT, STATE = "snapshot", "state"

#: ``(event, agents)``: SNAPSHOT once with every agent, then STATE with those that changed
Emit = Callable[[str, list[Agent]], None]


class _Stop:
    """watchfiles' stop event, asking ``should_stop``."""

    def __init__(self, should_stop: Callable[[], bool]) -> None:
        self.should_stop = should_stop

    def is_set(self) -> bool:
        return self.should_stop()


def follow(fleet: Fleet, emit: Emit, should_stop: Callable[[], bool]) -> None:
    """Scan, emit the snapshot, then emit each change until ``should_stop``."""
    fleet.scan()
    emit(SNAPSHOT, [agent for _, agent in fleet.rows()])
    local = [root for root in fleet.roots if not is_url(root)]
    watched = [os.path.dirname(r) if changed_database(r) else r for r in local]  # (a database: its WAL beside it)
    remote = len(local) < len(fleet.roots)
    polled = time.monotonic()

    def step(paths: set[str]) -> None:
        nonlocal polled
        changed = fleet.update(paths) if paths else []
        if remote and time.monotonic() - polled >= REMOTE_POLL:
            polled = time.monotonic()
            changed += fleet.scan()
        changed += fleet.tick()
        if changed:
            emit(STATE, list({agent.path: agent for agent in changed}.values()))

    if not local:
        while not should_stop():
            time.sleep(TICK)
            step(set())
        return
    from watchfiles import watch

    caught_up = False
    for changes in watch(
        *dict.fromkeys(watched),
        yield_on_timeout=True,
        rust_timeout=int(TICK * 1000),
        debounce=30,
        step=10,
        stop_event=_Stop(should_stop),
        raise_interrupt=False,
        ignore_permission_denied=True,  # (an unreadable folder is passed over by the scan, which says so)
    ):
        if not caught_up:  # what was written between the scan and the watch's start
            caught_up = True
            emit_changed = fleet.scan()
            if emit_changed:
                emit(STATE, emit_changed)
        step({path for _, path in changes})
        if should_stop():
            return
