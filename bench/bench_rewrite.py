"""Benchmark a backed-up rewrite of a big session (``fix --drop-bad``, what
undo and a torn tail's cut do too) with an agent appending to it: how long
the edit takes, how long it holds the writer lock (what other edits wait
for), and that every line the agent wrote is in the file once, in order.

    python bench/bench_rewrite.py [--size 100M] [--runs 3] [--rate 100]

A generated tree session (bench/gen_tree.py) of ``--size`` with a bad line
in the middle; a second process appends ``--rate`` lines/s (opening the
file for each, as Claude Code and pi do) while ``fix --drop-bad --force``
runs as its own process; a third looks at the lock every 0.5 ms with a
non-blocking ``flock`` and reports how long it was held.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gen_tree import generate, parse_size  # noqa: E402

WATCH_LOCK = r"""
import fcntl, os, sys, time
path, stop = sys.argv[1], sys.argv[2]
held, since = 0.0, None
while not os.path.exists(stop):
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        time.sleep(0.0005)
        continue
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        if since is not None:
            held, since = max(held, time.monotonic() - since), None
    except OSError:
        since = since or time.monotonic()
    finally:
        os.close(fd)
    time.sleep(0.0005)
print(f"{held:.4f}")
"""

APPEND = r"""
import json, os, sys, time
path, rate, stop = sys.argv[1], float(sys.argv[2]), sys.argv[3]
n = 0
while not os.path.exists(stop):
    line = {"type": "message", "id": f"live-{n}", "parentId": None, "createdAt": "2026-03-14T11:05:00.000Z",
            "message": {"role": "user", "content": f"live {n}"}}
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    os.write(fd, json.dumps(line, separators=(",", ":")).encode() + b"\n")
    os.close(fd)
    n += 1
    time.sleep(1 / rate)
print(n)
"""


def one_run(template: str, work: str, rate: float) -> tuple[float, float, int, bool]:
    path = os.path.join(work, "s.jsonl")
    shutil.copyfile(template, path)
    past = time.time() - 60
    os.utime(path, (past, past))
    open(path + ".lock", "a").close()
    stop = os.path.join(work, "stop")
    watcher = subprocess.Popen([sys.executable, "-c", WATCH_LOCK, path + ".lock", stop], stdout=subprocess.PIPE)
    appender = subprocess.Popen([sys.executable, "-c", APPEND, path, str(rate), stop], stdout=subprocess.PIPE)
    time.sleep(0.3)  # the agent is writing
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "session_tui", "fix", path, "--drop-bad", "--force"], capture_output=True, text=True
    )
    took = time.monotonic() - started
    time.sleep(0.3)
    open(stop, "w").close()
    held = float(watcher.communicate()[0])
    written = int(appender.communicate()[0])
    os.unlink(stop)
    data = open(path, "rb").read()
    positions = [data.find(f'"id":"live-{n}"'.encode()) for n in range(written)]
    whole = done.returncode == 0 and -1 not in positions and positions == sorted(positions)
    whole = whole and all(data.count(f'"id":"live-{n}",'.encode()) == 1 for n in range(written))
    for name in os.listdir(work):
        os.unlink(os.path.join(work, name))
    return took, held, written, whole


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="100M")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rate", type=float, default=100.0, help="the agent's lines per second")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-rewrite-") as tmp:
        template = os.path.join(tmp, "template.jsonl")
        counts = generate(template, parse_size(args.size))
        with open(template, "rb") as f:
            lines = f.read().split(b"\n")
        lines.insert(len(lines) // 2, b'{"type":"message","id":"torn-in-the-middle')
        with open(template, "wb") as f:
            f.write(b"\n".join(lines))
        size = os.path.getsize(template)
        print(f"session: {size / 1e6:.1f} MB, {counts['entries']:,} entries, one bad line in the middle")
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        for run in range(args.runs):
            took, held, written, whole = one_run(template, work, args.rate)
            print(
                f"run {run + 1}: fix --drop-bad {took:.2f} s, lock held {held * 1000:.1f} ms; "
                f"the agent wrote {written} lines meanwhile: {'all there once, in order' if whole else 'LOST OR MOVED'}"
            )


if __name__ == "__main__":
    main()
