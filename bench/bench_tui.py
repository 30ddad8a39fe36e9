"""Benchmark the TUI: first paint of a big file, append latency, key
latency on a huge tree, idle CPU.

    python bench/bench_tui.py [--file BIG.jsonl | --size 1G] [--skip-big]

* first paint: process start → the last entries of the file on screen
  (a child process running the app headless; it reports when the entry tree
  has painted rows of the file's end).
* append → row on screen: a writer process appends entries carrying their
  write time; the app (headless, in this process) notes when the entry tree
  first renders each one. Isolated appends, then 500 entries/s.
* key latency: on the big file once fully indexed, a cursor move and a fold,
  each timed from the action to the visible lines rendered.
* idle CPU: the app in a pseudo-terminal on an unchanging file, CPU time
  over 5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pty
import select
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from gen_tree import bench_file, generate  # noqa: E402

FIRST_PAINT_CHILD = r"""
import asyncio, sys, time
start = float(sys.argv[2])
from session_tui.ui.app import SessionApp
async def main():
    app = SessionApp(sys.argv[1], watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        while True:
            screen = app.screen
            rows = getattr(screen, "rows", None)
            if rows is not None and len(rows):
                tree = screen.tree_widget
                text = "".join(tree.render_line(y).text for y in range(tree.size.height))
                if text.strip():
                    print(time.time() - start, screen.session.partial, flush=True)
                    break
            await asyncio.sleep(0.005)
asyncio.run(main())
"""

WRITER = r"""
import json, sys, time, uuid
path, count, rate = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
parent = sys.argv[4]
with open(path, "ab", buffering=0) as f:
    for i in range(count):
        eid = str(uuid.uuid4())
        rec = {"type": "message", "id": eid, "parentId": parent, "createdAt": "2026-03-14T00:00:00.000Z",
               "message": {"role": "assistant", "content": f"bench-append {i} t={time.time():.6f}"}}
        f.write((json.dumps(rec) + "\n").encode())
        parent = eid
        time.sleep(1 / rate)
"""


def first_paint(path: str, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.time()
        res = subprocess.run(
            [sys.executable, "-c", FIRST_PAINT_CHILD, path, repr(start)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=300,
        )
        out.append(float(res.stdout.split()[0]))
    return out


async def append_latency(count: int, rate: float) -> list[float]:
    from session_tui.ui.app import SessionApp
    from session_tui.ui.widgets.entry_tree import EntryTree

    seen: dict[str, float] = {}
    original = EntryTree.render_line

    def render_line(self, y):
        strip = original(self, y)
        text = strip.text
        at = text.find("bench-append ")
        if at >= 0:
            key = text[at:].split(" t=")[0]
            if key not in seen and " t=" in text:
                seen[key] = time.time() - float(text.split(" t=")[1].split()[0])
        return strip

    EntryTree.render_line = render_line
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "live.jsonl")
            generate(path, 2 << 20)
            from session_tui.model.session.session import open_session

            with open_session(path) as s:
                leaf_id = s.format.view(s.record(s.active_leaf())).id
            app = SessionApp(path)
            async with app.run_test(size=(160, 45)) as pilot:
                await pilot.pause(0.5)
                writer = subprocess.Popen([sys.executable, "-c", WRITER, path, str(count), str(rate), leaf_id])
                while writer.poll() is None:
                    await asyncio.sleep(0.005)
                await pilot.pause(0.5)
    finally:
        EntryTree.render_line = original
    return list(seen.values())


async def key_latency(path: str) -> dict[str, float]:
    from session_tui.ui.app import SessionApp

    app = SessionApp(path, watch=False)
    result = {}
    async with app.run_test(size=(160, 45)):
        while getattr(app.screen, "rows", None) is None or app.screen.indexing:
            await asyncio.sleep(0.05)
        screen = app.screen
        tree = screen.tree_widget
        result["entries"] = screen.session.entries
        result["rows"] = len(screen.rows)

        def paint() -> None:
            for y in range(tree.size.height):
                tree.render_line(y)

        moves = []
        for _ in range(50):
            t = time.perf_counter()
            tree.action_cursor_up()
            paint()
            moves.append(time.perf_counter() - t)
        tree.action_first()
        for _ in range(40):  # to the first fork
            tree.action_cursor_down()
        forks = screen.session.tree.branch_point_entries()
        folds = []
        for entry in forks[:20]:
            row = screen.rows.row_of(entry)
            if row is None:
                continue
            tree.move_to(row)
            paint()  # the fork's page is on screen; now time the fold itself
            t = time.perf_counter()
            tree.action_toggle_fold()
            paint()
            folds.append(time.perf_counter() - t)
        result["move_median_ms"] = statistics.median(moves) * 1000
        result["move_max_ms"] = max(moves) * 1000
        result["fold_median_ms"] = statistics.median(folds) * 1000 if folds else float("nan")
        result["fold_max_ms"] = max(folds) * 1000 if folds else float("nan")
    return result


def idle_cpu(path: str, seconds: float = 5.0, args: tuple[str, ...] = ()) -> float:
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.execv(sys.executable, [sys.executable, "-m", "session_tui", *args, path])

    def drain(until: float) -> None:  # keep the terminal's output flowing
        while time.time() < until:
            if select.select([fd], [], [], 0.05)[0]:
                try:
                    os.read(fd, 65536)
                except OSError:
                    return

    def cpu() -> float:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    try:
        drain(time.time() + 3)  # start-up
        before, t0 = cpu(), time.time()
        drain(t0 + seconds)
        return 100 * (cpu() - before) / (time.time() - t0)
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--file", help="a big tree session (default: generate --size)")
    ap.add_argument("--size", default="1G")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--skip-big", action="store_true", help="only append latency and idle CPU")
    args = ap.parse_args()
    with nullcontext() if args.skip_big else bench_file(args.file, args.size) as path:
        if not args.skip_big:
            paint = first_paint(path, args.runs)
            print(
                f"first paint (process start → last entries on screen): median {statistics.median(paint):.2f} s "
                f"over {args.runs} runs ({os.path.getsize(path) / 1e9:.2f} GB file)"
            )
            keys = asyncio.run(key_latency(path))
            print(
                f"keys on {keys['entries']:,} entries ({keys['rows']:,} rows): cursor move median "
                f"{keys['move_median_ms']:.1f} ms (max {keys['move_max_ms']:.1f}), fold median "
                f"{keys['fold_median_ms']:.1f} ms (max {keys['fold_max_ms']:.1f})"
            )
        for count, rate, label in ((40, 10, "isolated appends (10/s)"), (1500, 500, "500 appends/s")):
            lat = asyncio.run(append_latency(count, rate))
            print(
                f"append → row on screen, {label}: median {statistics.median(lat) * 1000:.0f} ms, "
                f"p95 {pct(lat, 0.95) * 1000:.0f} ms ({len(lat)} rows seen)"
            )
        sample = os.path.join(ROOT, "sample_sessions", "tree", "branched-summary.jsonl")
        print(
            f"idle CPU over 5 s: {idle_cpu(sample):.1f} % watching the file, "
            f"{idle_cpu(sample, args=('--no-watch',)):.1f} % with --no-watch"
        )


if __name__ == "__main__":
    main()
