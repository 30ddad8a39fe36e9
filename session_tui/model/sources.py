"""The source of a session's bytes for a path or a URL."""

from __future__ import annotations

from .remote import RemoteFile
from .source import LocalFile, Source, is_url


def open_source(name: str) -> Source:
    """A RemoteFile for a URL (connecting: raises SessionError), else a LocalFile."""
    if is_url(name):
        return RemoteFile(name)
    return LocalFile(name.removeprefix("file://"))
