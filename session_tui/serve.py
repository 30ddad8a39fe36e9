"""`session-tui serve`: the terminal UI in a web browser, via textual-serve.

Each browser tab runs its own ``session-tui PATH`` process. Bound to
loopback unless told otherwise: the UI can edit session files.
"""

from __future__ import annotations

import ipaddress
import os
import shlex
import socket
import sys

from .model.sanitize import inert

LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def app_command(path: str | None, format: str | None, watch: bool) -> str:
    """The shell command each browser session runs (every part quoted)."""
    parts = [sys.executable, "-m", "session_tui"]
    if path is not None:
        parts.append(os.path.abspath(path))
    if format:
        parts += ["--format", format]
    if not watch:
        parts.append("--no-watch")
    return shlex.join(parts)


def run_serve(path: str | None, host: str, port: int, format: str | None = None, watch: bool = True) -> int:
    from textual_serve.server import Server

    if path is not None and not os.path.exists(path):
        print(f"session-tui serve: {inert(path, keep_newlines=False)}: no such file or directory", file=sys.stderr)
        return 2
    try:  # a taken port or an unknown host: one line now, not a traceback from the server later
        with socket.create_server((host, port)):
            pass
    except OSError as exc:
        print(f"session-tui serve: cannot listen on {inert(host, keep_newlines=False)}:{port}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return 2
    if not is_loopback(host):
        print(f"session-tui serve: warning: listening on {inert(host, keep_newlines=False)}, not loopback: anyone "
              "who can reach it can read and edit these sessions", file=sys.stderr)
    title = f"session-tui {os.path.basename(os.path.abspath(path))}" if path else "session-tui"
    Server(app_command(path, format, watch), host=host, port=port, title=title).serve()
    return 0
