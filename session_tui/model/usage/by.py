"""Usage summed by session, machine, user, project, day or model: the one
computation behind ``usage`` over local files and over the team archive.

A session is counted as ``Counted``: its file's usage by (day, model) and
each of its sub-agent transcripts' (``ledger.FileUsage``), with what it is
grouped by. Where the files are (this machine's disk, or the archive, whose
per-file usage the pushing machine worked out with ``work_out`` below) only
changes where the ``Counted`` come from, never how they are summed.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..session.session import open_session
from .ledger import FileUsage, file_usage
from .totals import Usage

if TYPE_CHECKING:  # pragma: no cover
    from ..session.session import Session

BY = ("session", "machine", "user", "project", "day", "model")
NO_USER = "(unknown user)"


@dataclass
class Counted:
    """One session as ``usage`` counts it: its own file's usage, then its
    sub-agents' (rolled up); the rest is what it may be grouped by."""

    session: str  # its name: a path, or DB_URL#MACHINE/PATH
    machine: str
    user: str
    project: str
    parts: list[FileUsage]


def this_machine() -> str:
    """This machine's name: the host name (the archive's default ``--machine``)."""
    return socket.gethostname() or "localhost"


def file_user(path: str) -> str:
    """The OS user owning the file at ``path`` (its number when it has no name)."""
    import pwd

    try:
        uid = os.stat(path).st_uid
    except OSError:
        return NO_USER
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def project_of(session: Session, path: str) -> str:
    """The session's project: the working directory it records, else its file's folder."""
    client = session.format.client
    leaf = session.active_leaf()
    cwd = client.recorded_cwd(session, leaf) if client is not None and leaf >= 0 else None
    return cwd or os.path.dirname(path)


def work_out(path: str, project: str | None = None) -> FileUsage:
    """The usage of the session file at ``path`` by (day, model), with its
    project (``project``: a sub-agent's is its session's)."""
    with open_session(path) as session:
        return file_usage(session, project or project_of(session, path))


def tally(counted: Iterable[Counted], by: str) -> dict[str, Usage]:
    """Every response's usage summed by ``by`` (one of ``BY``)."""
    rows: dict[str, Usage] = {}
    for one in counted:
        for part in one.parts:
            for day, model, usage in part.groups:
                if by == "day":
                    key = day
                elif by == "model":
                    key = model
                elif by == "project":
                    key = one.project
                elif by == "machine":
                    key = one.machine
                elif by == "user":
                    key = one.user
                else:
                    key = one.session
                rows.setdefault(key, Usage()).add(usage)
    return rows


def ordered(rows: dict[str, Usage]) -> tuple[list[tuple[str, Usage]], Usage]:
    """The rows that counted a response, dearest first, and their total."""
    out = sorted(((k, u) for k, u in rows.items() if u.responses), key=lambda kv: (-(kv[1].cost_usd or 0), kv[0]))
    total = Usage()
    for _, usage in out:
        total.add(usage)
    return out, total


def report(by: str, rows: list[tuple[str, Usage]], total: Usage, files: int, unreadable: int) -> dict[str, Any]:
    """The ``usage --json`` document."""
    return {
        "by": by,
        "rows": [{"key": key, **usage.as_json(), "responses": usage.responses} for key, usage in rows],
        "total": {**total.as_json(), "responses": total.responses},
        "files": files,
        "unreadable": unreadable,
    }


__all__ = ["BY", "Counted", "file_user", "ordered", "project_of", "report", "tally", "this_machine", "work_out"]
