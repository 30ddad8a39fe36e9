"""Keeping the index current from a watcher: the live view hands over the
files it saw change, and a thread of its own catches the index up with them
(at most every SPACING seconds, only those files), so the next search finds
their new entries without reading them first."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable

from ..errors import SessionError
from .database import open_database
from .indexer import catch_up

SPACING = 2.0  # seconds between two catch-ups (an agent writes many lines a second)


class IndexFeeder:
    def __init__(self, cache_dir: str | None = None, spacing: float = SPACING) -> None:
        self.cache_dir, self.spacing = cache_dir, spacing
        self.caught_up = 0  # catch-ups done (a test waits on it)
        self._pending: set[str] = set()
        self._stopped = False
        self._wake = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="index-feeder", daemon=True)
        self._thread.start()

    def changed(self, paths: Iterable[str]) -> None:
        with self._wake:
            self._pending.update(paths)
            self._wake.notify()

    def close(self) -> None:
        with self._wake:
            self._stopped = True
            self._wake.notify()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        try:
            db = open_database(self.cache_dir)
        except (sqlite3.Error, OSError):
            return  # (no index to keep: searches catch up themselves)
        try:
            while True:
                with self._wake:
                    while not self._pending and not self._stopped:
                        self._wake.wait()
                    if self._stopped:
                        return
                    batch, self._pending = sorted(self._pending), set()
                try:
                    catch_up(db, batch)
                except (SessionError, OSError, sqlite3.Error):
                    pass  # (the next search catches up, and says what is wrong)
                self.caught_up += 1
                with self._wake:  # (a pause between catch-ups, cut short by close)
                    self._wake.wait_for(lambda: self._stopped, timeout=self.spacing)
        finally:
            db.close()
