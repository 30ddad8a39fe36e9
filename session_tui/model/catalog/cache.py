"""What the session picker knows about each session file, without parsing it.

Every ``*.jsonl`` under the given folders is listed with its size and
modification time; its metadata (format, title, entries, problems) come from
its head and tail only (``info_reader``), never a full parse, and are cached
on disk, keyed by path, size and ``mtime_ns``.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Iterable

import orjson

from ..cache_dir import trusted_cache_dir, write_cache_file
from ..errors import SessionError
from ..formats.opencode.database import DB_NAME, list_sessions, written_file
from ..reading import json_text
from ..reading.records import loads as json_loads
from ..reading.source import is_url
from ..sanitize import UNDECODABLE, Mask
from .session_info import SessionInfo, is_subagent

SESSION_SUFFIX = ".jsonl"
CACHE_VERSION = 3  # 2: damage, fork, last_time; 3: answered
CACHE_NAME = "catalog.json"
MASKED_CACHE_NAME = "catalog-redacted.json"  # titles read with --redact: never mixed with the others


FIELDS = list(SessionInfo.__dataclass_fields__)[1:]  # as cached: all but the path


#: the types a cached row's fields may have, field by field (the cache file is untrusted)
_TYPES: dict[str, tuple[type, ...]] = {
    "size": (int,),
    "mtime_ns": (int,),
    "known": (bool,),
    "format": (str, type(None)),
    "title": (str,),
    "entries": (int,),
    "exact": (bool,),
    "bad_lines": (int,),
    "torn": (bool,),
    "dangling": (bool,),
    "error": (str, type(None)),
    "subagent": (bool,),
    "damage": (list,),
    "fork": (bool,),
    "last_time": (int, float),
    "answered": (bool,),
}
#: every tuple of types a well-formed row has (a field added to SessionInfo needs its types here)
_SHAPES = frozenset(itertools.product(*(_TYPES[name] for name in FIELDS)))
_COUNTS = [FIELDS.index(name) for name in ("size", "mtime_ns", "entries", "bad_lines")]
_DAMAGE, _LAST_TIME = FIELDS.index("damage"), FIELDS.index("last_time")


def _info_of(path: str, row: object) -> SessionInfo | None:
    """The info a cached row holds, if every field has its type and range
    (the cache file is untrusted: anything else is read again). The types
    are told by one look at the row's shape: 10,000 rows, a check per field
    each, took 60 ms before the picker's first frame."""
    if type(row) is not list or tuple(map(type, row)) not in _SHAPES:
        return None
    if min(row[i] for i in _COUNTS) < 0 or not 0 <= row[_LAST_TIME] < 1e11:
        return None
    damage = row[_DAMAGE]
    if damage and not all(type(x) is str for x in damage):
        return None
    return SessionInfo(path, *row)


def absolute(path: str) -> str:
    """A local path made absolute, its folders canonical (symlinks resolved:
    one path per file, whichever way its folder was named; a symlinked file
    keeps its own name, as the walk lists it); a URL as it is."""
    if is_url(path):
        return path
    if os.path.isdir(path):
        return os.path.realpath(path)
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(os.path.realpath(folder), name)


def list_session_files(paths: Iterable[str], unreadable: list[str] | None = None) -> list[tuple[str, int, int]]:
    """(canonical path or URL, size, mtime in ns) of every ``*.jsonl`` under
    ``paths`` (a file given is kept as it is), not following symlinked
    folders, but the later files of a Codex thread; by path. A remote folder or prefix is listed by its back-end
    (sizes and times from the listing: no file is opened). A folder that
    cannot be read is passed over (added to ``unreadable``)."""
    found: list[tuple[str, int, int]] = []
    for given in map(absolute, paths):
        if is_url(given):
            from ..reading import remote
            from ..reading.archive_listing import is_archive_url, list_archive

            if is_archive_url(given):  # the team archive: every session of every machine, or one
                try:
                    found.extend(list_archive(given))
                except SessionError:
                    pass  # unreachable: nothing listed (as a remote folder)
                continue

            try:
                found.extend(remote.list_sessions(given, SESSION_SUFFIX))
            except SessionError:
                continue  # unreachable: nothing listed (the picker says so)
            continue
        if not os.path.isdir(given):
            if os.path.basename(given) == DB_NAME:  # (each session of an opencode database is a row)
                found.extend(list_sessions(given))
                continue
            try:
                st = os.stat(given)
                found.append((given, st.st_size, st.st_mtime_ns))
            except OSError:
                pass
            continue
        folders = [given]
        while folders:
            folder = folders.pop()
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        try:
                            if entry.name == DB_NAME and entry.is_file():
                                found.extend(list_sessions(entry.path))
                            elif entry.name.endswith(SESSION_SUFFIX) and entry.is_file():
                                st = entry.stat()
                                found.append((entry.path, st.st_size, st.st_mtime_ns))
                            elif entry.is_dir(follow_symlinks=False):
                                folders.append(entry.path)
                        except OSError:  # e.g. a symlink loop, or gone: only this entry is passed over
                            continue
            except PermissionError:
                if unreadable is not None:
                    unreadable.append(folder)
            except OSError:
                continue
    from ..formats.codex.thread import hide_segments  # (the walk's: not for a first frame from the head)

    hidden = hide_segments([path for path, _, _ in found])  # a Codex thread is listed once, by its first file
    found = [item for item in found if item[0] not in hidden]
    found.sort(key=lambda item: item[0])
    return found


class Catalog:
    """Session infos by path, backed by a cache file; safe to use from a
    worker thread and the UI at once."""

    def __init__(self, cache_dir: str | None = None, mask: Mask | None = None) -> None:
        """``mask`` (``--redact``): titles are read with their secrets masked
        before they are cut, and kept in a cache file of their own."""
        folder = trusted_cache_dir(cache_dir)
        name = CACHE_NAME if mask is None else MASKED_CACHE_NAME
        self.cache_path = None if folder is None else os.path.join(folder, name)  # None: no cache
        self.mask = mask
        self._lock = threading.Lock()
        self._load_lock = threading.Lock()
        self._rows: dict[str, object] | None = None  # path -> row of FIELDS (as read: checked when used)
        self._seen: set[str] = set()
        self._changed = False
        self.unreadable: list[str] = []  # the folders the last ``listing`` could not read

    @property
    def _cached(self) -> dict[str, object]:
        """The cache's rows, read on first use (a picker's first frame may need only ``head``)."""
        rows = self._rows
        if rows is None:
            with self._load_lock:
                if self._rows is None:
                    self._rows = self._load()
                rows = self._rows
        return rows

    def head(self, roots: list[str]) -> tuple[list[SessionInfo], int] | None:
        """The newest rows remembered under exactly the folders ``roots`` and
        how many the cache holds there (``head.py``), or None: none kept."""
        if self.cache_path is None or self._rows is not None:
            return None
        from .head import read_head

        return read_head(self.cache_path, roots, _info_of)

    def _load(self) -> dict[str, object]:
        if self.cache_path is None:
            return {}
        try:
            with open(self.cache_path, "rb") as f:
                data = json_loads(f.read())  # (titles may hold lone surrogates, written escaped)
        except (OSError, orjson.JSONDecodeError):
            return {}
        if (
            not isinstance(data, dict)
            or data.get("version") != CACHE_VERSION
            or not isinstance(data.get("files"), dict)
        ):
            return {}
        files: dict[str, object] = data["files"]
        return files

    def listing(self, paths: Iterable[str]) -> list[SessionInfo]:
        """Every session file under ``paths`` (absolute paths): from the
        cache when its size and mtime still match, else not yet ``known``."""
        unreadable: list[str] = []
        found = list_session_files(paths, unreadable)
        self.unreadable = unreadable
        with self._lock:
            self._seen.update(path for path, _, _ in found)
        return [self._cached_info(*item) or _unknown(*item) for item in found]

    def remembered(self, paths: Iterable[str]) -> list[SessionInfo]:
        """What the cache holds for files under the folders ``paths``,
        unchecked (no stat, no walk): rows to show at once, before
        ``listing`` confirms them."""
        prefixes = tuple(_folder_prefix(p) for p in paths)
        out = []
        with self._lock:
            rows = [(path, row) for path, row in self._cached.items() if path.startswith(prefixes)]
        for path, row in rows:
            info = _info_of(path, row)
            if info is not None:
                out.append(info)
        return out

    def _cached_info(self, path: str, size: int, mtime_ns: int) -> SessionInfo | None:
        """The cached info of absolute ``path`` if its size and mtime match."""
        info = _info_of(path, self._cached.get(path))
        return info if info is not None and info.size == size and info.mtime_ns == mtime_ns else None

    def read(self, path: str) -> SessionInfo | None:
        """The info of ``path`` now (cached, or read from its head and tail),
        or None when it is gone. Its path is made absolute."""
        path = absolute(path)
        try:
            if is_url(path) or written_file(path)[1] is not None:  # (a URL, or a session of a database)
                from ..formats.sources import open_source

                st = open_source(path).stat()
                size, mtime_ns = st.size, st.mtime_ns
            else:
                local = os.stat(path)
                size, mtime_ns = local.st_size, local.st_mtime_ns
        except (OSError, SessionError):
            with self._lock:
                self._changed |= self._cached.pop(path, None) is not None
            return None
        cached = self._cached_info(path, size, mtime_ns)
        if cached is not None:
            return cached
        from .info_reader import read_info  # the format readers: loaded when a file is first read

        info = read_info(path, self.mask)
        with self._lock:
            self._seen.add(path)
            self._cached[path] = _row_of(info)
            self._changed = True
        return info

    def correct(self, info: SessionInfo) -> None:
        """Keep what a full read of the file found (its exact entry count)
        for as long as its size and time stay the same."""
        with self._lock:
            self._cached[info.path] = _row_of(info)
            self._changed = True

    def save(self, roots: Iterable[str] = ()) -> None:
        """Write the cache atomically (temp file + ``os.replace``). Entries
        of files under ``roots`` that were not seen since loading are
        dropped (the files are gone); others are kept, but for files whose
        names are not UTF-8 (read again each time)."""
        roots = list(roots)
        prefixes = tuple(_folder_prefix(r) for r in roots)
        with self._lock:
            stale = [p for p in self._cached if p not in self._seen and p.startswith(prefixes)]
            for path in stale:
                del self._cached[path]
            if not (self._changed or stale):
                return
            # JSON holds only UTF-8: names with undecodable bytes are read again next time
            files = {path: row for path, row in self._cached.items() if not UNDECODABLE.search(path)}
            data = json_text.dumps({"version": CACHE_VERSION, "files": files}).encode()
            self._changed = False
        if self.cache_path is not None:
            write_cache_file(self.cache_path, data)
            if roots and not any(map(is_url, roots)):  # the picker's next first frame: its newest rows
                from .head import write_head

                kept = [_info_of(path, row) for path, row in files.items() if path.startswith(prefixes)]
                write_head(self.cache_path, roots, [info for info in kept if info is not None], _row_of)


def _row_of(info: SessionInfo) -> list[object]:
    return [getattr(info, name) for name in FIELDS]


def _unknown(path: str, size: int, mtime_ns: int) -> SessionInfo:
    return SessionInfo(path, size, mtime_ns, subagent=is_subagent(path))


def _folder_prefix(root: str) -> str:
    """What the paths of the files under folder ``root`` start with."""
    return root.rstrip("/") + "/" if is_url(root) else os.path.join(absolute(root), "")
