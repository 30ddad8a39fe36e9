"""Where session-tui keeps what it works out about session files (the
picker's catalog, dry-run verdicts): the user cache dir, or
``$SESSION_TUI_CACHE_DIR``."""

from __future__ import annotations

import os

CACHE_ENV = "SESSION_TUI_CACHE_DIR"


def default_cache_dir() -> str:
    override = os.environ.get(CACHE_ENV)
    if override:
        return override
    from platformdirs import user_cache_dir

    return user_cache_dir("session-tui")
