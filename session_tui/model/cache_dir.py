"""Where session-tui keeps what it works out about session files (the
picker's catalog, dry-run verdicts, usage, the search index): the user cache
dir, or ``$SESSION_TUI_CACHE_DIR``; whether it may be trusted; and how a
cache file is written."""

from __future__ import annotations

import os
import stat
import sys
import threading

CACHE_ENV = "SESSION_TUI_CACHE_DIR"

_lock = threading.Lock()
_checked: dict[str, str | None] = {}  # folder -> itself when trusted, else None (said once per process)
_refused: dict[str, str] = {}  # folder -> the notice that said why


def default_cache_dir() -> str:
    override = os.environ.get(CACHE_ENV)
    if override:
        return override
    from platformdirs import user_cache_dir

    return user_cache_dir("session-tui")


def trusted_cache_dir(folder: str | None = None) -> str | None:
    """``folder`` (by default the cache dir), made 0700 if missing, when it
    is ours: None when another user owns it or group or others may write it
    (what is read there could have been planted: no cache is used, and one
    notice says why on stderr, as ssh does with its config), or when it
    cannot be made. Every user of a cache asks this first."""
    folder = folder or default_cache_dir()
    with _lock:
        if folder in _checked:
            return _checked[folder]
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            reason = _distrust(os.stat(folder))
        except OSError:
            reason = ""  # (cannot be made or seen: no cache, as before, only slower)
        if reason:
            _refused[folder] = f"session-tui: not using cache dir {folder}: {reason}"
            print(_refused[folder], file=sys.stderr)
        _checked[folder] = None if reason is not None else folder
        return _checked[folder]


def refusal(folder: str | None = None) -> str | None:
    """The notice ``trusted_cache_dir`` gave for ``folder`` (for a screen,
    where stderr is not seen), or None."""
    with _lock:
        return _refused.get(folder or default_cache_dir())


def _distrust(st: os.stat_result) -> str | None:
    """Why a cache dir with this status is not to be used (None: it may)."""
    if not stat.S_ISDIR(st.st_mode):
        return "not a directory"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"owned by another user (uid {st.st_uid})"
    if st.st_mode & stat.S_IWOTH:
        return "writable by others"
    if st.st_mode & stat.S_IWGRP:
        return "writable by its group"
    return None


def write_cache_file(path: str, data: bytes) -> None:
    """Write a cache file (0600) atomically (temp file + ``os.replace``) in
    a folder ``trusted_cache_dir`` accepted; one that cannot be written is
    only slower next time."""
    import tempfile  # (not for a search that writes nothing)

    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix="." + os.path.basename(path) + "-", dir=folder)  # (mode 0600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(temp, path)
        except BaseException:
            os.unlink(temp)
            raise
    except OSError:
        pass
