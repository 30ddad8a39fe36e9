"""Where the clients keep their sessions: the folders read when no path is given."""

from __future__ import annotations

import os

KNOWN_LOCATIONS = (
    "~/.claude/projects",
    "~/.codex/sessions",
    "~/.pi/agent/sessions",
    "~/.gemini/tmp",
    "~/.qwen/projects",
    "~/.copilot/session-state",
    "~/.local/share/opencode/opencode.db",  # (a database: each of its sessions is a row)
)


def default_paths() -> list[str]:
    """The known session folders (and opencode's database) that exist, else ./sample_sessions."""
    found = [os.path.expanduser(p) for p in KNOWN_LOCATIONS if os.path.exists(os.path.expanduser(p))]
    return found or (["sample_sessions"] if os.path.isdir("sample_sessions") else [])
