"""``usage DB_URL``: the team archive's sessions as ``usage`` counts them.

Each file's usage was worked out by the machine that pushed it, with the
code of local ``usage`` (``summary.py``); here the rows are only read (one
small row per file, never a line) and handed to the same sum
(``usage/by.py``): a session with its sub-agent transcripts rolled up when
they are archived beside it, as locally. A role under row-level security
(``archive grant``) counts only the files it may read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from ..catalog.session_info import is_subagent, parent_of
from ..errors import SessionError
from ..reading.archived import connect, describe, shown_url, split_address
from ..sanitize import inert_line
from ..usage.by import NO_USER, Counted
from ..usage.ledger import FileUsage, file_usage_of
from .schema import require

_ROWS = (
    "SELECT m.name, f.path, f.project, f.os_user, u.file_id IS NOT NULL, u.groups::text, u.error, u.priced_by "
    "FROM files f JOIN machines m ON m.id = f.machine_id LEFT JOIN file_usage u ON u.file_id = f.id"
)


_SUBAGENTS = "/subagents/"  # (in the path of every sub-agent transcript: parent_of is asked only then)


@dataclass
class ArchiveUsage:
    counted: list[Counted] = field(default_factory=list)
    files: int = 0
    unreadable: int = 0  # files whose usage the pushing machine could not work out (or kept unreadable)
    unsummarised: int = 0  # files pushed without their usage (an older session-tui)
    priced_by: set[str] = field(default_factory=set)  # the price tables of the pushing machines


@dataclass
class _File:
    machine: str
    path: str
    project: str | None
    user: str | None
    usage: FileUsage | None


def archive_usage(name: str) -> ArchiveUsage:
    """The sessions of the archive ``DB_URL`` (or its one session
    ``DB_URL#MACHINE/PATH``); SessionError, one line, when it cannot be read."""
    address = split_address(name)
    conn = connect(address.url, read_only=True, application="session-tui usage")
    try:
        require(conn, address.url)
        if address.machine is None:
            rows = conn.execute(_ROWS).fetchall()
        else:
            # the session and its sub-agent transcripts (as a session file given locally counts those beside it)
            folder = (address.path or "").removesuffix(".jsonl") + "/subagents/"
            one = (address.machine, address.path, folder, folder)
            rows = conn.execute(
                _ROWS + " WHERE m.name = %s AND (f.path = %s OR left(f.path, char_length(%s)) = %s)", one
            ).fetchall()
            if not any(row[1] == address.path for row in rows):
                raise SessionError(f"{shown_url(name)}: no such session in the archive")
    except SessionError:
        raise
    except Exception as exc:  # a denied table, a dropped connection
        raise SessionError(inert_line(describe(address.url, exc))) from None
    finally:
        conn.close()
    found = _counted(shown_url(address.url), rows)
    if address.machine is not None:
        found.files = 1  # (its sub-agents' files are counted with it, not listed)
    return found


def _counted(url: str, rows: list[tuple[Any, ...]]) -> ArchiveUsage:
    """The rows as sessions: each file in the order of a local listing (by
    machine, then path), a sub-agent transcript with its session when that is archived too."""
    out = ArchiveUsage(files=len(rows))
    files: dict[tuple[str, str], _File] = {}
    for machine, path, project, user, summarised, groups, error, prices in sorted(rows, key=lambda r: (r[0], r[1])):
        usage = None
        if not summarised:
            out.unsummarised += 1
        elif error is not None or (usage := file_usage_of(project or "", _loads(groups))) is None:
            out.unreadable += 1
        if prices is not None:
            out.priced_by.add(prices)
        files[(machine, path)] = _File(machine, path, project, user, usage)
    sessions: list[tuple[_File, list[FileUsage]]] = []
    subagents: dict[tuple[str, str], list[FileUsage]] = {}
    for (machine, path), one in files.items():
        parent = parent_of(path) if _SUBAGENTS in path else None
        if parent is not None and (machine, parent) in files:  # (counted with its session)
            if one.usage is not None:
                subagents.setdefault((machine, parent), []).append(one.usage)
        elif one.usage is not None:  # (else not counted: said above)
            sessions.append((one, [one.usage]))
    for one, parts in sessions:
        if _SUBAGENTS not in one.path or not is_subagent(one.path):
            parts += subagents.get((one.machine, one.path), [])
        out.counted.append(
            Counted(f"{url}#{one.machine}{one.path}", one.machine, one.user or NO_USER, parts[0].project, parts)
        )
    return out


def _loads(text: str | None) -> Any:
    try:
        return orjson.loads(text) if text is not None else None
    except orjson.JSONDecodeError:
        return None
