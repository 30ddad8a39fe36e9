"""Where a session's bytes come from: a local file, or a remote one.

The model reads a session only through this small interface: its size and
identity now (``stat``), a byte range (``read``) and a buffered reader for
scanning lines in order. ``LocalFile`` holds a descriptor; ``remote.py``
implements the same over fsspec (SSH, object storage), so the index, the
tail-first view and the lazy record reads are the same for both.
"""

from __future__ import annotations

import errno
import io
import os
import stat
from typing import Any, BinaryIO, NamedTuple, Protocol

from ..errors import SessionError

READ_BUFFER = 1 << 20  # the line reader's buffer


class SourceStat(NamedTuple):
    size: int
    #: what tells this file from another put at its name: (st_dev, st_ino)
    #: locally (for joined files: the last one's, then the others' sizes);
    #: None where there is no such thing (then a changed first or last
    #: indexed line tells a replaced file from a grown one)
    identity: tuple[int, ...] | None
    mtime_ns: int


class Source(Protocol):
    name: str  # the path or URL, as the user gave it
    remote: bool
    files: tuple[str, ...]  # the files read, in order (more than one: a session written over several files)
    rows: bool  # its records are rows of a database, updated in place as its agent works (opencode)

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
    rows = False

    def __init__(self, path: str) -> None:
        self.name = path
        self.files: tuple[str, ...] = (path,)
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


class JoinedFiles:
    """Several local files read as one, in order: a session its client
    wrote over several files (a Codex thread and its rewinds). Only the
    last one may grow; a change in the size of another reads as a replaced
    file (its size is part of the identity), so everything is read again."""

    remote = False
    rows = False

    def __init__(self, name: str, files: list[str]) -> None:
        self.name = name
        self.files = tuple(files)
        self._parts = [LocalFile(path) for path in files]
        self._starts: list[int] = []  # offset of each part in the whole, as of the last stat

    def stat(self) -> SourceStat:
        stats = [part.stat() for part in self._parts]
        self._starts = []
        offset = 0
        for st in stats:
            self._starts.append(offset)
            offset += st.size
        last = stats[-1]
        identity = (*(last.identity or ()), *(st.size for st in stats[:-1]))
        return SourceStat(offset, identity, max(st.mtime_ns for st in stats))

    def read(self, offset: int, length: int) -> bytes:
        if not self._starts:
            self.stat()
        out: list[bytes] = []
        for k, part in enumerate(self._parts):
            start = self._starts[k]
            end = self._starts[k + 1] if k + 1 < len(self._parts) else None
            if length <= 0:
                break
            if end is not None and offset >= end:
                continue
            data = part.read(offset - start, length if end is None else min(length, end - offset))
            out.append(data)
            offset += len(data)
            length -= len(data)
            if end is None or offset < end:
                break  # the end of the last part, or a short read
        return b"".join(out)

    def reader(self) -> BinaryIO:
        return io.BufferedReader(RangeStream(self), buffer_size=READ_BUFFER)

    def close(self) -> None:
        for part in self._parts:
            part.close()


class RangeStream(io.RawIOBase):
    """A seekable raw stream over any source's ``read`` and ``stat`` (for a
    BufferedReader): a remote file's ranges, or several files joined."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            self.pos = offset
        elif whence == io.SEEK_CUR:
            self.pos += offset
        else:
            self.pos = self.source.stat().size + offset
        return self.pos

    def tell(self) -> int:
        return self.pos

    def readinto(self, buffer: Any) -> int:
        data = self.source.read(self.pos, len(buffer))
        buffer[: len(data)] = data
        self.pos += len(data)
        return len(data)
