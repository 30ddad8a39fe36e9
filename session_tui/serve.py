"""`session-tui serve`: the terminal UI in a web browser, via textual-serve.

Each browser tab runs its own ``session-tui PATH`` process. Bound to
loopback unless told otherwise: the UI can edit session files.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import shlex
import socket
import sys
from collections.abc import Mapping

from .model.sanitize import inert

LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_port(host: str, port: int) -> str:
    """``host:port`` as a browser writes it in a Host header (IPv6 in brackets, names in lower case)."""
    host = host.lower()
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The Host header values the server answers: the address served, plus the loopback spellings if loopback.

    Anything else is another site's name pointing at us (DNS rebinding) and is refused."""
    hosts = {host_port(host, port)}
    if is_loopback(host):
        hosts |= {host_port(name, port) for name in ("localhost", "127.0.0.1", "::1")}
    if port == 80:  # browsers leave the default port out of Host and Origin
        hosts |= {name.rsplit(":", 1)[0] for name in hosts}
    return frozenset(hosts)


def refusal(headers: Mapping[str, str], hosts: frozenset[str], websocket: bool) -> str | None:
    """Why a request is refused (None: accepted): a Host not served, or a websocket from another page's origin.

    A browser sends ``Origin`` on a websocket handshake; a page on any other site (or on a rebound
    name) would otherwise be able to drive the UI and edit sessions through ``/ws``."""
    host = (headers.get("Host") or "").lower()
    if host not in hosts:
        return f"Host {host!r} is not served here"
    origin = headers.get("Origin")
    if websocket and origin is not None and origin.lower() not in {f"http://{name}" for name in hosts}:
        return f"websocket from origin {origin!r}"
    return None


def guarded_server(command: str, host: str, port: int, title: str):
    """A textual-serve Server that answers only requests for its own address, and websockets from its own page."""
    from aiohttp import web
    from textual_serve.server import Server

    hosts = allowed_hosts(host, port)
    log = logging.getLogger("session-tui.serve")

    @web.middleware
    async def check_host_and_origin(request: web.Request, handler):
        reason = refusal(request.headers, hosts, websocket=request.path == "/ws"
                         or request.headers.get("Upgrade", "").lower() == "websocket")
        if reason is not None:
            log.warning(inert(f"refused {request.method} {request.path}: {reason}", keep_newlines=False))
            return web.Response(status=403, text="403: Forbidden\n")
        return await handler(request)

    class GuardedServer(Server):
        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.middlewares.append(check_host_and_origin)
            return app

    return GuardedServer(command, host=host, port=port, title=title)


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
    guarded_server(app_command(path, format, watch), host, port, title).serve()
    return 0
