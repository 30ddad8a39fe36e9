"""`session-tui serve`: starts, answers on loopback, runs the app per tab."""

from __future__ import annotations

import asyncio
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


async def wait_until_serving(http: aiohttp.ClientSession, server: subprocess.Popen, port: int) -> tuple[int, str]:
    deadline = time.monotonic() + 30
    while True:
        try:
            async with http.get(f"http://127.0.0.1:{port}/") as response:
                return response.status, await response.text()
        except aiohttp.ClientConnectionError:
            assert time.monotonic() < deadline and server.poll() is None, "serve did not start"
            await asyncio.sleep(0.2)


def start_serve(port: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "session_tui", "serve", str(SAMPLES / "claude"), "--port",
                             str(port)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


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


async def test_serve_answers_on_loopback_and_runs_the_app():
    port = free_port()
    server = start_serve(port)
    try:
        async with aiohttp.ClientSession() as http:
            status, page = await wait_until_serving(http, server, port)
            assert status == 200 and "session-tui claude" in page
            # a browser tab: a websocket that gets the app's first frame
            async with http.ws_connect(f"http://127.0.0.1:{port}/ws?width=100&height=30") as ws:
                assert len(await first_frame(ws)) >= 2000  # the terminal UI is drawing
    finally:
        server.terminate()
        server.wait(timeout=10)
    # loopback only by default: the listening socket is 127.0.0.1, not 0.0.0.0
    assert f"http://127.0.0.1:{port}" in server.stdout.read().decode()


async def test_serve_refuses_other_origins_and_other_hosts():
    """Another web page must not drive the UI through /ws, nor a rebound DNS name reach the server."""
    port = free_port()
    server = start_serve(port)
    try:
        async with aiohttp.ClientSession() as http:
            await wait_until_serving(http, server, port)
            url = f"http://127.0.0.1:{port}/ws?width=100&height=30"
            try:
                async with http.ws_connect(url, headers={"Origin": "https://evil.example"}):
                    raise AssertionError("a websocket from another origin was accepted")
            except aiohttp.WSServerHandshakeError as error:
                assert error.status == 403
            for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}"):
                async with http.ws_connect(url, headers={"Origin": origin}) as ws:
                    assert len(await first_frame(ws)) >= 2000
            async with http.get(f"http://127.0.0.1:{port}/", headers={"Host": f"evil.example:{port}"}) as response:
                assert response.status == 403
            async with http.get(f"http://127.0.0.1:{port}/", headers={"Host": f"localhost:{port}"}) as response:
                assert response.status == 200
    finally:
        server.terminate()
        server.wait(timeout=10)
    output = server.stdout.read().decode()
    assert "refused GET /ws: websocket from origin 'https://evil.example'" in output
    assert f"refused GET /: Host 'evil.example:{port}'" in output


def test_allowed_hosts_and_refusals():
    from session_tui.serve import allowed_hosts, refusal

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
