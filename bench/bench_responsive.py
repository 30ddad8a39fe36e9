"""Keys stay live while long work runs: the longest gap between two turns of
the event loop while a search misses on the whole file, the palette's jump
scans it, and the context of an entry off the active leaf is built.

    python bench/bench_responsive.py [--file BIG.jsonl | --size 1G]

The app runs headless in this process on the fully indexed file; a 5 ms
interval timer records how late each of its calls comes (a frame can only
be drawn between them).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from contextlib import nullcontext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from gen_tree import bench_file  # noqa: E402


async def measure(path: str) -> dict[str, tuple[float, float]]:
    from session_tui.ui.app import SessionApp
    from session_tui.ui.screens.text_view import TextViewScreen

    app = SessionApp(path, watch=False)
    out = {}
    async with app.run_test(size=(160, 45)) as pilot:
        while getattr(app.screen, "rows", None) is None or app.screen.indexing or app.screen.problems is None:
            await asyncio.sleep(0.05)
        screen = app.screen
        gaps: list[float] = []
        last = [time.perf_counter()]

        def tick() -> None:
            now = time.perf_counter()
            gaps.append(now - last[0])
            last[0] = now

        timer = screen.set_interval(0.005, tick)

        async def timed(name: str, start, done) -> None:
            await pilot.pause(0.1)
            gaps.clear()
            last[0] = began = time.perf_counter()
            start()
            while not done():
                await asyncio.sleep(0.005)
            out[name] = (time.perf_counter() - began, max(gaps, default=0.0))

        def workers_idle() -> bool:
            return not any(not w.is_finished for w in screen.workers if w.group in ("search", "context"))

        screen.query_text = "no such text anywhere"
        await timed("search, a miss over the whole file", lambda: screen._search(False), workers_idle)
        from session_tui.model.session.search import find_all

        async def palette() -> None:
            await asyncio.to_thread(find_all, screen.session, "no such text anywhere", 20)

        task: list[asyncio.Task] = []
        await timed(
            "palette jump, a miss",
            lambda: task.append(asyncio.ensure_future(palette())),
            lambda: bool(task) and task[0].done(),
        )
        screen.tree_widget.move_to(len(screen.rows) // 2)
        await timed(
            "context of an entry off the active leaf",
            screen.action_context,
            lambda: isinstance(app.screen, TextViewScreen),
        )
        timer.stop()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file")
    parser.add_argument("--size", default="1G")
    args = parser.parse_args()
    with nullcontext(args.file) if args.file else bench_file(None, args.size) as path:
        for name, (seconds, gap) in asyncio.run(measure(path)).items():
            print(f"{name}: {seconds:.2f} s, longest event-loop gap {gap * 1000:.0f} ms (target ≤ 50 ms)")


if __name__ == "__main__":
    main()
