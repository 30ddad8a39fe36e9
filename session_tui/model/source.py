"""Where a session's bytes come from: a local file, or a remote one.

The model reads a session only through this small interface: its size and
identity now (``stat``), a byte range (``read``) and a buffered reader for
scanning lines in order. ``LocalFile`` holds a descriptor; ``remote.py``
implements the same over fsspec (SSH, object storage), so the index, the
tail-first view and the lazy record reads are the same for both.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO, NamedTuple, Protocol

from .errors import SessionError

READ_BUFFER = 1 << 20  # the line reader's buffer


class SourceStat(NamedTuple):
    size: int
    #: what tells this file from another put at its name: (st_dev, st_ino)
    #: locally; None where there is no such thing (then a changed first or
    #: last indexed line tells a replaced file from a grown one)
    identity: tuple[int, int] | None
    mtime_ns: int


class Source(Protocol):
    name: str  # the path or URL, as the user gave it
    remote: bool

    def stat(self) -> SourceStat:
        """The file's size and identity now (raises SessionError)."""
        ...

    def read(self, offset: int, length: int) -> bytes:
        """Up to ``length`` bytes at ``offset`` (fewer at the end of the file)."""
        ...

    def reader(self) -> BinaryIO:
        """A buffered, seekable reader (the caller closes it; the source stays open)."""
        ...

    def close(self) -> None: ...


def is_url(name: str | os.PathLike[str]) -> bool:
    """Whether ``name`` names a remote file (``ssh://…``, ``s3://…``)
    rather than a local path (``file://`` counts as local)."""
    if not isinstance(name, str):
        return False
    scheme, sep, _ = name.partition("://")
    return bool(sep) and scheme.isidentifier() and scheme.lower() != "file"


class LocalFile:
    """A file on this machine, read through one descriptor: the file that was
    indexed, even if it is renamed since; a new file put at the path is
    opened at the next ``stat``."""

    remote = False

    def __init__(self, path: str) -> None:
        self.name = path
        self._fd: int | None = None

    def stat(self) -> SourceStat:
        try:
            path_stat = os.stat(self.name)
        except FileNotFoundError:
            raise SessionError(f"{self.name}: no such file") from None
        except OSError as exc:
            raise SessionError(f"{self.name}: {exc.strerror or exc}") from None
        if stat.S_ISDIR(path_stat.st_mode):
            raise SessionError(f"{self.name}: is a directory")
        if not stat.S_ISREG(path_stat.st_mode):
            raise SessionError(f"{self.name}: not a regular file")
        if self._fd is not None:
            st = os.fstat(self._fd)
            if (st.st_dev, st.st_ino) == (path_stat.st_dev, path_stat.st_ino):
                return SourceStat(st.st_size, (st.st_dev, st.st_ino), st.st_mtime_ns)
            self.close()
        try:
            self._fd = os.open(self.name, os.O_RDONLY)
        except OSError as exc:
            raise SessionError(f"{self.name}: {exc.strerror or exc}") from None
        st = os.fstat(self._fd)
        return SourceStat(st.st_size, (st.st_dev, st.st_ino), st.st_mtime_ns)

    def _held(self) -> int:
        """The descriptor; a closed (or never opened) file reads as a closed
        descriptor does: OSError (EBADF)."""
        if self._fd is None:
            raise OSError(errno.EBADF, f"{self.name}: session file is not open")
        return self._fd

    def read(self, offset: int, length: int) -> bytes:
        return os.pread(self._held(), length, offset)

    def reader(self) -> BinaryIO:
        return open(self._held(), "rb", buffering=READ_BUFFER, closefd=False)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
