"""``archive push --follow``: push, then keep pushing what the agents append.

One process, one connection: every session file under the paths is pushed
as a plain push does, then the folders are watched as the live watch
watches them (watchfiles: the OS says which files changed, nothing is
polled) and each changed ``*.jsonl`` is pushed again at once — only its new
lines, by byte offset — so a line is in the archive well within a second
of its write. A file that appears (a new session, a folder of them moved
in) is pushed as it is found.

It stops when ``should_stop`` says so, looked at between two files and at
least every ``TICK`` seconds while nothing changes: never inside a file's
transaction. The machine's push lock is held only while a round of
changes is pushed, so a push of the same machine from cron takes its turn
between two rounds rather than waiting for the follower to end.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable

from ..catalog.cache import SESSION_SUFFIX, absolute, list_session_files
from .push import Pushed, Pusher, Totals

TICK = 0.5  # seconds between two looks at ``should_stop`` while nothing changes
DEBOUNCE_MS, STEP_MS = 30, 10  # as the live watch's: a burst of writes is one round, soon


class _Stop:
    """watchfiles' stop event, asking ``should_stop``."""

    def __init__(self, should_stop: Callable[[], bool]) -> None:
        self.should_stop = should_stop

    def is_set(self) -> bool:
        return self.should_stop()


def push_round(
    pusher: Pusher,
    paths: Iterable[str],
    should_stop: Callable[[], bool],
    progress: Callable[[Pushed], None] | None,
    totals: Totals,
) -> None:
    """Push each of ``paths`` (files, or folders listed), the push lock held, until ``should_stop``."""
    listed = [path for path, _, _ in list_session_files(list(paths))]
    if not listed:
        return
    pusher.lock()
    try:
        for path in listed:
            if should_stop():
                return
            done = pusher.push_listed(path)
            _count(totals, done)
            if progress is not None:
                progress(done)
        pusher.summaries.store()  # each round's usage rows, as a push stores them between files
    finally:
        pusher.unlock()


def _count(totals: Totals, done: Pushed) -> None:
    if done.sent:
        totals.files += 1
    elif done.how == "unchanged":
        totals.unchanged += 1
    elif done.failed:
        totals.failed += 1
    else:
        totals.skipped += 1
    totals.lines += done.lines
    totals.bytes += done.bytes


class Follower:
    """What to push when the watch reports changes under ``roots``."""

    def __init__(self, roots: Iterable[str]) -> None:
        self.roots = [absolute(root) for root in roots]
        self.files = {root for root in self.roots if not os.path.isdir(root)}
        folders = [root for root in self.roots if root not in self.files]
        self.folders = tuple(os.path.join(folder, "") for folder in folders)
        #: what is watched: each folder, and the folder of each file given (a file replaced is a new inode)
        self.watched = list(dict.fromkeys(folders + [os.path.dirname(f) for f in self.files]))

    def wanted(self, changed: Iterable[str]) -> list[str]:
        """The changed paths to push: session files under a folder given, or a file given, or
        folders that appeared under a folder given (their files listed)."""
        out = []
        for path in sorted(set(changed)):
            if (
                path in self.files
                or path.startswith(self.folders)
                and (path.endswith(SESSION_SUFFIX) or os.path.isdir(path))
            ):
                out.append(path)
        return [p for p in out if os.path.exists(p)]


def follow(
    pusher: Pusher,
    paths: list[str],
    should_stop: Callable[[], bool],
    progress: Callable[[Pushed], None] | None = None,
    armed: Callable[[], None] | None = None,
) -> Totals:
    """Push everything under ``paths``, then each change, until ``should_stop``
    (``armed``: called once the watch is set, everything before it pushed)."""
    from watchfiles import watch

    began = time.monotonic()
    totals = Totals(machine=pusher.machine)
    follower = Follower(paths)
    pusher.unlock()  # (the lock taken as it connected: from now on, one round at a time)
    push_round(pusher, follower.roots, should_stop, progress, totals)
    caught_up = False
    for changes in watch(
        *follower.watched,
        yield_on_timeout=True,
        rust_timeout=int(TICK * 1000),
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        stop_event=_Stop(should_stop),
        raise_interrupt=False,
        ignore_permission_denied=True,
    ):
        if should_stop():
            break
        if not caught_up:  # what was written between the first round and the watch's start
            caught_up = True
            push_round(pusher, follower.roots, should_stop, progress, totals)
            if armed is not None:
                armed()
        wanted = follower.wanted(path for _, path in changes)
        if wanted:
            push_round(pusher, wanted, should_stop, progress, totals)
    totals.seconds = time.monotonic() - began
    return totals
