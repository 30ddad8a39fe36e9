"""`session-tui serve`: the terminal UI in a web browser, via textual-serve.

Each browser tab runs its own ``session-tui PATH`` process. Bound to
loopback unless told otherwise: the UI can edit session files. Loopback is not
a user boundary on a shared host, so every request also needs the token the
server prints at start (in the URL, then in a cookie), as Jupyter does.
"""

from __future__ import annotations

import argparse
import hmac
import ipaddress
import logging
import os
import re
import secrets
import shlex
import socket
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..model.sanitize import inert, inert_line
from .options import format_option

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings
    from .options import Commands

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


def token_refusal(given: str | None, token: str) -> str | None:
    """Why a request's token is refused (None: it is the right one); compared in constant time."""
    if not given:
        return "no token"
    if not hmac.compare_digest(given.encode("utf-8", "surrogatepass"), token.encode()):
        return "wrong token"
    return None


# textual-serve's page takes its font from fonts.googleapis.com; the same font ships in its static folder
STYLESHEET = re.compile(r'<link\b[^>]*\bhref="(https?://[^"]*)"[^>]*>', re.IGNORECASE)
LOCAL_FONTS = """<style>
      @font-face { font-family: "Roboto Mono"; font-style: normal;
        src: url("/static/fonts/RobotoMono-VariableFont_wght.ttf") format("truetype"); }
      @font-face { font-family: "Roboto Mono"; font-style: italic;
        src: url("/static/fonts/RobotoMono-Italic-VariableFont_wght.ttf") format("truetype"); }
    </style>"""


def local_assets(page: str, own_url: str) -> str:
    """The page without stylesheets from other hosts (the web font), with the font served here instead."""
    page = STYLESHEET.sub(lambda link: link[0] if link[1].startswith(f"{own_url}/") else "", page)
    return page.replace("</head>", f"{LOCAL_FONTS}\n  </head>", 1)


class InertFormatter(logging.Formatter):
    """Each log record as one inert line (request paths and headers come from anyone who can connect),
    an exception as its one-line message, not a traceback, and the token left out."""

    def __init__(self, token: str):
        super().__init__()
        self.token = token

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            message += f": {type(record.exc_info[1]).__name__}: {record.exc_info[1]}"
        return inert_line(f"{record.levelname} {message}".replace(self.token, "<token>"))


def guarded_server(command: str, host: str, port: int, title: str, token: str):
    """A textual-serve Server that answers only requests for its own address that carry the token,
    and websockets from its own page; its page loads nothing from another host."""
    from aiohttp import web
    from textual_serve.server import Server

    hosts = allowed_hosts(host, port)
    cookie = f"session-tui-token-{port}"  # cookies ignore the port: one name per server
    public_url = f"http://{host_port(host, port)}"
    log = logging.getLogger("session-tui.serve")

    @web.middleware
    async def check_request(request: web.Request, handler):
        given = request.query.get("token")
        reason = refusal(
            request.headers,
            hosts,
            websocket=request.path == "/ws" or request.headers.get("Upgrade", "").lower() == "websocket",
        ) or token_refusal(given or request.cookies.get(cookie), token)
        if reason is not None:
            log.warning(inert_line(f"refused {request.method} {request.path}: {reason}"))
            return web.Response(status=403, text="403: Forbidden\n")
        response = await handler(request)
        if given and not response.prepared:  # the first page load: later requests (/static, /ws) send the cookie
            response.set_cookie(cookie, token, path="/", httponly=True, samesite="Strict")
        return response

    class GuardedServer(Server):
        def initialize_logging(self) -> None:
            handler = logging.StreamHandler(sys.stdout)
            handler.setFormatter(InertFormatter(token))
            logging.basicConfig(level="INFO", handlers=[handler], force=True)

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.middlewares.append(check_request)
            return app

        async def handle_index(self, request: web.Request) -> web.Response:
            response = await super().handle_index(request)
            # aiohttp_jinja2 types what its template decorator returns as a StreamResponse:
            # the page it renders is a web.Response with a text body
            assert isinstance(response, web.Response) and response.text is not None
            response.text = local_assets(response.text, public_url)
            return response

        async def on_startup(self, app: web.Application) -> None:
            url = inert_line(f"{public_url}/?token={token}")
            print(
                inert_line(f"session-tui serve: each tab runs {command}"),
                "Open this URL (its token is the key to these sessions: do not share it):",
                "",
                f"    {url}",
                "",
                "Press Ctrl+C to quit.",
                sep="\n",
                flush=True,
            )

    return GuardedServer(command, host=host, port=port, title=title, public_url=public_url)


def app_command(path: str | None, format: str | None, watch: bool, redact: bool = False) -> str:
    """The shell command each browser session runs (every part quoted)."""
    parts = [sys.executable, "-m", "session_tui"]
    if path is not None:
        parts.append(os.path.abspath(path))
    if format:
        parts += ["--format", format]
    if not watch:
        parts.append("--no-watch")
    if redact:
        parts.append("--redact")
    return shlex.join(parts)


def run_serve(
    path: str | None, host: str, port: int, format: str | None = None, watch: bool = True, redact: bool = False
) -> int:
    if path is not None and not os.path.exists(path):
        print(f"session-tui serve: {inert(path, keep_newlines=False)}: no such file or directory", file=sys.stderr)
        return 2
    if path is not None and os.path.isfile(path) and format is None:
        from .paths import say_path_problems

        if say_path_problems("serve", [path]):  # (not a session: said now, not in each browser tab)
            return 2
    if not 0 < port < 65536:
        print(f"session-tui serve: --port {port}: not a port (1-65535)", file=sys.stderr)
        return 2
    try:  # a taken port or an unknown host: one line now, not a traceback from the server later
        with socket.create_server((host, port)):
            pass
    except OSError as exc:
        print(
            f"session-tui serve: cannot listen on {inert(host, keep_newlines=False)}:{port}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    if not is_loopback(host):
        print(
            f"session-tui serve: warning: listening on {inert(host, keep_newlines=False)}, not loopback: plain "
            "HTTP, so anyone who can see the traffic can take the token, then read and edit these sessions",
            file=sys.stderr,
        )
    title = f"session-tui {os.path.basename(os.path.abspath(path))}" if path else "session-tui"
    guarded_server(app_command(path, format, watch, redact), host, port, title, secrets.token_urlsafe(32)).serve()
    return 0


def add_parser(commands: Commands) -> None:
    serve = commands.add_parser(
        "serve",
        help="the terminal UI in a web browser (textual-serve)",
        description="Serve the UI over HTTP: each browser tab runs `session-tui PATH`. "
        "Open the URL it prints: its token is required.",
    )
    serve.add_argument(
        "path", metavar="PATH", nargs="?", help="a session file or a directory (default: as `session-tui` without PATH)"
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, loopback only)")
    serve.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    format_option(serve)
    serve.add_argument("--no-watch", action="store_true", help="do not follow changes to the file")
    serve.add_argument("--redact", action="store_true", help="mask secrets in the served UI")


def run(args: argparse.Namespace, settings: Settings) -> int:
    return run_serve(args.path, args.host, args.port, args.format, not args.no_watch, settings.redact)
