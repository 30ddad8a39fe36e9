"""Benchmark the branch list and the compare on a session with many branches.

    python bench/bench_branches.py [--size 100M] [--file PATH]

Generates a tree session (bench/gen_tree.py: a branch every 25 turns; 100M
is about 200,000 entries and 1,200 leaves) unless --file is given, then,
headless in this process: the model's cost (list every branch, label every
one, the details of a screen of rows, compare the two newest), and in the
app, the time until the list shows its rows and until the compare shows
its rows, with the longest gap between two turns of the event loop
meanwhile: the work the UI thread does (target: under a frame, ~16 ms; the
rest runs in threads).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from gen_tree import bench_file  # noqa: E402

from session_tui.model.session import branches  # noqa: E402
from session_tui.model.session.session import open_session  # noqa: E402


def model_costs(path: str) -> None:
    with open_session(path) as s:
        start = time.perf_counter()
        found = branches.branches(s)
        listed = time.perf_counter() - start
        start = time.perf_counter()
        for branch in found:
            branches.label(s, branch)
        labelled = time.perf_counter() - start
        start = time.perf_counter()
        for branch in found[:40]:
            branches.details(s, branch)
        detailed = time.perf_counter() - start
        start = time.perf_counter()
        result = branches.compare(s, found[0], found[1], 5000)
        compared = time.perf_counter() - start
        print(f"{s.tree.count:,} entries, {len(found):,} branches")
        print(
            f"model: list {listed * 1000:.0f} ms · label all {labelled * 1000:.0f} ms · details of 40 rows "
            f"{detailed * 1000:.0f} ms · compare the two newest ({len(result.rows)} rows) {compared * 1000:.0f} ms"
        )


async def in_app(path: str) -> None:
    from session_tui.ui.app import SessionApp
    from session_tui.ui.screens.branches import BranchesScreen
    from session_tui.ui.screens.compare import CompareScreen

    app = SessionApp(path, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        while (
            getattr(app.screen, "indexing", True)
            or getattr(app.screen, "session", None) is None
            or app.screen.problems is None
        ):  # the session view's own work done first
            await asyncio.sleep(0.05)
        gaps, last = [], [time.perf_counter()]

        def tick() -> None:
            now = time.perf_counter()
            gaps.append(now - last[0])
            last[0] = now

        app.set_interval(0.005, tick)
        await asyncio.sleep(0.2)
        gaps.clear()  # the baseline: Textual showing a screen of ours with no work behind it (help)
        await pilot.press("question_mark")
        await asyncio.sleep(0.2)
        await pilot.press("escape")
        await asyncio.sleep(0.2)
        help_gap = max(gaps)
        gaps.clear()
        start = time.perf_counter()
        pressing = asyncio.ensure_future(pilot.press("b"))  # (press waits for the app to be idle: not for us)
        while not (
            isinstance(app.screen, BranchesScreen)
            and app.screen.table.rows
            and len(app.screen.table.details) >= min(40, len(app.screen.table.rows))
        ):
            await asyncio.sleep(0.005)
        shown = time.perf_counter() - start
        await pressing
        list_gap = max(gaps)
        gaps.clear()
        start = time.perf_counter()
        pressing = asyncio.ensure_future(pilot.press("d"))
        while not (isinstance(app.screen, CompareScreen) and app.screen.view.result is not None):
            await asyncio.sleep(0.005)
        compared = time.perf_counter() - start
        await pressing
        await asyncio.sleep(0.1)
        compare_gap = max(gaps)
        print(
            f"app: branch list with a screen of details {shown * 1000:.0f} ms, longest event-loop gap "
            f"{list_gap * 1000:.0f} ms · compare shown {compared * 1000:.0f} ms, longest gap "
            f"{compare_gap * 1000:.0f} ms; the help screen, shown and closed: longest gap {help_gap * 1000:.0f} ms"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="100M")
    ap.add_argument("--file")
    args = ap.parse_args()
    with bench_file(args.file, args.size) as path:
        model_costs(path)
        asyncio.run(in_app(path))


if __name__ == "__main__":
    main()
