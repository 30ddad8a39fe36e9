"""Edits of a session kept in a database (opencode's ``opencode.db``):
the rows an edit changes, applied in one transaction of the database's
own tables, never while a process holds the database, after a backup of
its three files (database, ``-wal``, ``-shm``).

A plan's rows carry what they held when it was made; the transaction
refuses (and changes nothing) when one of them changed since.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..model.formats.opencode.database import SIDE_FILES
from ..model.reading import open_writers
from .refusals import Refused, WriteFailed
from .safe_files import open_nofollow, utc_stamp
from .store import Store


@dataclass(frozen=True)
class RowUpdate:
    """One ``part`` row's ``data``: as the plan read it, and as it will be."""

    row_id: str
    before: dict[str, Any]
    after: dict[str, Any]


@dataclass
class DatabaseEdit:
    db: str
    session_id: str
    updates: list[RowUpdate] = field(default_factory=list)

    def preview(self) -> list[str]:
        out = [f"in {self.db}, session {self.session_id}, in one transaction (the three files backed up first):"]
        for update in self.updates:
            out.append(f"update part {update.row_id}: " + orjson.dumps(update.after).decode())
        return out


def _holders(db: str) -> list[object]:
    found: list[object] = []
    for suffix in SIDE_FILES:
        try:
            st = os.stat(db + suffix)
        except FileNotFoundError:
            continue
        found.extend(open_writers.writers_of(st.st_dev, st.st_ino) or ())
    return found


def _back_up(db: str) -> list[str]:
    """Copies of the database's files as ``<name>.bak-<UTC>`` (never over a file)."""
    stamp = utc_stamp()
    made: list[str] = []
    try:
        for suffix in SIDE_FILES:
            source = db + suffix
            if not os.path.exists(source):
                continue
            target = f"{source}.bak-{stamp}"
            fd = open_nofollow(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            made.append(target)
            with os.fdopen(fd, "wb") as out, open(source, "rb") as src:
                shutil.copyfileobj(src, out, 1 << 20)
                out.flush()
                os.fsync(out.fileno())
        dir_fd = os.open(os.path.dirname(os.path.abspath(db)) or ".", os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except BaseException:
        for target in made:
            os.unlink(target)
        raise
    return made


def apply_database_edit(edit: DatabaseEdit) -> list[str]:
    """Carry out ``edit``; the backups made. Refused, changing nothing, while
    a process holds the database (opencode running: forcing does not lift
    this) or when a row changed since the plan."""
    import sqlite3

    holders = _holders(edit.db)
    if holders:
        names = ", ".join(str(h) for h in holders[:3]) + (" …" if len(holders) > 3 else "")
        raise Refused(
            f"{edit.db}: held open by {names}; opencode keeps the database open while it runs: stop it first "
            "(forcing does not lift this); nothing was changed"
        )
    with Store(edit.db).locked():  # (another session-tui's edit of the same database)
        backups = _back_up(edit.db)
        try:
            conn = sqlite3.connect(edit.db, isolation_level=None, timeout=5.0)
        except sqlite3.Error as exc:
            for target in backups:
                os.unlink(target)
            raise Refused(f"{edit.db}: cannot open the database to write ({exc}); nothing was changed") from None
        try:
            conn.execute("begin immediate")
            for update in edit.updates:
                row = conn.execute(
                    "select data from part where id = ? and session_id = ?", (update.row_id, edit.session_id)
                ).fetchone()
                if row is None or orjson.loads(row[0]) != update.before:
                    raise Refused(f"{edit.db}: part {update.row_id} changed since the edit was planned; plan it again")
                conn.execute(
                    "update part set data = ? where id = ? and session_id = ?",
                    (orjson.dumps(update.after).decode(), update.row_id, edit.session_id),
                )
            conn.execute("commit")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("rollback")
            conn.close()
            for target in backups:
                os.unlink(target)
            if isinstance(exc, sqlite3.Error):
                raise WriteFailed(f"{edit.db}: the transaction failed ({exc}); nothing was changed") from None
            raise
        conn.close()
    return backups
