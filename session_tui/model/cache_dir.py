"""Where session-tui keeps what it works out about session files (the
picker's catalog, dry-run verdicts, usage): the user cache dir, or
``$SESSION_TUI_CACHE_DIR``; and how a cache file is written."""

from __future__ import annotations

import os

CACHE_ENV = "SESSION_TUI_CACHE_DIR"


def default_cache_dir() -> str:
    override = os.environ.get(CACHE_ENV)
    if override:
        return override
    from platformdirs import user_cache_dir

    return user_cache_dir("session-tui")


def write_cache_file(path: str, data: bytes) -> None:
    """Write a cache file atomically (temp file + ``os.replace``); one that
    cannot be written is only slower next time."""
    import tempfile  # (not for a search that writes nothing)

    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix="." + os.path.basename(path) + "-", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(temp, path)
        except BaseException:
            os.unlink(temp)
            raise
    except OSError:
        pass
