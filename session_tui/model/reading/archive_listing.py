"""The team archive as a folder: every session in it, by machine and path.

``DB_URL`` alone (no ``#``) names the whole archive, as a folder names the
files under it: the picker, ``live`` and every verb that walks folders list
its sessions here, each as ``DB_URL#MACHINE/PATH`` with its archived size
and its time (``archived.TIME``: the file's time on its machine as the push
saw it), in one query. A machine's name and a path come from the database:
they are only ever part of an address, never a local path.
"""

from __future__ import annotations

from typing import NamedTuple

from ..errors import SessionError
from ..sanitize import inert_line
from .archived import NO_SCHEMA, TIME, connect, describe, is_archive_url, shown_url, split_address

__all__ = ["Place", "check_archive", "is_archive_url", "is_whole_archive", "list_archive", "place_of"]


class Place(NamedTuple):
    """Where an archived session comes from: its machine, and its project (the folder it is in there)."""

    machine: str
    project: str


def is_whole_archive(name: str) -> bool:
    """Whether ``name`` is a database URL naming the archive as a whole (no ``#MACHINE/PATH``)."""
    return is_archive_url(name) and split_address(name).machine is None


def place_of(name: str) -> Place | None:
    """The machine and project of an archived session's address (None: not one)."""
    if not is_archive_url(name):
        return None
    try:
        address = split_address(name)
    except SessionError:
        return None
    if address.machine is None or address.path is None:
        return None
    return Place(address.machine, address.path.rpartition("/")[0] or "/")


def shown_address(name: str) -> str:
    """How an archived session is named on screen: ``MACHINE:/PATH`` (the database's URL left out);
    any other name as it is."""
    place = place_of(name)
    if place is None:
        return name
    return f"{place.machine}:{split_address(name).path}"


def list_archive(name: str) -> list[tuple[str, int, int]]:
    """(address, archived size, time in ns) of every session in the archive
    ``name`` names (the whole of it, or the one session of a
    ``DB_URL#MACHINE/PATH``), by machine and path; raises SessionError (one
    line) when it cannot be reached or holds no archive."""
    address = split_address(name)
    base = address.url
    one = address.machine is not None
    where = "WHERE m.name = %s AND f.path = %s" if one else ""  # (the values: parameters)
    args = (address.machine, address.path) if one else ()
    conn = connect(base, read_only=True, application="session-tui list")
    try:
        rows = conn.execute(
            f"SELECT m.name, f.path, f.stream_size, {TIME} FROM files f JOIN machines m ON m.id = f.machine_id "
            f"{where} ORDER BY m.name, f.path",
            args,
        ).fetchall()
    except Exception as exc:
        raise SessionError(inert_line(describe(base, exc))) from None
    finally:
        conn.close()
    return [(f"{base}#{machine}{path}", int(size), int(time_ns)) for machine, path, size, time_ns in rows]


def check_archive(url: str) -> None:
    """Raise SessionError (one line) unless ``url`` reaches an archive (its tables there)."""
    conn = connect(url, read_only=True, application="session-tui")
    try:
        found = conn.execute("SELECT to_regclass('files') IS NOT NULL AND to_regclass('machines') IS NOT NULL")
        if not found.fetchone()[0]:
            raise SessionError(f"{shown_url(url)}: {NO_SCHEMA}")
    except SessionError:
        raise
    except Exception as exc:
        raise SessionError(inert_line(describe(url, exc))) from None
    finally:
        conn.close()
