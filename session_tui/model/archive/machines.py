"""A machine of the archive: its name (the host name by default, checked),
and its row, which a push makes or finds first (``machines``: a role that
may not push as that machine is told so in one line)."""

from __future__ import annotations

import re
from typing import Any

from ..errors import SessionError
from ..reading.archived import shown_url
from ..sanitize import inert_line
from ..usage.by import this_machine

_BAD_MACHINE = re.compile(r"[/\x00-\x1f\x7f]")


def machine_problem(name: str) -> str | None:
    """Why ``name`` cannot name a machine in the archive (None: it can)."""
    if not name:
        return "a machine's name is not empty"
    if len(name) > 255:
        return "a machine's name is at most 255 characters"
    if _BAD_MACHINE.search(name):
        return "a machine's name has no '/' and no control character"
    try:
        name.encode()
    except UnicodeEncodeError:
        return "a machine's name is UTF-8"
    return None


def default_machine() -> str:
    """This machine's name in the archive: the host name (what local ``usage --by machine`` says)."""
    return this_machine()


def machine_row(conn: Any, url: str, machine: str) -> int:
    """The id of ``machine``'s row, made if new; SessionError (one line) when
    this role may not push as that machine (row-level security, ``archive grant``)."""
    import psycopg

    try:
        with conn.transaction():
            found: int = conn.execute(
                "INSERT INTO machines (name) VALUES (%s) ON CONFLICT (name) "
                "DO UPDATE SET last_push = now() RETURNING id",
                (machine,),
            ).fetchone()[0]
            return found
    except psycopg.errors.InsufficientPrivilege:
        role = conn.execute("SELECT current_user").fetchone()[0]
        raise SessionError(
            f"{shown_url(url)}: role {inert_line(role)!r} may not push as machine {inert_line(machine)!r} "
            "(the archive's owner grants it: session-tui archive grant DB_URL --pusher ROLE --machine NAME)"
        ) from None
