"""The live half of bench/bench_archive.py: a fleet of ``archive push --follow``
processes (one per simulated machine) and a writer appending to one file per
machine, the lag from each write to its row in the archive, and ``live
DB_URL --json`` seeing every machine. Also agentsview's ``pg push`` / ``pg
serve`` on the same files (the side-by-side), when it is installed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

from bench_fleet import stamp

REPO = Path(__file__).resolve().parent.parent
ENV = {k: v for k, v in os.environ.items() if not k.startswith("PG")}

#: appends ``count`` records to each file named after it, round robin, one every ``pace`` seconds, each with the
#: time it was written ("w", and as the entry's own time: an agent writes its entries as they happen)
WRITER = r"""
import json, os, sys, time
from datetime import datetime, timezone
pace, count, paths = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
fds = [os.open(p, os.O_WRONLY | os.O_APPEND) for p in paths]
for k in range(4, 4 + count):
    for fd in fds:
        now = time.time()
        created = datetime.fromtimestamp(now, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        record = {"type": "message", "id": f"e{k}", "parentId": f"e{k - 1}", "createdAt": created,
                  "message": {"role": "user" if k % 2 == 0 else "assistant", "content": f"line {k} " + "x" * 300},
                  "w": now}
        os.write(fd, json.dumps(record).encode() + b"\n")
        time.sleep(pace)
"""


def live_file(folder: Path) -> Path:
    """The file a machine's agent keeps writing during the fleet phase: a tree session of 3 lines, begun now."""
    path = folder / "live" / "s.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    created = stamp(time.time())
    lines = [{"type": "session", "version": 1, "id": "live", "createdAt": created}]
    for k in (2, 3):
        lines.append(
            {
                "type": "message",
                "id": f"e{k}",
                "parentId": None if k == 2 else "e2",
                "createdAt": created,
                "message": {"role": "user" if k == 2 else "assistant", "content": f"line {k}"},
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def start_followers(url: str, folders: dict[str, Path], logs: Path, timeout: float = 600) -> list[subprocess.Popen]:
    """One ``archive push --follow`` per machine, each once it says it follows (its first push done)."""
    logs.mkdir(parents=True, exist_ok=True)
    processes = []
    for machine, folder in folders.items():
        out = open(logs / f"{machine}.out", "wb")
        argv = [sys.executable, "-m", "session_tui", "archive", "push", url, str(folder), "--machine", machine]
        argv += ["--follow", "--no-redact"]
        processes.append(subprocess.Popen(argv, cwd=REPO, env=ENV, stdout=out, stderr=subprocess.STDOUT))
        out.close()
    deadline = time.monotonic() + timeout
    waiting = dict(zip(folders, processes, strict=True))
    while waiting and time.monotonic() < deadline:
        for machine, process in list(waiting.items()):
            said = (logs / f"{machine}.out").read_bytes()
            if b"following " in said:
                del waiting[machine]
            elif process.poll() is not None:
                stop_all(processes)
                raise SystemExit(f"the follower of {machine} ended: {said.decode(errors='replace')[-500:]}")
        time.sleep(0.2)
    if waiting:
        stop_all(processes)
        raise SystemExit(f"{len(waiting)} followers did not start following in {timeout:.0f} s")
    return processes


def stop_all(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def follow_lag(url: str, files: list[Path], appends: int, pace: float) -> list[float]:
    """Run the writer over ``files``; the lags (s) from each write to its line being in the archive."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        ids = [row[0] for row in conn.execute("SELECT id FROM files WHERE path = ANY(%s)", ([str(f) for f in files],))]
        assert len(ids) == len(files), f"{len(ids)} of the {len(files)} live files in the archive"
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(pace), str(appends), *map(str, files)])
        lags: dict[tuple[int, int], float] = {}
        want = appends * len(files)
        deadline = time.monotonic() + appends * len(files) * pace + 60
        while len(lags) < want and time.monotonic() < deadline:
            rows = conn.execute(
                "SELECT file_id, line_no, (record->>'w')::float8 FROM lines "
                "WHERE file_id = ANY(%s) AND line_no > 3 AND terminated",
                (ids,),
            ).fetchall()
            seen = time.time()
            for file_id, line_no, written in rows:
                lags.setdefault((file_id, line_no), seen - written)
            time.sleep(0.02)  # (the poll's pace: a line is seen within ~20 ms of its arrival, plus the query)
        writer.wait(timeout=60)
    if len(lags) < want:
        print(f"  only {len(lags)} of {want} appends reached the archive")
    return sorted(lags.values())


def live_sees(url: str, machines: int, cache: Path, timeout: float = 120) -> tuple[float, int]:
    """(seconds until ``live --json DB_URL`` has shown a session of every machine, machines seen), with its
    default window (2 h): the sessions the fleet wrote lately, not the archive's older ones."""
    env = dict(ENV, SESSION_TUI_CACHE_DIR=str(cache))
    argv = [sys.executable, "-m", "session_tui", "live", "--json", url]
    began = time.perf_counter()
    process = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    seen: set[str] = set()
    took = float("nan")
    out = process.stdout
    assert out is not None
    try:
        os.set_blocking(out.fileno(), False)
        buffer = b""
        while time.perf_counter() - began < timeout and len(seen) < machines:
            chunk = out.read() or b""
            if not chunk:
                if process.poll() is not None:
                    break
                time.sleep(0.05)
                continue
            buffer += chunk
            *whole, buffer = buffer.split(b"\n")
            for line in whole:
                if line.strip():
                    seen.add(json.loads(line).get("machine", ""))
        if len(seen) >= machines:
            took = time.perf_counter() - began
    finally:
        process.kill()
        process.wait()
    return took, len(seen)


def agentsview() -> str | None:
    """agentsview's command (``pip install agentsview``: its wheel carries a Go binary), or None."""
    beside = Path(sys.executable).parent / "agentsview"
    return str(beside) if beside.exists() else shutil.which("agentsview")


class AgentsViewPG:
    """agentsview ``pg push`` (its local sync into SQLite, then the push) per machine, into its own database,
    configured by environment (AGENTSVIEW_PG_URL, AGENTSVIEW_PG_MACHINE); ``pg serve`` for its search
    (``/api/v1/search/content``: substring, its default mode). Offline: no network is used."""

    def __init__(self, command: str, url: str, work: Path) -> None:
        self.command, self.url, self.work = command, url, work
        self.server: subprocess.Popen[bytes] | None = None
        self.port = 0

    def env(self, machine: str, folder: Path | None) -> dict[str, str]:
        home = self.work / machine
        home.mkdir(parents=True, exist_ok=True)
        env = dict(ENV, HOME=str(home), AGENTSVIEW_DATA_DIR=str(home / "data"), AGENTSVIEW_NO_DAEMON="1")
        env |= {"AGENTSVIEW_PG_URL": self.url, "AGENTSVIEW_PG_MACHINE": machine}
        if folder is not None:
            env |= {"CLAUDE_PROJECTS_DIR": str(folder / "claude"), "CODEX_SESSIONS_DIR": str(folder / "codex")}
        return env

    def push(self, machine: str, folder: Path) -> float:
        began = time.perf_counter()
        done = subprocess.run(
            [self.command, "pg", "push"], env=self.env(machine, folder), capture_output=True, text=True, timeout=3600
        )
        if done.returncode:
            raise RuntimeError(f"agentsview pg push exited {done.returncode}: {done.stderr[-500:]}")
        return time.perf_counter() - began

    def start(self) -> None:
        from search_peers import _free_port

        self.port = _free_port()
        env = self.env("server", None)
        argv = [self.command, "pg", "serve", "--no-browser", "--no-update-check", "--port", str(self.port)]
        self.server = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                self.query("zzzqqq-nothing")
                return
            except OSError:
                if self.server.poll() is not None:
                    raise RuntimeError(f"agentsview pg serve exited {self.server.returncode}") from None
                time.sleep(0.2)
        raise RuntimeError("agentsview pg serve did not answer")

    def stop(self) -> None:
        if self.server:
            self.server.terminate()
            self.server.wait(timeout=30)

    def query(self, text: str, limit: int = 20) -> float:
        """Milliseconds of one search through its HTTP API (the request's wall time)."""
        params = {"pattern": text.replace('"', ""), "include_children": "true", "limit": str(limit)}
        url = f"http://127.0.0.1:{self.port}/api/v1/search/content?" + urllib.parse.urlencode(params)
        began = time.perf_counter()
        with urllib.request.urlopen(url, timeout=300) as answer:
            json.loads(answer.read())
        return (time.perf_counter() - began) * 1000


def p50_max(values: list[float]) -> str:
    return f"p50 {statistics.median(values) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms" if values else "-"
