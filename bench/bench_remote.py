"""Remote sessions as a user sees them: a session over SFTP on loopback
against the same file opened locally, in a real terminal (tmux, 160×48).

    python bench/bench_remote.py [--size 100M] [--runs 3]

Prints, median of the runs:
  * process start → the active leaf's text on screen, local and over SFTP, and their ratio;
  * the bytes of file content the SFTP server sent before that paint;
  * the bytes it sent for one appended entry of about 1 KB while the app tails the file.

The SFTP server is asyncssh's, in this process, on 127.0.0.1 with throwaway
keys (tests/remote/servers.py); nothing else is contacted.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from bench_first_paint import leaf_text  # noqa: E402
from gen_tree import generate, parse_size  # noqa: E402

from tests.remote.servers import sftp_server  # noqa: E402


class Served:
    """The SFTP server's address and options, and the bytes it has sent (shared memory)."""

    def __init__(self, url: str, cli_options: list[str], tally: Any) -> None:
        self._url, self.cli_options, self.tally = url, cli_options, tally

    def url(self, path: str) -> str:
        return self._url + path

    @property
    def bytes_served(self) -> int:
        return int(self.tally[0])


def _serve(root: Path, keys: Path, tally: Any, ready: Any, stop: Any) -> None:
    with sftp_server(root, keys, tally=tally) as server:
        ready.send((server.url(""), server.cli_options))
        stop.wait()


@contextmanager
def sftp_in_a_process(root: Path, keys: Path) -> Iterator[Served]:
    """The SFTP server in a process of its own, as a real sshd would be (not
    sharing this process's interpreter with the tmux polling)."""
    ctx = multiprocessing.get_context("spawn")
    tally, stop = ctx.Array("q", 1), ctx.Event()
    ready, child_end = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_serve, args=(root, keys, tally, child_end, stop))
    proc.start()
    try:
        url, options = ready.recv()
        yield Served(url, options, tally)
    finally:
        stop.set()
        proc.join(timeout=30)


class Terminal:
    """The app in a detached tmux session."""

    def __init__(self, command: list[str]) -> None:
        self.name = f"bench-remote-{os.getpid()}-{time.monotonic_ns()}"
        self.start = time.monotonic()
        subprocess.run(
            ["tmux", "-L", "bench", "new-session", "-d", "-s", self.name, "-x", "160", "-y", "48",
             "env TERM=xterm-256color " + shlex.join(command) + "; sleep 60"],
            check=True,
        )  # fmt: skip

    def wait_for(self, text: str, timeout: float = 120) -> float:
        """Seconds since start when ``text`` is first on screen."""
        while time.monotonic() - self.start < timeout:
            screen = subprocess.run(
                ["tmux", "-L", "bench", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True
            )
            if text in screen.stdout:
                return time.monotonic() - self.start
            time.sleep(0.01)
        raise RuntimeError(f"{text!r} not on screen after {timeout} s")

    def wait_gone(self, text: str, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = subprocess.run(
                ["tmux", "-L", "bench", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True
            )
            if text not in screen.stdout:
                return
            time.sleep(0.05)
        raise RuntimeError(f"{text!r} still on screen after {timeout} s")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", "bench", "kill-session", "-t", self.name], capture_output=True)


def entry(n: int, parent: str) -> bytes:
    import orjson

    record = {
        "type": "message",
        "id": f"appended-{n}",
        "parentId": parent,
        "createdAt": "2026-11-30T00:00:00.000Z",
        "message": {"role": "user", "content": f"appended entry {n} " + "x" * 900},
    }
    return orjson.dumps(record) + b"\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="100M")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "served"
        root.mkdir()
        path = root / "session.jsonl"
        generate(str(path), parse_size(args.size))
        original = path.read_bytes()
        text = leaf_text(str(path))
        with sftp_in_a_process(root, Path(tmp) / "keys") as server:
            app = [sys.executable, "-m", "session_tui"]
            remote = [*app, server.url("session.jsonl"), *server.cli_options]
            local_times, remote_times, before_paint, per_append = [], [], [], []
            for run in range(args.runs):
                path.write_bytes(original)
                term = Terminal([*app, str(path)])
                try:
                    local_times.append(term.wait_for(text))
                finally:
                    term.close()
                served = server.bytes_served
                term = Terminal([*app, *remote[len(app) :]])
                try:
                    remote_times.append(term.wait_for(text))
                    before_paint.append(server.bytes_served - served)
                    term.wait_gone("indexing")  # the full index runs after the paint: let it end
                    quiet(server)  # and the problems pass after it
                    served = server.bytes_served
                    with open(path, "ab") as f:
                        f.write(entry(run, parent=_leaf_id(path, original)))
                    term.wait_for(f"appended entry {run}")
                    time.sleep(1)  # what the tail reads after showing it
                    per_append.append(server.bytes_served - served)
                finally:
                    term.close()
        local, far = statistics.median(local_times), statistics.median(remote_times)
        print(f"{len(original) / 1e6:.0f} MB session, median of {args.runs} runs, 160×48 tmux window")
        print(f"local:       start → active leaf on screen {local:.2f} s  (runs {_runs(local_times)})")
        print(f"over SFTP:   start → active leaf on screen {far:.2f} s  (runs {_runs(remote_times)})")
        print(f"ratio {far / local:.2f}× local (target ≤ 1.5×)")
        print(f"bytes served before the paint: {statistics.median(before_paint) / 1e6:.2f} MB (target ≤ 2 MB)")
        print(f"bytes served for a ~1 KB append while tailing: {statistics.median(per_append):,.0f} (target ≤ 4 KB)")


def quiet(server: Served, still: float = 1.0, timeout: float = 120) -> None:
    """Wait until the server has sent nothing for ``still`` seconds."""
    deadline = time.monotonic() + timeout
    last, since = server.bytes_served, time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = server.bytes_served
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= still:
            return
    raise RuntimeError("the app kept reading")


def _leaf_id(path: Path, original: bytes) -> str:
    from session_tui.model.session.session import Session

    with Session(str(path), start=max(0, len(original) - (1 << 20))) as session:
        session.refresh()
        return str(session.record(session.active_leaf())["id"])


def _runs(times: list[float]) -> str:
    return ", ".join(f"{t:.2f}" for t in times)


if __name__ == "__main__":
    main()
