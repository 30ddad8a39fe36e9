"""Measure ``session-tui archive push`` (issue 41, phase 1) against a bare
``orjson.loads`` loop over the same bytes.

    python bench/bench_archive_push.py [--size 100M]

A private PostgreSQL cluster (tests/archive/postgres.py: fsync off, as the
tests run it) on this machine; for each input — one generated tree file
(bench/gen_tree.py) and a varied archive of four formats
(bench/gen_varied.py) — a cold push into an empty archive, with and without
redaction, as a real process; then a second push (nothing changed) and a
push after 1 MB appended. Figures: MB/s of the files, and the push's wall
time × the orjson loop's.
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
sys.path[:0] = [str(REPO), str(REPO / "bench")]

from anchors import ENV, LOOP  # noqa: E402
from gen_tree import generate, parse_size  # noqa: E402
from gen_varied import generate_archive  # noqa: E402

from tests.archive.postgres import cluster, why_not  # noqa: E402


def orjson_loop(paths: list[Path]) -> float:
    """The shared anchor (bench/anchors.py: a fresh process parsing every line), its wall time."""
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", LOOP, *map(str, paths)], env=ENV, check=True)
    return time.perf_counter() - began


def push(url: str, path: Path, *flags: str) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "session_tui", "archive", "push", url, str(path), "--machine", "bench", *flags],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
    )
    took = time.perf_counter() - began
    if done.returncode:
        raise SystemExit(done.stderr)
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="100M")
    size = parse_size(parser.parse_args().size)
    reason = why_not()
    if reason:
        raise SystemExit(reason)
    with tempfile.TemporaryDirectory() as tmp, cluster() as pg:
        one = Path(tmp) / "one" / "big.jsonl"
        one.parent.mkdir()
        generate(str(one), size)
        varied = Path(tmp) / "varied"
        generate_archive(varied, size, seed=1)
        for n, (name, root) in enumerate((("one tree file", one), ("varied archive", varied))):
            files = [root] if root.is_file() else sorted(root.rglob("*.jsonl"))
            total = sum(p.stat().st_size for p in files)
            loop = min(orjson_loop(files) for _ in range(2))
            rate = total / loop / 1e6
            print(f"{name}: {len(files)} files, {total / 1e6:.0f} MB; orjson loop {loop:.2f} s ({rate:.0f} MB/s)")
            for k, flags in enumerate(((), ("--no-redact",))):
                url = pg.fresh_database(f"bench_{n}_{k}")
                subprocess.run(
                    [sys.executable, "-m", "session_tui", "archive", "init", url], check=True, capture_output=True
                )
                cold = push(url, root, *flags)
                again = push(url, root, *flags)
                grown = files[-1]
                with open(files[0], "rb") as src:
                    first = src.readline()
                with open(grown, "ab") as f:  # ~1 MB of whole lines
                    f.write(first * ((1 << 20) // len(first) + 1))
                after = push(url, root, *flags)
                label = "redacted" if not flags else "--no-redact"
                print(
                    f"  push {label}: cold {cold:.2f} s = {total / cold / 1e6:.1f} MB/s ({cold / loop:.1f}x the loop); "
                    f"again (unchanged) {again:.2f} s; after an append {after:.2f} s"
                )


if __name__ == "__main__":
    main()
