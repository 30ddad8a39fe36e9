"""Benchmark the session picker over many files.

    python bench/bench_picker.py [--files 10000] [--runs 3]

Generates N small session files of every format (copies of sample_sessions/
with a word changed, spread over 100 folders, last written over 30 days),
then measures, each run in a fresh process:

* first screen: process start → the newest session's title on screen, for
  ``session-tui DIR`` (cold and warm cache), and a Textual hello-world's
  first paint, each in a pseudo-terminal, timed until the text appears in
  its output;
* metadata: every file's metadata gathered with an empty cache (cold) and
  with the cache filled (warm): list, read or look up, save.

Prints the median of the runs. With ``--big N``, also N files in one tree
read with an empty cache, the app headless in this process: the time to
read them all and the longest gap between two turns of the event loop
meanwhile (keys wait at most that long).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import random
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SAMPLES = os.path.join(ROOT, "sample_sessions")
MARKER = "bench-marker"  # in the newest file's title (not its name): the first row's title on screen
SIZE = (40, 120)  # terminal rows, columns

HELLO = r"""
from textual.app import App
from textual.widgets import Static

class Hello(App):
    def compose(self):
        yield Static("bench-marker: hello, world")

Hello().run()
"""

GATHER = r"""
import sys, time
from session_tui.model.catalog.cache import Catalog
root, cache = sys.argv[1], sys.argv[2]
start = time.perf_counter()
catalog = Catalog(cache)
infos = catalog.listing([root])
for info in infos:
    if not info.known:
        catalog.read(info.path)
catalog.save([root])
print(time.perf_counter() - start, len(infos), sum(not i.known for i in infos))
"""


def samples() -> list[tuple[str, bytes, bytes | None]]:
    """(format folder, bytes, sidecar) of the small sample files."""
    out = []
    for folder in sorted(os.listdir(SAMPLES)):
        for name in sorted(os.listdir(os.path.join(SAMPLES, folder))):
            path = os.path.join(SAMPLES, folder, name)
            if not name.endswith(".jsonl") or os.path.getsize(path) > 64 << 10:
                continue
            with open(path, "rb") as f:
                data = f.read()
            sidecar = path[: -len(".jsonl")] + ".meta.json"
            out.append((folder, data, open(sidecar, "rb").read() if os.path.exists(sidecar) else None))
    return out


def generate(root: str, count: int) -> None:
    rng = random.Random(7)
    pool = samples()
    now = time.time()
    for i in range(count - 1):
        folder, data, sidecar = pool[i % len(pool)]
        where = os.path.join(root, f"project-{i % 100:03d}")
        os.makedirs(where, exist_ok=True)
        stem = f"s{i:05d}"
        path = os.path.join(where, stem + ".jsonl")
        with open(path, "wb") as f:
            f.write(data.replace(b"the ", f"the #{i} ".encode(), 1))
        if sidecar is not None:
            meta = (
                b'{"id": "%s", "metadata": {}, "createdAt": 1, "updatedAt": 2}' % stem.encode()
                if folder == "astorlm"
                else sidecar
            )
            with open(os.path.join(where, stem + ".meta.json"), "wb") as f:
                f.write(meta)
        stamp = now - 3600 - rng.random() * 30 * 86400
        os.utime(path, (stamp, stamp))
    newest = os.path.join(root, "project-000", "newest.jsonl")
    with open(newest, "w") as f:
        f.write('{"role": "user", "content": "bench-marker: the newest session"}\n')
    os.utime(newest, (now - 600, now - 600))


def first_screen(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from starting ``argv`` in a pseudo-terminal to MARKER in its output."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", *SIZE, 0, 0))
        os.environ.update(env, TERM="xterm-256color")
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cached, as an installed package has it
        os.chdir(ROOT)
        os.execv(argv[0], argv)
    seen = b""
    try:
        while MARKER.encode() not in seen:
            if time.perf_counter() - start > 60:
                raise RuntimeError(f"no {MARKER!r} on screen after 60 s: {seen[-300:]!r}")
            if select.select([fd], [], [], 0.5)[0]:
                seen = seen[-4096:] + os.read(fd, 65536)
        return time.perf_counter() - start
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(fd)


def gather(root: str, cache: str) -> tuple[float, int, int]:
    result = subprocess.run(
        [sys.executable, "-c", GATHER, root, cache], capture_output=True, text=True, cwd=ROOT, check=True
    )
    seconds, files, unread = result.stdout.split()
    return float(seconds), int(files), int(unread)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--big", type=int, default=0, help="also N files: read time and longest event-loop gap")
    parser.add_argument("--gap-run", nargs=2, metavar=("DIR", "CACHE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.gap_run:  # one --big run, in its own process
        seconds, gap = responsiveness(*args.gap_run)
        print(seconds, gap)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "sessions")
        generate(root, args.files)
        picker = [sys.executable, "-m", "session_tui", root]
        warm_cache = os.path.join(tmp, "warm-cache")
        gather(root, warm_cache)  # fills the warm cache
        rows = {"hello": [], "cold": [], "warm": [], "gather cold": [], "gather warm": []}
        first_screen([sys.executable, "-c", HELLO], {})  # untimed: caches the bytecode, warms the page cache
        first_screen(picker, {"SESSION_TUI_CACHE_DIR": warm_cache})
        for run in range(args.runs):
            rows["hello"].append(first_screen([sys.executable, "-c", HELLO], {}))
            cold_cache = os.path.join(tmp, f"cold-{run}")
            rows["cold"].append(first_screen(picker, {"SESSION_TUI_CACHE_DIR": cold_cache}))
            rows["warm"].append(first_screen(picker, {"SESSION_TUI_CACHE_DIR": warm_cache}))
            seconds, files, unread = gather(root, os.path.join(tmp, f"gather-{run}"))
            assert (files, unread) == (args.files, args.files), (files, unread)
            rows["gather cold"].append(seconds)
            seconds, files, unread = gather(root, warm_cache)
            assert (files, unread) == (args.files, 0), (files, unread)
            rows["gather warm"].append(seconds)
            shutil.rmtree(cold_cache, ignore_errors=True)
        median = {name: statistics.median(values) for name, values in rows.items()}
        print(f"{args.files:,} session files, median of {args.runs} runs")
        print(f"hello-world first paint         {median['hello']:.3f} s   {fmt(rows['hello'])}")
        for name in ("cold", "warm"):
            ratio = median[name] / median["hello"]
            print(
                f"picker first rows, {name} cache   {median[name]:.3f} s = {ratio:.2f}× hello-world "
                f"(target ≤ 2.0× cold, ≤ 1.3× warm)   {fmt(rows[name])}"
            )
        print(
            f"all metadata, cold cache        {median['gather cold']:.3f} s (target ≤ 5 s)   {fmt(rows['gather cold'])}"
        )
        print(
            f"all metadata, warm cache        {median['gather warm']:.3f} s (target ≤ 0.5 s)   "
            f"{fmt(rows['gather warm'])}"
        )
        if args.big:
            big = os.path.join(tmp, "big")
            generate(big, args.big)
            runs = []
            for run in range(args.runs):  # each in a fresh process, with an empty cache
                argv = [sys.executable, __file__, "--gap-run", big, os.path.join(tmp, f"big-cache-{run}")]
                out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()
                runs.append((float(out[0]), float(out[1])))
            seconds = statistics.median(s for s, _ in runs)
            gap = statistics.median(g for _, g in runs)
            print(
                f"{args.big:,} files, empty cache: all read in {seconds:.1f} s, longest event-loop gap "
                f"{gap * 1000:.0f} ms (target ≤ 50 ms)   runs: " + ", ".join(f"{g * 1000:.0f} ms" for _, g in runs)
            )


def responsiveness(root: str, cache: str) -> tuple[float, float]:
    """(seconds to read every file, longest event-loop gap meanwhile), empty cache, headless."""
    import asyncio

    os.environ["SESSION_TUI_CACHE_DIR"] = cache
    sys.path.insert(0, ROOT)
    from session_tui.ui.app import SessionApp

    async def run() -> tuple[float, float]:
        app = SessionApp([root], watch=False)
        async with app.run_test(size=(160, 45)):
            gaps, last = [0.0], [time.perf_counter()]

            def tick() -> None:
                now = time.perf_counter()
                gaps.append(now - last[0])
                last[0] = now

            start = time.perf_counter()
            app.set_interval(0.005, tick)
            while not (getattr(app.screen, "listed", False) and app.screen.unread == 0):
                await asyncio.sleep(0.05)
            return time.perf_counter() - start, max(gaps)

    return asyncio.run(run())


def fmt(values: list[float]) -> str:
    return "runs: " + ", ".join(f"{v:.3f}" for v in values)


if __name__ == "__main__":
    main()
