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
    """The usage rows of one machine's files: what the archive holds, brought up to date file by file."""

    def __init__(self, conn: Any, machine_id: int, redact: bool) -> None:
        self.conn = conn
        self.machine_id = machine_id
        self.redact = redact
        self.ledger = Ledger()
        self.kept: dict[str, tuple[int, int, str]] = {
            path: (int(size), int(mtime_ns), prices)
            for path, size, mtime_ns, prices in conn.execute(_KEPT, (machine_id,)).fetchall()
        }

    def update(self, path: str, stored: str) -> bool:
        """Work out and keep the usage of the file at ``path`` (archived as
        ``stored``) unless the archive has it for the file as it is; whether it did."""
        try:
            st = os.stat(path)
        except OSError:
            return False
        stamp = (st.st_size, st.st_mtime_ns, priced_by())
        if self.kept.get(stored) == stamp:
            return False
        groups: list[Any] | None = None
        error: str | None = None
        project: str | None = None
        try:
            found = self.ledger.usage(path, st.st_size, st.st_mtime_ns, partial(work_out, path, None))
            groups, project = kept_groups(found), found.project
        except (SessionError, OSError, ValueError) as exc:  # (what local usage counts as unreadable)
            error = str(exc) or type(exc).__name__
        user = file_user(path)
        if self.redact:
            redactor = Redactor()
            groups = redactor.value(groups) if groups is not None else None
            error = redactor.text(error) if error is not None else None
            user = redactor.text(user)
            if project is not None:
                project = redacted_name_of_path(project) if project.startswith("/") else redactor.text(project)
        with self.conn.transaction():
            row = self.conn.execute(
                "UPDATE files SET project = %s, os_user = %s WHERE machine_id = %s AND path = %s RETURNING id",
                (project, user, self.machine_id, stored),
            ).fetchone()
            if row is None:  # (not archived: nothing to describe)
                return False
            document = None if groups is None else orjson.dumps(groups).decode()
            self.conn.execute(_STORE, (row[0], st.st_size, st.st_mtime_ns, stamp[2], document, error))
        self.kept[stored] = stamp
        return True

    def save(self) -> None:
        """Keep what was worked out in this machine's usage cache too (a local ``usage`` reads it)."""
        self.ledger.save()
