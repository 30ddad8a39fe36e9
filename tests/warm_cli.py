"""``session-tui ARGS`` run as a real process without the interpreter's start each time.

A fresh ``python -m session_tui`` spends ~0.3 s starting and importing before
it reads a byte, and the suite runs the CLI about a thousand times: that was
most of its time. Here each test process starts one server that has imported
session-tui once; each run is a child it forks: its own process with its own
pid, working directory, environment, stdin (/dev/null), stdout and stderr
(files the test reads afterwards), exit status and atexit handlers, as
``subprocess.run`` gives. What a fork cannot give, the tests that need it
still start a fresh interpreter themselves (``subprocess`` directly): the
interpreter's own start (``-X importtime``, what a start imports), signals
sent to a process group, a terminal.

The server's imports read no environment at import time (checked: no module
of session_tui does, but the UI's, which it does not import), so a child
behaves as a fresh process given the same environment would.
"""

from __future__ import annotations

import atexit
import io
import json
import locale
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: imported once by the server: what most verbs import before they read a byte, and what many runs
#: import later (counted over a suite run: of ~1,000 runs, 680 imported importlib.metadata and email,
#: 470 the store, 410 asyncio, 320 the secret detector (then with requests), 230 psycopg, 200 genai-prices:
#: ~0.1 s of CPU a run). None reads the environment at import, but psycopg (``PSYCOPG_IMPL``, which
#: no test sets). Optional ones (the archive's psycopg) are passed over when missing.
PRELOAD = (
    "session_tui.cli",
    "session_tui.inert_output",
    "session_tui.commands.check",
    "session_tui.model.session.session",
    "session_tui.model.session.problems",
    "session_tui.model.formats",
    "session_tui.model.session.parallel",
    "session_tui.model.formats.client",
    *(f"session_tui.model.formats.{name}.client" for name in ("pi", "codex", "gemini", "opencode", "copilot")),
    *(f"session_tui.model.formats.{name}.client" for name in ("claude", "qwen")),
    "session_tui.actions.choices",
    "session_tui.store.edits",
    "session_tui.model.catalog.cache",
    "session_tui.model.privacy.redact",
    "session_tui.model.usage.prices",
    "session_tui.model.search_index.search",
    "session_tui.model.archive.push",
    "importlib.metadata",
    "asyncio",
    "concurrent.futures.thread",
    "multiprocessing",
    "zoneinfo",
    "platformdirs",
    "genai_prices",
    "psycopg",
)
MAX_MESSAGE = 1 << 20


def _send(sock: socket.socket, message: dict, fds: list[int] = ()) -> None:
    data = json.dumps(message).encode() + b"\n"
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.sendall(data)


def _receive(sock: socket.socket, buffer: bytearray, want_fds: int = 0) -> tuple[dict | None, list[int]]:
    fds: list[int] = []
    while b"\n" not in buffer:
        if want_fds and not fds:
            data, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, want_fds)
        else:
            data = sock.recv(MAX_MESSAGE)
        if not data:
            return None, fds
        buffer += data
    line, _, rest = bytes(buffer).partition(b"\n")
    buffer[:] = rest
    return json.loads(line), fds


# -- the server ------------------------------------------------------------------------


def serve(fd: int) -> None:
    """Answer runs on the socket ``fd`` until it closes: fork, run, report the status."""
    for name in PRELOAD:
        try:
            __import__(name)
        except ImportError:  # (an optional dependency not installed: its runs import it, or say it is missing)
            pass
    sock = socket.socket(fileno=fd)
    buffer = bytearray()
    while True:
        request, fds = _receive(sock, buffer, want_fds=2)
        if request is None:
            return
        pid = os.fork()
        if pid == 0:
            sock.close()
            _child(request, fds)  # never returns
        for each in fds:
            os.close(each)
        _send(sock, {"pid": pid})
        _, status = os.waitpid(pid, 0)
        _send(sock, {"status": status})


def _child(request: dict, fds: list[int]) -> None:
    code = 1
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fds[0], 1)
        os.dup2(fds[1], 2)
        for each in (null, *fds):
            os.close(each)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import random

        random.seed()
        encoding = os.environ.get("PYTHONIOENCODING") or locale.getpreferredencoding(False)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding=encoding)
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding=encoding)
        sys.stderr = io.TextIOWrapper(
            io.FileIO(2, "w", closefd=False), encoding=encoding, errors="backslashreplace", line_buffering=True
        )
        sys.argv = [str(REPO / "session_tui" / "__main__.py"), *request["argv"]]
        sys.path[0] = request["cwd"]
        from session_tui.cli import main

        try:
            result = main(request["argv"])
        except SystemExit as exc:
            result = exc.code
        code = result if isinstance(result, int) else (0 if result is None else 1)
        if not isinstance(result, int) and result is not None:
            print(result, file=sys.stderr)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        try:
            atexit._run_exitfuncs()
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
        finally:
            os._exit(code)


# -- the test side ---------------------------------------------------------------------


class _Server:
    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        code = (
            f"import sys; sys.path.insert(0, {str(REPO)!r}); from tests.warm_cli import serve; serve({theirs.fileno()})"
        )
        self.process = subprocess.Popen(
            [sys.executable, "-c", code], pass_fds=[theirs.fileno()], cwd=REPO, env=env, stdin=subprocess.DEVNULL
        )
        theirs.close()
        self.sock = ours
        self.buffer = bytearray()
        self.pid = os.getpid()
        atexit.register(self.close)

    def close(self) -> None:
        self.sock.close()  # (the server ends at the end of its socket)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()

    def run(
        self, argv: list[str], cwd: Path, env: dict[str, str], timeout: float, text: bool, kill_after: float | None
    ) -> subprocess.CompletedProcess:
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            _send(self.sock, {"argv": argv, "cwd": str(cwd), "env": env}, [out.fileno(), err.fileno()])
            started, _ = _receive(self.sock, self.buffer)
            if started is None:
                raise RuntimeError("the warm CLI server is gone")
            killed: list[int] = []
            if kill_after is not None:  # (a kill the caller asked for: its status says so, nothing is raised)
                timer = threading.Timer(kill_after, _kill, [started["pid"]])
            else:
                timer = threading.Timer(timeout, lambda: killed.append(_kill(started["pid"])))
            timer.start()
            try:
                done, _ = _receive(self.sock, self.buffer)
            finally:
                timer.cancel()
            if done is None:
                raise RuntimeError("the warm CLI server is gone")
            code = os.waitstatus_to_exitcode(done["status"])
            stdout, stderr = (_text(out), _text(err)) if text else (_bytes(out), _bytes(err))
        command = [sys.executable, "-m", "session_tui", *argv]
        if killed:
            raise subprocess.TimeoutExpired(command, timeout, stdout, stderr)
        return subprocess.CompletedProcess(command, code, stdout, stderr)


def _kill(pid: int) -> int:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return pid


def _bytes(file) -> bytes:
    file.seek(0)
    return file.read()


def _text(file) -> str:
    file.seek(0)
    return io.TextIOWrapper(file, encoding=locale.getpreferredencoding(False)).read()


_server: _Server | None = None
_lock = threading.Lock()


def run_warm(
    argv: list[str],
    cwd: Path,
    env: dict[str, str],
    timeout: float = 120,
    text: bool = True,
    kill_after: float | None = None,
) -> subprocess.CompletedProcess:
    """``python -m session_tui ARGV`` in ``cwd`` with ``env``, as a forked child of a warm server
    (``text``: stdout and stderr decoded as ``subprocess.run(text=True)`` does, else bytes;
    ``kill_after``: SIGKILL it that many seconds after it started, returncode -9 if it had not ended)."""
    global _server
    with _lock:
        if _server is None or _server.pid != os.getpid() or _server.process.poll() is not None:
            _server = _Server()
        return _server.run(argv, cwd, env, timeout, text, kill_after)
