"""Measure ``session-tui usage DB_URL --by machine`` (issue 41: ≤ 1 s over a
2 GB archive) and what working out each file's usage costs a push.

    python bench/bench_archive_usage.py [--size 100M] [--machines 5] [--files 20000]

A private PostgreSQL cluster (tests/archive/postgres.py); a varied archive
(bench/gen_varied.py: four formats, sub-agents) of ``--size`` split over
``--machines`` folders, each pushed as its machine (a cold push, its time
said). Then ``usage DB_URL --by machine --json`` as a real process, checked
equal to the local ``usage --by machine --json`` of the same files; then the
``files`` and ``file_usage`` rows copied until the archive has ``--files``
files (no lines: the query reads none) and the query timed again, which is
what a 2 GB archive of ~1 MB sessions holds, and more.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "bench")]

from gen_tree import parse_size  # noqa: E402
from gen_varied import generate_archive  # noqa: E402

from tests.archive.postgres import cluster, why_not  # noqa: E402

ENV = {k: v for k, v in os.environ.items() if not k.startswith("PG")}


def cli(*args: str) -> tuple[float, str]:
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "session_tui", *args], capture_output=True, text=True, env=ENV, cwd=REPO
    )
    took = time.perf_counter() - began
    if done.returncode:
        raise SystemExit(done.stderr)
    return took, done.stdout


def best(runs: int, *args: str) -> tuple[float, str]:
    timed = [cli(*args) for _ in range(runs)]
    return min(t for t, _ in timed), timed[0][1]


def grow(url: str, files: int) -> int:
    """Copy the archive's file rows (and their usage rows) under new paths until it has ``files``."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        have = conn.execute("SELECT count(*) FROM files").fetchone()[0]
        copy = 0
        while have < files:
            copy += 1
            conn.execute(
                "INSERT INTO files (machine_id, path, format, size, complete_to, lines, complete_lines, stream_size, "
                "stream_complete, mtime_ns, head_length, head_sha256, tail_start, tail_sha256, redacted, project, "
                "os_user) SELECT machine_id, '/copy' || %s || path, format, size, complete_to, lines, complete_lines, "
                "stream_size, stream_complete, mtime_ns, head_length, head_sha256, tail_start, tail_sha256, redacted, "
                "project, os_user FROM files WHERE path NOT LIKE '/copy%%' LIMIT %s",
                (copy, files - have),
            )
            conn.execute(
                "INSERT INTO file_usage (file_id, size, mtime_ns, priced_by, groups, error) "
                "SELECT c.id, u.size, u.mtime_ns, u.priced_by, u.groups, u.error FROM files c "
                "JOIN files f ON f.machine_id = c.machine_id AND c.path = '/copy' || %s || f.path "
                "JOIN file_usage u ON u.file_id = f.id",
                (copy,),
            )
            have = conn.execute("SELECT count(*) FROM files").fetchone()[0]
        conn.execute("VACUUM ANALYZE files")
        conn.execute("VACUUM ANALYZE file_usage")
        return int(have)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="100M")
    parser.add_argument("--machines", type=int, default=5)
    parser.add_argument("--files", type=int, default=20000)
    args = parser.parse_args()
    reason = why_not()
    if reason:
        raise SystemExit(reason)
    total = parse_size(args.size)
    with tempfile.TemporaryDirectory(prefix="stui-bench-usage-") as tmp, cluster() as pg:
        url = pg.fresh_database("bench")
        cli("archive", "init", url)
        os.environ["SESSION_TUI_CACHE_DIR"] = ENV["SESSION_TUI_CACHE_DIR"] = str(Path(tmp) / "cache")
        folders = []
        for k in range(args.machines):
            folder = Path(tmp) / f"m{k}"
            generate_archive(folder, total // args.machines, seed=k + 1)
            folders.append(folder)
        size = sum(p.stat().st_size for f in folders for p in f.rglob("*.jsonl"))
        pushed = 0.0
        for k, folder in enumerate(folders):
            took, _ = cli("archive", "push", url, str(folder), "--machine", f"m{k}", "--no-redact")
            pushed += took
        print(
            f"pushed {size / 1e6:.0f} MB as {args.machines} machines in {pushed:.1f} s ({size / 1e6 / pushed:.1f} MB/s)"
        )
        took, out = best(3, "usage", url, "--by", "machine", "--json")
        archived = json.loads(out)
        print(f"usage DB_URL --by machine: {took * 1000:.0f} ms over {archived['files']} files (best of 3, process)")
        local = json.loads(cli("usage", str(folders[0]), "--by", "machine", "--json")[1])
        mine = [row for row in archived["rows"] if row["key"] == "m0"]
        assert [dict(r, key="") for r in mine] == [dict(r, key="") for r in local["rows"]], "archive ≠ local"
        bare, _ = best(3, "--version")
        print(f"(a bare session-tui --version: {bare * 1000:.0f} ms)")
        files = grow(url, args.files)
        took, out = best(3, "usage", url, "--by", "machine", "--json")
        print(f"usage DB_URL --by machine: {took * 1000:.0f} ms over {files} files (best of 3, process)")


if __name__ == "__main__":
    main()
