"""The source of a session's bytes for a path or a URL."""

from __future__ import annotations

from ..errors import SessionError
from .codex_thread import thread_files
from .opencode_db import OpencodeSession, database_refusal, split_name
from .remote import RemoteFile
from .source import JoinedFiles, LocalFile, Source, is_url


def open_source(name: str) -> Source:
    """A RemoteFile for a URL (connecting: raises SessionError); the files
    of a session its client wrote over several files, joined; else a LocalFile."""
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
