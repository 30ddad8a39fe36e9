"""What is wrong with a path given on the command line, said in one line:
every verb that takes paths says it the same way, and exits 2."""

from __future__ import annotations

import os
import sys

SESSION_SUFFIX = ".jsonl"


def path_problem(path: str) -> str | None:
    """Why ``path`` (a local path the user gave) holds no session: it does
    not exist, a directory without ``*.jsonl`` files under it, a file that
    is not a session (the picker's reason); None when it is fine. A URL is
    left to its back-end, which says what is wrong when it is opened."""
    from ..model.reading.source import is_url

    if is_url(path):
        return None
    database = _database_problem(path)
    if database is not None:
        return database or None
    if not os.path.lexists(path):
        return "no such file or directory"
    if os.path.isdir(path):
        for _root, _dirs, files in os.walk(path):
            if any(name.endswith(SESSION_SUFFIX) or name == "opencode.db" for name in files):
                return None
        return f"no session files (*{SESSION_SUFFIX}) in it"
    from ..model.catalog.info_reader import read_info

    return read_info(path).error


def _database_problem(path: str) -> str | None:
    """For an opencode database (``…/opencode.db``: all its sessions) or one
    of its sessions (``…/opencode.db#ID``): why it holds no session, ``""``
    when it is fine; None for any other path."""
    from ..model.errors import SessionError
    from ..model.formats.opencode.database import session_ids, split_name

    try:
        found = split_name(path)
    except SessionError:
        return "not an opencode session id (want ses_ and 12-40 letters or digits)"
    if found is None:
        return None
    db, session_id = found
    if not os.path.lexists(db):
        return "no such file or directory"
    try:
        ids = session_ids(db)
    except SessionError as exc:
        return str(exc).removeprefix(f"{db}: ")
    if session_id is not None and session_id not in ids:
        return "no such session in the database"
    return ""


def listed_sessions(paths: list[str]) -> list[tuple[str, int, int]]:
    """``list_session_files`` of ``paths``, where a session of an opencode
    database (``…/opencode.db#ID``) is that one session of its database's
    listing; each session once."""
    from ..model.catalog.cache import absolute, list_session_files
    from ..model.formats.opencode.database import split_name

    found: dict[str, tuple[str, int, int]] = {}
    for path in paths:
        database = split_name(path) if "#" in path else None
        if database is not None and database[1] is not None:
            wanted = absolute(path)
            rows = [row for row in list_session_files([database[0]]) if row[0] == wanted]
        else:
            rows = list_session_files([path])
        for row in rows:
            found.setdefault(row[0], row)
    return list(found.values())


def listing_roots(paths: list[str]) -> list[str]:
    """``paths`` with each session of an opencode database as its database
    (an index catches up with a database whole)."""
    from ..model.formats.opencode.database import split_name

    out: list[str] = []
    for path in paths:
        database = split_name(path) if "#" in path else None
        root = database[0] if database is not None else path
        if root not in out:
            out.append(root)
    return out


def say_path_problems(verb: str, paths: list[str]) -> bool:
    """Print a line for each path of ``paths`` that holds no session; True if one did."""
    from ..model.sanitize import inert_line

    bad = False
    for path in paths:
        problem = path_problem(path)
        if problem is not None:
            print(f"session-tui {verb}: {inert_line(path)}: {problem}", file=sys.stderr)
            bad = True
    return bad
