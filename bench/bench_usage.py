"""Benchmark ``session-tui usage`` over a generated archive of sessions.

    python bench/bench_usage.py [--size 100M]

The archive is bench_search's (Claude Code, pi and Codex sessions grown from
the samples, native ones from gen_tree.py). Measures the whole process:
cold (every file read and priced, the ledger written) and warm (the ledger
read, no file opened), and after one file grew (that file read again).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

from bench_search import make_archive, size_of  # noqa: E402


def timed(folder: Path, cache: Path) -> float:
    env = {**os.environ, "SESSION_TUI_CACHE_DIR": str(cache)}
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "session_tui", "usage", str(folder), "--json"], capture_output=True, env=env
    )
    assert done.returncode == 0, done.stderr
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="100M")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder, cache = Path(tmp) / "archive", Path(tmp) / "cache"
        folder.mkdir()
        make_archive(folder, size_of(args.size))
        files = sorted(folder.rglob("*.jsonl"))
        size = sum(p.stat().st_size for p in files)
        cold = timed(folder, cache)
        warm = min(timed(folder, cache) for _ in range(3))
        with open(files[0], "a") as f:
            f.write("\n")
        grown = timed(folder, cache)
        print(f"archive: {len(files)} files, {size / 1e6:.0f} MB")
        print(f"usage, cold: {cold:.2f} s; warm: {warm:.3f} s; one file grown: {grown:.2f} s")


if __name__ == "__main__":
    main()
