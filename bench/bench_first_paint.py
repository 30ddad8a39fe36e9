"""First paint as a user sees it: process start → the active leaf's own text
on a real terminal's screen (tmux, 160×48, polled with capture-pane every
10 ms), against two anchors in the same run: a Textual hello-world's first
paint (the floor: the interpreter plus Textual's own start) and, when
installed, toolong showing the same file's end.

    python bench/bench_first_paint.py [--file F.jsonl | --size 1G] [--runs 3] [--toolong PATH]

The headless figure (any row of the tail painted, in-process) is
``bench/bench_tui.py``'s first-paint column.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from contextlib import nullcontext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from gen_tree import bench_file  # noqa: E402

from session_tui.model.session.session import Session  # noqa: E402

TAIL = 1 << 20
HELLO_TEXT = "bench-hello: hello, world"
HELLO = f"""
from textual.app import App
from textual.widgets import Static

class Hello(App):
    def compose(self):
        yield Static({HELLO_TEXT!r})

Hello().run()
"""


def leaf_text(path: str) -> str:
    """The first words of the active leaf's text, as its row shows them (read from the end, like the app)."""
    session = Session(path, start=max(0, os.path.getsize(path) - TAIL))
    session.refresh()
    leaf = session.active_leaf()
    text = " ".join(session.format.view(session.record(leaf)).text.split())
    session.close()
    return text[:40]


def last_line(path: str) -> str:
    """The start of the file's last line, as a log viewer shows it."""
    with open(path, "rb") as f:
        f.seek(max(0, os.path.getsize(path) - TAIL))
        return f.read().rstrip(b"\n").rsplit(b"\n", 1)[-1][:60].decode()


def time_to(command: list[str], text: str, timeout: float = 120) -> float:
    """Seconds from starting ``command`` in a fresh tmux window to ``text`` on its screen."""
    name = f"bench-{os.getpid()}-{time.monotonic_ns()}"
    for attempt in range(3):  # (a new-session racing the last window's server exit fails: try again)
        if attempt:
            time.sleep(0.2)
        start = time.monotonic()
        started = subprocess.run(
            [
                "tmux",
                "new-session",
                "-d",
                "-s",
                name,
                "-x",
                "160",
                "-y",
                "48",
                # bytecode cached, as an installed package has it (not recompiled each start);
                # stderr buffered, as a user's shell starts Python (not the sandbox's unbuffered)
                f"env -u PYTHONDONTWRITEBYTECODE -u PYTHONUNBUFFERED TERM=xterm-256color {shlex.join(command)}"
                "; sleep 60",
            ],
            capture_output=True,
        )
        if started.returncode == 0:
            break
    else:
        raise RuntimeError(f"tmux new-session failed: {started.stderr.decode(errors='replace')}")
    try:
        while time.monotonic() - start < timeout:
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout
            if text in screen:
                return time.monotonic() - start
            time.sleep(0.01)
        raise RuntimeError(f"{text!r} not on screen after {timeout} s:\n{screen}")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file")
    parser.add_argument("--size", default="1G")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--toolong", default=shutil.which("tl"), help="toolong's `tl` (default: on PATH)")
    args = parser.parse_args()
    with nullcontext(args.file) if args.file else bench_file(None, args.size) as path:
        leaf, end = leaf_text(path), last_line(path)
        ours, theirs, hello = [], [], []
        time_to([sys.executable, "-c", HELLO], HELLO_TEXT)  # untimed: caches the bytecode, warms the page cache
        time_to([sys.executable, "-m", "session_tui", path], leaf)
        for _ in range(args.runs):
            hello.append(time_to([sys.executable, "-c", HELLO], HELLO_TEXT))
            ours.append(time_to([sys.executable, "-m", "session_tui", path], leaf))
            if args.toolong:
                theirs.append(time_to([args.toolong, path], end))
        size = os.path.getsize(path)
        print(f"{size / 1e9:.2f} GB, median of {args.runs} runs, 160×48 tmux window")
        floor = statistics.median(hello)
        line = (
            f"hello-world: start → its text on screen              {floor:.2f} s"
            f"\nsession-tui: start → the active leaf's text on screen  {statistics.median(ours):.2f} s"
            f" = {statistics.median(ours) / floor:.2f}× hello-world (target ≤ 1.5×)"
        )
        if theirs:
            ratio = statistics.median(ours) / statistics.median(theirs)
            line += (
                f"\ntoolong:     start → the file's last line on screen     {statistics.median(theirs):.2f} s"
                f"\nratio {ratio:.2f}× toolong (target ≤ 0.25×)"
            )
        print(line)
        print(
            "runs:",
            ", ".join(f"{t:.2f}" for t in ours),
            "| hello-world:",
            ", ".join(f"{t:.2f}" for t in hello),
            "| toolong:",
            ", ".join(f"{t:.2f}" for t in theirs),
        )


if __name__ == "__main__":
    main()
