"""Benchmark the live fleet (``session-tui live --json``) in a real process.

    python bench/bench_fleet.py [--files 5000] [--agents 50] [--seconds 20]

* idle: FILES session files written within the window, none written while
  measured: the CPU time the watching process takes over SECONDS, as a share
  of one core (target ≤ 2 %);
* busy: AGENTS agents writing at once (each a thread appending a turn:
  prompt, call, result, answer, at random pauses): the time from each write
  to the NDJSON line of the state it makes (target p95 ≤ 1 s).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def stamp(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def entry(n: int, parent: str | None, message: dict, at: float) -> str:
    return json.dumps(
        {"type": "message", "id": f"e{n}", "parentId": parent, "createdAt": stamp(at), "message": message}
    )


def idle_session(path: Path, at: float) -> None:
    """A native session answered an hour ago: idle."""
    lines = [json.dumps({"type": "session", "version": 1, "id": path.stem, "createdAt": stamp(at)})]
    lines.append(entry(1, None, {"role": "user", "content": f"Fix {path.stem}"}, at))
    lines.append(entry(2, "e1", {"role": "assistant", "content": "Done: the tests pass."}, at + 5))
    path.write_text("\n".join(lines) + "\n")
    os.utime(path, (at + 5, at + 5))


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime


def start(folder: Path) -> tuple[subprocess.Popen, queue.Queue]:
    env = {**os.environ, "SESSION_TUI_STUCK_AFTER": "300"}
    process = subprocess.Popen(
        [sys.executable, "-m", "session_tui", "live", "--json", str(folder), "--window", "2h"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for line in process.stdout:
            lines.put((time.monotonic(), json.loads(line)))

    threading.Thread(target=read, daemon=True).start()
    return process, lines


def idle(files: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        at = time.time() - 3600
        for k in range(files):
            sub = folder / f"project-{k % 100:03d}"
            sub.mkdir(exist_ok=True)
            idle_session(sub / f"session-{k:05d}.jsonl", at)
        began = time.monotonic()
        process, lines = start(folder)
        seen = 0
        while seen < files:
            lines.get(timeout=600)
            seen += 1
        ready = time.monotonic() - began
        time.sleep(2)  # the first tick and the watch's start
        before, t0 = cpu_seconds(process.pid), time.monotonic()
        time.sleep(seconds)
        used, span = cpu_seconds(process.pid) - before, time.monotonic() - t0
        process.terminate()
        process.wait()
    print(f"idle: {files:,} session files in the window, snapshot after {ready:.1f} s")
    print(f"idle: {used:.2f} s of CPU over {span:.1f} s = {100 * used / span:.2f} % of one core (target ≤ 2 %)")


def busy(agents: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = [folder / f"agent-{k:02d}.jsonl" for k in range(agents)]
        for path in paths:
            path.write_text(
                json.dumps({"type": "session", "version": 1, "id": path.stem, "createdAt": stamp(time.time())}) + "\n"
            )
        process, lines = start(folder)
        snapshot = 0
        while snapshot < agents:
            lines.get(timeout=120)
            snapshot += 1
        writes: queue.Queue = queue.Queue()  # (file, state it makes, monotonic time of the write)
        stop = time.monotonic() + seconds

        def agent(path: Path, seed: int) -> None:
            rng = random.Random(seed)
            n, parent = 0, None
            turn = [
                ("working", {"role": "user", "content": "Run the tests"}),
                (
                    "tool",
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {"id": "c", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
                        ],
                    },
                ),
                ("working", {"role": "tool", "tool_call_id": "c", "content": "ok"}),
                ("waiting", {"role": "assistant", "content": "All green."}),
            ]
            while time.monotonic() < stop:
                for state, message in turn:
                    n += 1
                    message = dict(message)
                    if state == "tool":
                        message["tool_calls"] = [{**message["tool_calls"][0], "id": f"c{n}"}]
                    if message.get("role") == "tool":
                        message["tool_call_id"] = f"c{n - 1}"
                    line = entry(n, parent, message, time.time()) + "\n"
                    parent = f"e{n}"
                    with open(path, "a") as f:
                        f.write(line)
                    writes.put((str(path), state, time.monotonic()))
                    time.sleep(rng.uniform(2.5, 4.0))  # (a waiting state needs 2 s of quiet after the answer)

        threads = [threading.Thread(target=agent, args=(p, k)) for k, p in enumerate(paths)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        time.sleep(3)
        process.terminate()
        process.wait()
        got: dict[str, list[tuple[float, str]]] = {}
        while not lines.empty():
            at, line = lines.get()
            got.setdefault(line["file"], []).append((at, line["state"]))
        latencies, missed = [], 0
        pending: dict[str, list[tuple[str, float]]] = {}
        while not writes.empty():
            path, state, at = writes.get()
            pending.setdefault(path, []).append((state, at))
        for path, wrote in pending.items():
            events = got.get(path, [])
            for state, at in wrote:
                found = next((t for t, s in events if s == state and t >= at), None)
                if found is None:
                    missed += 1
                else:
                    latencies.append(
                        found - at - (2.0 if state == "waiting" else 0.0)
                    )  # (waiting: after its 2 s settle)
        latencies.sort()
        p95 = latencies[int(0.95 * (len(latencies) - 1))] if latencies else float("nan")
    print(
        f"busy: {agents} agents writing, {len(latencies):,} state changes seen ({missed} not seen): "
        f"median {statistics.median(latencies) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms (target ≤ 1 s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--agents", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    idle(args.files, args.seconds)
    busy(args.agents, args.seconds)


if __name__ == "__main__":
    main()
