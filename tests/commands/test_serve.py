"""`session-tui serve`: starts, answers on loopback, runs the app per tab."""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import subprocess
import sys
import time

import aiohttp

from tests.support import REPO, SAMPLES, run_cli


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def serve_url(server: subprocess.Popen) -> str:
    """The URL (with its token) the server prints at start, read from its stdout while it runs."""
    deadline = time.monotonic() + 30
    while True:
        line = await asyncio.wait_for(asyncio.to_thread(server.stdout.readline), timeout=deadline - time.monotonic())
        assert line, f"serve exited: {server.stderr.read().decode()}"
        if "?token=" in line.decode():
            return line.decode().strip()


async def wait_until_serving(http: aiohttp.ClientSession, server: subprocess.Popen, url: str) -> tuple[int, str]:
    deadline = time.monotonic() + 30
    while True:
        try:
            async with http.get(url) as response:
                return response.status, await response.text()
        except aiohttp.ClientConnectionError:
            assert time.monotonic() < deadline and server.poll() is None, "serve did not start"
            await asyncio.sleep(0.2)


def start_serve(port: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "session_tui", "serve", str(SAMPLES / "claude"), "--port", str(port)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def browser() -> aiohttp.ClientSession:
    """A client that keeps cookies, as a browser does (aiohttp's default jar drops cookies set by an IP address)."""
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


def stranger() -> aiohttp.ClientSession:
    """Another local user's client: no token, no cookie."""
    return aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar())


async def first_frame(ws: aiohttp.ClientWebSocketResponse) -> bytes:
    received = b""
    deadline = time.monotonic() + 30
    while len(received) < 2000 and time.monotonic() < deadline:
        message = await asyncio.wait_for(ws.receive(), timeout=20)
        if message.type == aiohttp.WSMsgType.BINARY:
            received += message.data
        elif message.type == aiohttp.WSMsgType.TEXT:
            received += message.data.encode()
        else:
            break
    return received


async def refused_websocket(http: aiohttp.ClientSession, url: str, **kwargs) -> int:
    try:
        async with http.ws_connect(url, **kwargs):
            raise AssertionError(f"a websocket was accepted: {url} {kwargs}")
    except aiohttp.WSServerHandshakeError as error:
        return error.status


async def test_serve_answers_on_loopback_and_runs_the_app():
    port = free_port()
    server = start_serve(port)
    try:
        url = await serve_url(server)
        # loopback only by default: the listening socket is 127.0.0.1, not 0.0.0.0
        assert re.fullmatch(rf"http://127\.0\.0\.1:{port}/\?token=[\w-]{{40,}}", url)
        async with browser() as http:
            status, page = await wait_until_serving(http, server, url)
            assert status == 200 and "session-tui claude" in page
            # the token comes back as a cookie the page's own requests carry (the page opens /ws without it)
            async with http.get(url) as response:
                set_cookie = response.headers["Set-Cookie"]
            assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie and "Path=/" in set_cookie
            async with http.get(f"http://127.0.0.1:{port}/static/fonts/RobotoMono-VariableFont_wght.ttf") as font:
                assert font.status == 200
            # a browser tab: a websocket that gets the app's first frame
            async with http.ws_connect(f"http://127.0.0.1:{port}/ws?width=100&height=30") as ws:
                assert len(await first_frame(ws)) >= 2000  # the terminal UI is drawing
    finally:
        server.terminate()
        server.wait(timeout=10)
    # the page loads nothing from another host (the SVG namespace is a name, not a load)
    hosts = set(re.findall(r"https?://([^/\"'\s)]+)", re.sub(r'xmlns="[^"]*"', "", page)))
    assert hosts == {f"127.0.0.1:{port}"}
    assert "@font-face" in page and "googleapis" not in page
    output = server.stdout.read().decode()
    assert url.split("=", 1)[1] not in output and "?token=<token>" in output  # the access log leaves it out


async def test_serve_refuses_requests_without_the_token():
    """Loopback is not a user boundary: another local user's process, without the printed token, gets nothing."""
    port = free_port()
    server = start_serve(port)
    try:
        url = await serve_url(server)
        token = url.split("=", 1)[1]
        base = f"http://127.0.0.1:{port}"
        async with browser() as http:
            await wait_until_serving(http, server, url)
        async with stranger() as http:
            for path in (
                "/",
                "/?token=wrong",
                "/?token=%C3%A9%ED%A0%80",
                "/?token=",
                "/static/js/textual.js",
                "/static/",
                "/download/x",
                f"/?Token={token}",
            ):
                async with http.get(base + path) as response:
                    assert response.status == 403, path
                    assert "Set-Cookie" not in response.headers
            async with http.get(base + "/", headers={"Cookie": f"session-tui-token-{port}=wrong"}) as response:
                assert response.status == 403
            # a websocket without an Origin header (not a browser) still needs the token
            assert await refused_websocket(http, f"{base}/ws?width=100&height=30") == 403
            assert await refused_websocket(http, f"{base}/ws?token=wrong") == 403
            assert await refused_websocket(http, f"{base}/ws", headers={"Cookie": f"session-tui-token-{port}=x"}) == 403
            # the right cookie, as the page's own websocket sends it
            async with http.ws_connect(
                f"{base}/ws?width=100&height=30", headers={"Cookie": f"session-tui-token-{port}={token}"}
            ) as ws:
                assert len(await first_frame(ws)) >= 2000
    finally:
        server.terminate()
        server.wait(timeout=10)
    output = server.stdout.read().decode()
    assert "refused GET /: no token" in output and "refused GET /: wrong token" in output
    assert "refused GET /ws: no token" in output and "Traceback" not in output and token not in output


async def test_serve_refuses_other_origins_and_other_hosts():
    """Another web page must not drive the UI through /ws, nor a rebound DNS name reach the server."""
    port = free_port()
    server = start_serve(port)
    try:
        url = await serve_url(server)
        async with browser() as http:
            await wait_until_serving(http, server, url)
            ws_url = f"http://127.0.0.1:{port}/ws?width=100&height=30"
            assert await refused_websocket(http, ws_url, headers={"Origin": "https://evil.example"}) == 403
            for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}"):
                async with http.ws_connect(ws_url, headers={"Origin": origin}) as ws:
                    assert len(await first_frame(ws)) >= 2000
            async with http.get(url, headers={"Host": f"evil.example:{port}"}) as response:
                assert response.status == 403  # the token does not help another name
            async with http.get(url, headers={"Host": f"localhost:{port}"}) as response:
                assert response.status == 200
    finally:
        server.terminate()
        server.wait(timeout=10)
    output = server.stdout.read().decode()
    assert "refused GET /ws: websocket from origin 'https://evil.example'" in output
    assert f"refused GET /: Host 'evil.example:{port}'" in output


def test_token_refusal_local_assets_and_log_lines():
    from session_tui.commands.serve import InertFormatter, local_assets, token_refusal

    assert token_refusal("abc", "abc") is None
    assert token_refusal(None, "abc") == "no token" and token_refusal("", "abc") == "no token"
    assert token_refusal("abd", "abc") == "wrong token"
    assert token_refusal("\u00e9\ud800", "abc") == "wrong token"  # not ASCII, a lone surrogate: no TypeError
    page = (
        '<head><link rel="stylesheet" href="http://127.0.0.1:8000/static/css/xterm.css" />\n'
        '<link\n rel="stylesheet"\n href="https://fonts.googleapis.com/css?family=Roboto%20Mono"\n/></head>'
    )
    local = local_assets(page, "http://127.0.0.1:8000")
    assert "googleapis" not in local and "/static/css/xterm.css" in local and "/static/fonts/" in local
    record = logging.LogRecord("x", logging.WARNING, "", 0, "GET /?token=sekrit \x1b[31m\u202e", (), None)
    try:
        raise ValueError("bad\nrequest")
    except ValueError:
        record.exc_info = sys.exc_info()
    line = InertFormatter("sekrit").format(record)
    assert line == "WARNING GET /?token=<token> \u241b[31m<202E>: ValueError: bad\u240arequest"


def test_allowed_hosts_and_refusals():
    from session_tui.commands.serve import allowed_hosts, refusal

    loopback = allowed_hosts("127.0.0.1", 8000)
    assert loopback == {"127.0.0.1:8000", "localhost:8000", "[::1]:8000"}
    assert allowed_hosts("::1", 8000) == loopback
    assert allowed_hosts("192.0.2.7", 8000) == {"192.0.2.7:8000"}
    assert "localhost" in allowed_hosts("localhost", 80)
    assert refusal({"Host": "127.0.0.1:8000"}, loopback, websocket=True) is None  # no Origin: not a browser page
    assert refusal({"Host": "LOCALHOST:8000", "Origin": "http://localhost:8000"}, loopback, websocket=True) is None
    assert refusal({"Host": "127.0.0.1:8000", "Origin": "http://evil.example"}, loopback, websocket=True)
    assert refusal({"Host": "127.0.0.1:8000", "Origin": "https://127.0.0.1:8000"}, loopback, websocket=True)
    assert refusal({"Host": "evil.example:8000"}, loopback, websocket=False)
    assert refusal({}, loopback, websocket=False)  # no Host at all
    assert refusal({"Host": "127.0.0.1:8001"}, loopback, websocket=False)


def test_serve_refuses_a_missing_path_and_a_taken_port(tmp_path):
    result = run_cli("serve", str(tmp_path / "nope"))
    assert result.returncode == 2 and "no such file" in result.stderr and "Traceback" not in result.stderr
    with socket.create_server(("127.0.0.1", 0)) as taken:
        result = run_cli("serve", str(SAMPLES), "--port", str(taken.getsockname()[1]))
    assert result.returncode == 2 and "cannot listen" in result.stderr
    for port in ("0", "70000", "-1"):
        result = run_cli("serve", str(SAMPLES), "--port", port)
        assert result.returncode == 2 and "not a port" in result.stderr and "internal error" not in result.stderr


async def test_the_usage_screen_draws_in_a_served_tab_at_80x24():
    """U in a browser tab: the heading, the fill and the plot's braille cells come over the websocket."""
    import json

    path = SAMPLES / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "session_tui", "serve", str(path), "--port", str(port)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        url = await serve_url(server)
        async with browser() as http:
            await wait_until_serving(http, server, url)
            async with http.ws_connect(f"http://127.0.0.1:{port}/ws?width=80&height=24") as ws:
                received = (await first_frame(ws)).decode("utf-8", "replace")
                deadline = time.monotonic() + 30
                while "35 entries" not in received and time.monotonic() < deadline:  # indexed: U can open
                    data = (await asyncio.wait_for(ws.receive(), timeout=20)).data
                    received += data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)
                await ws.send_str(json.dumps(["stdin", "U"]))
                received = ""
                while not ("ctx 9.2k" in received and "⣀" in received) and time.monotonic() < deadline:
                    message = await asyncio.wait_for(ws.receive(), timeout=20)
                    data = message.data
                    received += data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)
                assert "cost $0.28" in received and "ctx 9.2k" in received and "⣀" in received
    finally:
        server.terminate()
        server.wait(timeout=10)
