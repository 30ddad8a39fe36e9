"""Session files on another machine, through fsspec: ``ssh://`` and
``sftp://`` (sshfs, the ``[ssh]`` extra) and ``s3://`` (s3fs, the ``[s3]``
extra), or any other back-end fsspec knows.

Only byte ranges are read, never a whole file to show its end. Credentials
and options come from each back-end's usual places (``~/.ssh/config`` and
the agent; the AWS environment and profiles) and from ``configure`` (the
command line's ``--storage-option KEY=VALUE``). Every failure — an
unreachable host, a denied key, a missing object, a back-end not installed —
is a SessionError with one line saying which.
"""

from __future__ import annotations

import io
import threading
from datetime import datetime
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple

from ..errors import SessionError
from ..sanitize import inert_line
from .source import READ_BUFFER, RangeStream, SourceStat

if TYPE_CHECKING:  # pragma: no cover
    from fsspec import AbstractFileSystem

#: which extra brings which back-end
EXTRAS = {"ssh": "ssh", "sftp": "ssh", "s3": "s3", "s3a": "s3"}

#: options given on the command line, by protocol ({"ssh": {"port": 2222}})
_OPTIONS: dict[str, dict[str, Any]] = {}


def configure(url: str, options: dict[str, Any]) -> None:
    """Options for every URL of ``url``'s protocol, on top of the back-end's own."""
    _OPTIONS.setdefault(protocol_of(url), {}).update(options)


def protocol_of(url: str) -> str:
    return url.partition("://")[0].lower()


def describe(url: str, exc: BaseException) -> str:
    """One line for a failure of a remote file system."""
    if isinstance(exc, FileNotFoundError):
        return f"{url}: no such file"
    if isinstance(exc, PermissionError):
        return f"{url}: permission denied"
    if isinstance(exc, ImportError):
        extra = EXTRAS.get(protocol_of(url))
        how = f"pip install 'session-tui[{extra}]'" if extra else f"a back-end for {protocol_of(url)}://"
        return f"{url}: reading {protocol_of(url)}:// needs {how}"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{url}: {type(exc).__name__}{': ' + text if text else ''}"


def file_system(url: str) -> tuple[AbstractFileSystem, str]:
    """The fsspec file system for ``url`` and the path within it (raises SessionError)."""
    try:
        import warnings

        from fsspec.core import url_to_fs

        with (
            warnings.catch_warnings()
        ):  # a back-end's warnings of its own future (asyncssh: DSA keys) are not the user's
            warnings.simplefilter("ignore")
            fs, path = url_to_fs(url, **_OPTIONS.get(protocol_of(url), {}))
        return fs, str(path)
    except Exception as exc:  # connecting: any back-end's error, one line
        raise SessionError(inert_line(describe(url, exc))) from None


def mtime_ns(info: dict[str, Any]) -> int:
    """The modification time in an fsspec listing entry, in ns (0 if none)."""
    value = info.get("mtime", info.get("LastModified", info.get("last_modified")))
    if isinstance(value, datetime):
        return int(value.timestamp() * 1e9)
    if isinstance(value, (int, float)):
        return int(value * 1e9)
    return 0


class RemoteReadError(SessionError, OSError):
    """A read of a remote file failed (a dropped connection, a denied open,
    a vanished object): a SessionError for those who report one line, an
    OSError for those who expect what a failed read raises."""


class RemoteFile:
    """A file reached through fsspec, read by byte range through one open
    handle (``cat_file`` is no use: some back-ends ignore its range and send
    the whole file). The handle is opened again when the size changes: some
    back-ends fix the size of an open file."""

    remote = True
    rows = False

    def __init__(self, url: str) -> None:
        self.name = url
        self.files: tuple[str, ...] = (url,)
        self.fs, self.path = file_system(url)
        self.bytes_read = 0  # over the life of this object: what the network carried
        self._handle: Any = None
        self._handle_size = -1
        self._lock = threading.Lock()  # one seek + read at a time (the UI and workers read)
        #: read ahead in a worker for the next refresh: its stat, once, and byte ranges
        self._ahead_stat: SourceStat | None = None
        self._ahead: list[tuple[int, bytes]] = []

    def read_ahead(self, st: SourceStat, ranges: list[tuple[int, int]]) -> None:
        """Read ``ranges`` now (in a worker thread) and keep them, with ``st``,
        for the reads of the next refresh (on the UI thread, which then waits
        on no network)."""
        ahead = [(offset, self.read(offset, length)) for offset, length in ranges if length > 0]
        with self._lock:
            self._ahead, self._ahead_stat = ahead, st

    def stat(self) -> SourceStat:
        with self._lock:
            known, self._ahead_stat = self._ahead_stat, None
        if known is not None:
            return known  # measured a moment ago by the worker that read ahead
        try:
            self.fs.invalidate_cache(self.path)
            info = self.fs.info(self.path)
        except Exception as exc:
            raise SessionError(inert_line(describe(self.name, exc))) from None
        if info.get("type") == "directory":
            raise SessionError(f"{self.name}: is a directory")
        size = int(info.get("size") or 0)
        with self._lock:
            self._ahead = []  # what was read ahead is for one refresh
            if size != self._handle_size:
                self._close_handle()
                self._handle_size = size
        return SourceStat(size, None, mtime_ns(info))

    def read(self, offset: int, length: int) -> bytes:
        if length <= 0:
            return b""
        with self._lock:
            for start, kept in self._ahead:  # (a read past the end of the file gets what there is)
                if start <= offset and (offset + length <= start + len(kept) or start + len(kept) == self._handle_size):
                    return kept[offset - start : offset - start + length]
            try:
                if self._handle is None:
                    self._handle = self.fs.open(self.path, "rb", cache_type="none")
                self._handle.seek(offset)
                data: bytes = self._handle.read(length)
            except Exception as exc:  # a dropped connection, a denied open, a vanished object
                self._close_handle()
                raise RemoteReadError(inert_line(describe(self.name, exc))) from None
        self.bytes_read += len(data)
        return data

    def reader(self) -> BinaryIO:
        return io.BufferedReader(RangeStream(self), READ_BUFFER)

    def _close_handle(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            try:
                handle.close()
            except Exception:  # closing a handle of a dropped connection
                pass

    def close(self) -> None:
        with self._lock:
            self._close_handle()  # the file system keeps its connection for other files of the host


class Listed(NamedTuple):
    url: str
    size: int
    mtime_ns: int


def is_folder(url: str) -> bool:
    """Whether ``url`` names a folder or a prefix (raises SessionError when
    it names nothing reachable)."""
    fs, path = file_system(url)
    try:
        fs.invalidate_cache(path)
        if url.endswith("/"):
            return True
        return bool(fs.isdir(path))
    except Exception as exc:
        raise SessionError(inert_line(describe(url, exc))) from None


def list_sessions(url: str, suffix: str = ".jsonl") -> list[Listed]:
    """Every ``*suffix`` file under the folder or prefix ``url``, with size
    and modification time from the listing itself (no file is opened)."""
    fs, path = file_system(url)
    try:
        fs.invalidate_cache(path)
        found = fs.find(path.rstrip("/"), withdirs=False, detail=True)
    except Exception as exc:
        raise SessionError(inert_line(describe(url, exc))) from None
    protocol = protocol_of(url)
    out = []
    for name, info in sorted(found.items()):
        if name.endswith(suffix) and info.get("type", "file") == "file":
            out.append(Listed(_url_of(fs, protocol, url, name), int(info.get("size") or 0), mtime_ns(info)))
    return out


def _url_of(fs: AbstractFileSystem, protocol: str, base: str, path: str) -> str:
    """The URL of ``path`` found under ``base`` (the host part of ``base`` kept)."""
    if protocol in ("ssh", "sftp"):
        authority = base.split("://", 1)[1].split("/", 1)[0]
        return f"{protocol}://{authority}/{path.lstrip('/')}"
    return str(fs.unstrip_protocol(path))
