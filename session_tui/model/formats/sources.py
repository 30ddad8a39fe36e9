"""The source of a session's bytes for a path or a URL: a format whose
client writes a session other than as one file (an opencode database, a
Codex thread over several files) gives its own. Imports no reader (the
picker's first frame stats its rows through here)."""

from __future__ import annotations

from ..errors import SessionError
from ..reading.archived import ArchivedFile, is_archive_url
from ..reading.remote import RemoteFile
from ..reading.source import JoinedFiles, LocalFile, Source, is_url
from .codex.thread import thread_files
from .opencode.database import OpencodeSession, database_refusal, split_name


def open_source(name: str) -> Source:
    """A RemoteFile for a URL (connecting: raises SessionError); the files
    of a session its client wrote over several files, joined; else a LocalFile."""
    if is_archive_url(name):
        return ArchivedFile(name)  # (a session of the team archive: DB_URL#MACHINE/PATH)
    if is_url(name):
        return RemoteFile(name)
    path = name.removeprefix("file://")
    opencode = split_name(path)
    if opencode is not None:
        db, session_id = opencode
        if session_id is None:
            raise SessionError(database_refusal(db))
        return OpencodeSession(path, db, session_id)
    files = thread_files(path)
    return JoinedFiles(path, files) if len(files) > 1 else LocalFile(path)
