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


async def test_serve_answers_on_loopback_and_runs_the_app():
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "session_tui", "serve", str(SAMPLES / "claude"), "--port",
                               str(port)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        async with aiohttp.ClientSession() as http:
            deadline = time.monotonic() + 30
            while True:
                try:
                    async with http.get(f"http://127.0.0.1:{port}/") as response:
                        page = await response.text()
                        break
                except aiohttp.ClientConnectionError:
                    assert time.monotonic() < deadline and server.poll() is None, "serve did not start"
                    await asyncio.sleep(0.2)
            assert response.status == 200 and "session-tui claude" in page
            # a browser tab: a websocket that gets the app's first frame
            async with http.ws_connect(f"http://127.0.0.1:{port}/ws?width=100&height=30") as ws:
                received = b""
                while len(received) < 2000 and time.monotonic() < deadline:
                    message = await asyncio.wait_for(ws.receive(), timeout=20)
                    if message.type == aiohttp.WSMsgType.BINARY:
                        received += message.data
                    elif message.type == aiohttp.WSMsgType.TEXT:
                        received += message.data.encode()
                    else:
                        break
                assert len(received) >= 2000  # the terminal UI is drawing
    finally:
        server.terminate()
        server.wait(timeout=10)
    # loopback only by default: the listening socket is 127.0.0.1, not 0.0.0.0
    assert f"http://127.0.0.1:{port}" in server.stdout.read().decode()


def test_serve_refuses_a_missing_path_and_a_taken_port(tmp_path):
    result = run_cli("serve", str(tmp_path / "nope"))
    assert result.returncode == 2 and "no such file" in result.stderr and "Traceback" not in result.stderr
    with socket.create_server(("127.0.0.1", 0)) as taken:
        result = run_cli("serve", str(SAMPLES), "--port", str(taken.getsockname()[1]))
    assert result.returncode == 2 and "cannot listen" in result.stderr
