"""Benchmark: full index of a big `tree` session vs a bare orjson loop.

    python bench/bench_index.py --size 1G [--file PATH] [--runs 3]

Generates the file (bench/gen_tree.py) unless --file is given, then runs,
each in a fresh subprocess so peak memory is its own:
  * baseline: ``for line in f: orjson.loads(line)``
  * index:    ``session_tui.model.open_session(path)`` (full structural index)
and prints the median time of each, their ratio, and the index's memory per
entry beyond the interpreter's baseline (peak RSS of the index process minus
peak RSS of the same interpreter with the same imports and nothing read).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from gen_tree import bench_file  # noqa: E402

CHILD = r"""
import json, resource, sys, time, gc
import orjson
from session_tui.model.session.session import open_session
what, path = sys.argv[1], sys.argv[2]
gc.collect()
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
entries = None
if what == "baseline":
    with open(path, "rb") as f:
        for line in f:
            orjson.loads(line)
elif what == "index":
    s = open_session(path)
    entries = s.entries
elif what == "index-1cpu":
    s = open_session(path, parallel_ok=False)
    entries = s.entries
elapsed = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"time": elapsed, "rss0_kb": rss0, "rss_kb": rss, "children_kb": kids, "entries": entries}))
"""


def run(what: str, path: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, what, path], check=True, capture_output=True, text=True, cwd=os.path.dirname(HERE)
    )
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="1G")
    ap.add_argument("--file", help="use this session file instead of generating one")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--single", action="store_true", help="also time the index without a second process")
    args = ap.parse_args()
    with bench_file(args.file, args.size) as path:
        with open(path, "rb") as f:  # warm the page cache for every contender alike
            while f.read(1 << 24):
                pass
        kinds = ["baseline", "index"] + (["index-1cpu"] if args.single else [])
        results: dict[str, list[dict]] = {k: [] for k in kinds}
        for _ in range(args.runs):
            for k in kinds:
                results[k].append(run(k, path))
        size = os.path.getsize(path)
        med = {k: statistics.median(r["time"] for r in v) for k, v in results.items()}
        entries = results["index"][0]["entries"]
        base_rss = min(r["rss_kb"] for r in results["baseline"]) * 1024
        idx_rss = max(r["rss_kb"] for r in results["index"]) * 1024
        interp = min(r["rss0_kb"] for r in results["index"]) * 1024
        kids = max(r["children_kb"] for r in results["index"]) * 1024
        print(f"file: {size / 1e9:.2f} GB, {entries:,} entries, {os.cpu_count()} cpus, {args.runs} runs (median)")
        print(f"bare orjson loop : {med['baseline']:.2f} s  (peak RSS {base_rss / 2**20:.0f} MiB)")
        print(f"full index       : {med['index']:.2f} s  = {med['index'] / med['baseline']:.2f}x the bare loop")
        if "index-1cpu" in med:
            print(f"index, 1 process : {med['index-1cpu']:.2f} s  = {med['index-1cpu'] / med['baseline']:.2f}x")
        print(
            f"index memory     : {(idx_rss - interp) / entries:.0f} bytes/entry beyond the interpreter "
            f"(peak RSS {idx_rss / 2**20:.0f} MiB, interpreter {interp / 2**20:.0f} MiB; "
            f"scan worker peak {kids / 2**20:.0f} MiB)"
        )


if __name__ == "__main__":
    main()
