"""The usage of each pushed file, worked out on the pushing machine by the
code local ``usage`` runs (``usage/by.py``: the same ledger, the same
prices), kept in ``file_usage`` beside the file's row with its project
and OS user (``files.project``, ``files.os_user``).

``usage DB_URL`` then sums one small row per file instead of reading every
line again: the figures of a machine's files in the archive are those
``usage`` gives over the same files on that machine. A file's row says for
which size and time of the file (and which price table) it was worked out:
a push works it out again when the file changed, the table changed, or the
file has none (pushed by an older session-tui). Under redaction its project,
user and model names are masked as the file's path is.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

import orjson

from ..errors import SessionError
from ..privacy.redact import Redactor
from ..usage.by import file_user, work_out
from ..usage.ledger import Ledger, kept_groups
from ..usage.prices import priced_by
from .lines import redacted_name_of_path

_KEPT = (
    "SELECT f.path, u.size, u.mtime_ns, u.priced_by FROM files f JOIN file_usage u ON u.file_id = f.id "
    "WHERE f.machine_id = %s"
)
_STORE = (
    "INSERT INTO file_usage (file_id, size, mtime_ns, priced_by, groups, error) "
    "VALUES (%s, %s, %s, %s, %s::jsonb, %s) "
    "ON CONFLICT (file_id) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, "
    "priced_by = excluded.priced_by, groups = excluded.groups, error = excluded.error, computed_at = now()"
)


class Summaries:
    """The usage rows of one machine's files: what the archive holds, brought
    up to date file by file. The usage is worked out in a thread of its own
    while the push waits on the server (the pushing process is mostly
    idle), and stored between files, never inside a file's transaction."""

    def __init__(self, conn: Any, machine_id: int, redact: bool) -> None:
        self.conn = conn
        self.machine_id = machine_id
        self.redact = redact
        self.ledger = Ledger()
        self.kept: dict[str, tuple[int, int, str]] = {
            path: (int(size), int(mtime_ns), prices)
            for path, size, mtime_ns, prices in conn.execute(_KEPT, (machine_id,)).fetchall()
        }
        self._pool: ThreadPoolExecutor | None = None
        self._pending: list[tuple[str, tuple[int, int, str], Future[_Worked]]] = []

    def update(self, path: str, stored: str) -> None:
        """Have the usage of the file at ``path`` (archived as ``stored``)
        worked out, unless the archive has it for the file as it is; store
        what is done by now."""
        try:
            st = os.stat(path)
        except OSError:
            return
        stamp = (st.st_size, st.st_mtime_ns, priced_by())
        if self.kept.get(stored) == stamp:
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="usage")
        self._pending.append((stored, stamp, self._pool.submit(self._work_out, path, st.st_size, st.st_mtime_ns)))
        self.store(wait=False)

    def store(self, wait: bool = True) -> int:
        """Store the usage worked out (``wait``: all of it, waiting); how many rows."""
        stored = 0
        while self._pending and (wait or self._pending[0][2].done()):
            path, stamp, future = self._pending.pop(0)
            if self._store(path, stamp, future.result()):
                stored += 1
        return stored

    def close(self) -> None:
        """Store what is left, and keep it in this machine's usage cache too (a local ``usage`` reads it)."""
        try:
            self.store()
        finally:
            if self._pool is not None:
                self._pool.shutdown(cancel_futures=True)
            self.ledger.save()

    def _work_out(self, path: str, size: int, mtime_ns: int) -> _Worked:
        try:
            found = self.ledger.usage(path, size, mtime_ns, partial(work_out, path, None))
            worked = _Worked(kept_groups(found), None, found.project, file_user(path))
        except (SessionError, OSError, ValueError) as exc:  # (what local usage counts as unreadable)
            worked = _Worked(None, str(exc) or type(exc).__name__, None, file_user(path))
        if not self.redact:
            return worked
        redactor = Redactor()
        project = worked.project
        if project is not None:
            project = redacted_name_of_path(project) if project.startswith("/") else redactor.text(project)
        return _Worked(
            redactor.value(worked.groups) if worked.groups is not None else None,
            redactor.text(worked.error) if worked.error is not None else None,
            project,
            redactor.text(worked.user),
        )

    def _store(self, stored: str, stamp: tuple[int, int, str], worked: _Worked) -> bool:
        with self.conn.transaction():
            row = self.conn.execute(
                "UPDATE files SET project = %s, os_user = %s WHERE machine_id = %s AND path = %s RETURNING id",
                (worked.project, worked.user, self.machine_id, stored),
            ).fetchone()
            if row is None:  # (not archived: nothing to describe)
                return False
            document = None if worked.groups is None else orjson.dumps(worked.groups).decode()
            self.conn.execute(_STORE, (row[0], *stamp, document, worked.error))
        self.kept[stored] = stamp
        return True


@dataclass
class _Worked:
    groups: list[Any] | None  # (day, model, counts) as the ledger keeps them; None: see error
    error: str | None
    project: str | None
    user: str
