"""The team archive at scale (issue 41, "What to build" 4): N simulated
machines push their sessions into one PostgreSQL database, then search,
``usage --by machine``, a fleet of N ``push --follow`` and ``live DB_URL``.

    python bench/bench_archive.py [--size 2G] [--machines 50] [--db-url URL] [--queries 60] [--needles 40]

1. Each machine ``m01``… gets its own varied sessions (bench/gen_varied.py:
   Claude Code with sub-agents and 300 KB results, Codex, pi, tree; its own
   seed, so its own words and needles), ``--size`` in all; each is pushed
   as a real process, ``--parallel`` at a time, ``archive push DB_URL
   FOLDER --machine mNN --no-redact`` (cold: the schema's indexes kept
   current as it goes). Push wall time, MB/s, the database's size and its
   indexes, per GB of session files.
2. The search bench's query mix (bench_search.query_mix, over the words of
   every machine) through ``search QUERY DB_URL --json``: ``took_ms`` p50 /
   p99 (the query, the process's start aside); recall of a sample of the
   planted needles (the hit's machine, path and line).
3. ``usage DB_URL --by machine --json``: the wall time of the process,
   best of three, one row per machine.
4. A fleet: one ``push --follow`` per machine, each following its folder, and
   one writer appending a record to one file per machine in turn; the lag
   from each write to its line in the archive (p50, max); then ``live
   --json DB_URL``: how long until it has shown every machine.
5. When agentsview is installed (``pip install -e '.[bench]'``): ``agentsview
   pg push`` (its local sync, then the push) per machine on the same files
   (the Claude Code and Codex parts: the formats it reads), into its own
   database, against ``archive push`` of those files into another: push
   time, database size, and search latency (the mix's queries without
   filters: ``took_ms`` against ``pg serve``'s HTTP search).

The database: ``--db-url`` (it must be empty or an archive; rows are
added as machines m01…, nothing is removed), else a private cluster
(tests/archive/postgres.py: fsync off; restarted with room for N+30
connections and ``--shared-buffers``, 2 GB by default, what a server of 8 GB
would have: the tests' 32 MB makes every query of a database of gigabytes
read through the kernel's cache), removed at the end. Not part of CI.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "bench")]

from archive_fleet import (  # noqa: E402
    ENV,
    AgentsViewPG,
    agentsview,
    follow_lag,
    live_file,
    live_sees,
    p50_max,
    start_followers,
    stop_all,
)
from bench_search import pct, query_mix  # noqa: E402
from gen_tree import parse_size  # noqa: E402
from gen_varied import Needle, Planted, generate_archive  # noqa: E402

from tests.archive.postgres import Cluster, _as_server_user, cluster, why_not  # noqa: E402

MB = 1e6


def cli(*args: str, check: bool = True) -> tuple[float, str]:
    """(wall seconds, stdout) of ``session-tui ARGS`` as a process."""
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "session_tui", *args], capture_output=True, text=True, env=ENV, cwd=REPO
    )
    took = time.perf_counter() - began
    if check and done.returncode not in (0, 1 if args[0] == "search" else 0):  # (search: 1 is "no hits")
        raise SystemExit(f"session-tui {' '.join(args[:2])}: {done.stderr.strip()[-500:]}")
    return took, done.stdout


def say(what: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {what}", flush=True)


def more_connections(pg: Cluster, connections: int, shared_buffers: str) -> None:
    """Restart the private cluster with the tests' settings, room for ``connections`` and
    ``shared_buffers`` (the tests' 32 MB; a server of the team's, a quarter of its memory)."""
    data, log = os.path.join(pg.root, "data"), os.path.join(pg.root, "server.log")
    pg_ctl = os.path.join(pg.bin, "pg_ctl")
    options = (
        f"-p {pg.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={pg.root} -c fsync=off "
        f"-c synchronous_commit=off -c full_page_writes=off -c shared_buffers={shared_buffers} "
        f"-c max_connections={connections}"
    )
    stop = [pg_ctl, "-D", data, "-m", "fast", "-w", "stop"]
    start = [pg_ctl, "-D", data, "-l", log, "-w", "-o", options, "start"]
    for argv in (stop, start):
        subprocess.run(_as_server_user(pg.user, argv), check=True, cwd="/", stdout=subprocess.DEVNULL, timeout=120)


def push_all(url: str, folders: dict[str, list[Path]], parallel: int) -> float:
    """Push every machine's folders as that machine, ``parallel`` processes at a time; the wall time."""

    def one(machine: str) -> None:
        cli("archive", "push", url, *map(str, folders[machine]), "--machine", machine, "--no-redact")

    began = time.perf_counter()
    with ThreadPoolExecutor(parallel) as pool:
        list(pool.map(one, folders))
    return time.perf_counter() - began


def dated(path: Path, fmt: str) -> None:
    """``path``'s time set to its last entry's, as an agent's file has it (the generator's is its own run's:
    every file would look written a moment ago, and ``live`` read the whole archive as live sessions)."""
    from session_tui.model.entries.view import parse_time
    from session_tui.model.formats import get_format

    view = get_format(fmt).view
    with path.open("rb") as f:
        at = max(0, path.stat().st_size - (1 << 20))
        f.seek(at)
        tail = f.read().split(b"\n")
    for line in reversed(tail[1:] if at else tail):  # (from the middle: its first line is a piece)
        try:
            when = parse_time(view(json.loads(line)).time)
        except (ValueError, TypeError, AttributeError, KeyError):
            continue
        if when is not None:
            os.utime(path, (when, when))
            return


def sizes(url: str) -> dict[str, float]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        row = conn.execute(
            "SELECT pg_database_size(current_database()) - pg_database_size('template1'), pg_relation_size('lines'), "
            "pg_total_relation_size('lines'), "
            "(SELECT coalesce(sum(pg_relation_size(indexrelid)), 0) FROM pg_index WHERE indrelid = 'lines'::regclass), "
            "pg_total_relation_size('chunks'), coalesce(pg_relation_size(to_regclass('chunks_trigrams')), 0)"
        ).fetchone()
    database, heap, total, indexes, chunks, trigrams = (float(v) for v in row)
    return {
        "database": database,
        "heap": heap,
        "toast": total - heap - indexes,
        "indexes": indexes,
        "chunks": chunks - trigrams,
        "trigram": trigrams,
    }


def merged(planted: dict[str, Planted]) -> Planted:
    """The words of every machine, for one query mix."""
    out = Planted()
    for one in planted.values():
        for name in ("phrases", "idents", "hashes", "rare", "common"):
            getattr(out, name).extend(getattr(one, name))
    return out


def search_mix(url: str, mix: list[tuple[str, str]]) -> dict[str, list[float]]:
    by_kind: dict[str, list[float]] = {}
    for kind, query in mix:
        _, out = cli("search", query, url, "--json")
        by_kind.setdefault(kind, []).append(json.loads(out)["took_ms"])
    return by_kind


def recall(url: str, needles: list[tuple[str, Path, Needle]]) -> tuple[int, list[str]]:
    """(needles found at their machine, path and line; the queries of those missed)."""
    found, missed = 0, []
    for machine, folder, needle in needles:
        _, out = cli("search", needle.query, url, "--json", "--limit", "500")
        want = f"#{machine}{folder / needle.file}"
        if any(hit["file"].endswith(want) and hit["line"] == needle.line for hit in json.loads(out)["hits"]):
            found += 1
        else:
            missed.append(f"{machine}: {needle.query}")
    return found, missed


def side_by_side(
    command: str, pg: Cluster, folders: dict[str, Path], mix: list[tuple[str, str]], parallel: int, work: Path
) -> list[tuple[str, str, str]]:
    """agentsview ``pg push`` and ``archive push`` on the same files, each into its own database."""
    same = {m: [f / "claude", f / "codex"] for m, f in folders.items()}
    total = sum(p.stat().st_size for paths in same.values() for d in paths for p in d.rglob("*.jsonl"))
    ours = pg.fresh_database("bench_same_files")
    cli("archive", "init", ours)
    ours_push = push_all(ours, same, parallel)
    theirs_db = pg.fresh_database("bench_agentsview")
    pg.psql("CREATE EXTENSION IF NOT EXISTS pg_trgm", database="bench_agentsview")
    peer = AgentsViewPG(command, pg.tcp_url(database="bench_agentsview") + "?sslmode=disable", work)
    began = time.perf_counter()
    first, *rest = folders
    peer.push(first, folders[first])  # (alone: two first pushes at once both create its schema, and one fails)
    with ThreadPoolExecutor(parallel) as pool:
        list(pool.map(lambda m: peer.push(m, folders[m]), rest))
    theirs_push = time.perf_counter() - began
    texts = [(kind, q) for kind, q in mix if kind != "filter"]
    ours_ms = [ms for values in search_mix(ours, texts).values() for ms in values]
    peer.start()
    try:
        theirs_ms = [peer.query(q) for _, q in texts]
    finally:
        peer.stop()
    import psycopg

    with psycopg.connect(theirs_db, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        theirs_size = conn.execute(
            "SELECT pg_database_size(current_database()) - pg_database_size('template1')"
        ).fetchone()[0]
    ours_size = sizes(ours)["database"]
    print(f"\nside by side on the same files: {total / MB:.0f} MB (Claude Code and Codex parts of every machine)")
    return [
        ("push (wall)", f"{ours_push:.1f} s ({total / MB / ours_push:.1f} MB/s)", f"{theirs_push:.1f} s"),
        ("database size (above an empty one)", f"{ours_size / MB:.0f} MB", f"{theirs_size / MB:.0f} MB"),
        (
            f"search p50 / p99 ({len(texts)} queries)",
            f"{statistics.median(ours_ms):.0f} / {pct(ours_ms, 0.99):.0f} ms (took_ms)",
            f"{statistics.median(theirs_ms):.0f} / {pct(theirs_ms, 0.99):.0f} ms (HTTP)",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="2G", help="session files in all (default 2G)")
    parser.add_argument("--machines", type=int, default=50)
    parser.add_argument("--db-url", help="an empty database (default: a private cluster, removed at the end)")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--needles", type=int, default=40, help="planted needles looked for (a sample of all)")
    parser.add_argument("--parallel", type=int, default=2, help="pushes at once (default 2)")
    parser.add_argument("--appends", type=int, default=10, help="records appended to each machine's live file")
    parser.add_argument("--pace", type=float, default=0.02, help="seconds between two appends (any machine)")
    parser.add_argument("--no-peer", action="store_true", help="skip agentsview even when installed")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--shared-buffers",
        default="2GB",
        help="the private cluster's shared_buffers (default 2GB, as a server of 8 GB would have; the tests: 32MB)",
    )
    args = parser.parse_args()
    if not args.db_url and (reason := why_not()):
        raise SystemExit(f"bench_archive: {reason} (or give --db-url)")
    rng = random.Random(args.seed)
    width = max(2, len(str(args.machines)))
    names = [f"m{k:0{width}d}" for k in range(1, args.machines + 1)]
    with tempfile.TemporaryDirectory(prefix="stui-bench-archive-") as tmp, contextlib.ExitStack() as stack:
        work = Path(tmp)
        os.environ["SESSION_TUI_CACHE_DIR"] = ENV["SESSION_TUI_CACHE_DIR"] = str(work / "cache")
        began = time.perf_counter()
        folders = {m: work / "machines" / m for m in names}
        planted = {
            m: generate_archive(folders[m], parse_size(args.size) // args.machines, seed=args.seed + k)
            for k, m in enumerate(names)
        }
        files = [p for f in folders.values() for p in f.rglob("*.jsonl")]
        total = sum(p.stat().st_size for p in files)
        for path in files:
            dated(path, path.relative_to(work / "machines").parts[1])
        print(
            f"{args.machines} machines, {total / MB:.0f} MB in {len(files)} files "
            f"(generated in {time.perf_counter() - began:.0f} s)"
        )
        pg: Cluster | None = None
        if args.db_url:
            url = args.db_url
        else:
            pg = stack.enter_context(cluster())
            more_connections(pg, args.machines + 30, args.shared_buffers)
            url = pg.fresh_database("bench_archive")
        cli("archive", "init", url)
        say(f"pushing {args.machines} machines, {args.parallel} at a time")
        rows: list[tuple[str, str]] = []
        pushed = push_all(url, {m: [f] for m, f in folders.items()}, args.parallel)
        rows.append(
            ("push, cold (wall)", f"{pushed:.1f} s, {total / MB / pushed:.1f} MB/s ({args.parallel} at a time)")
        )
        size = sizes(url)
        per_gb = 1e9 / total
        rows.append(
            (
                "database (above an empty one)",
                f"{size['database'] / MB:.0f} MB ({size['database'] / total:.1f}x the files)",
            )
        )
        rows.append(
            (
                "  lines: heap / TOAST / indexes",
                f"{size['heap'] / MB:.0f} / {size['toast'] / MB:.0f} / {size['indexes'] / MB:.0f} MB",
            )
        )
        rows.append(
            (
                "  chunks: table and key / trigram index",
                f"{size['chunks'] / MB:.0f} / {size['trigram'] / MB:.0f} MB",
            )
        )
        rows.append(
            (
                "  per GB of session files",
                f"database {size['database'] * per_gb / 1e9:.2f} GB, of it the trigram index "
                f"{size['trigram'] * per_gb / 1e9:.2f} GB",
            )
        )
        mix = query_mix(merged(planted), args.queries, rng)
        say(f"pushed in {pushed:.0f} s; searching ({len(mix)} queries, {args.needles} needles)")
        by_kind = search_mix(url, mix)
        every = [ms for values in by_kind.values() for ms in values]
        rows.append(
            (
                f"search took_ms ({len(every)} queries)",
                f"p50 {statistics.median(every):.0f} ms, p99 {pct(every, 0.99):.0f} ms",
            )
        )
        for kind, values in by_kind.items():
            rows.append((f"  {kind}", f"p50 {statistics.median(values):.0f} ms, max {max(values):.0f} ms"))
        needles = [(m, folders[m], n) for m in names for n in planted[m].needles + planted[m].extra if n.file]
        sample = rng.sample(needles, min(args.needles, len(needles)))
        found, missed = recall(url, sample)
        rows.append(
            ("recall of planted needles", f"{found} of {len(sample)}" + (f" (missed: {missed})" if missed else ""))
        )
        timed = [cli("usage", url, "--by", "machine", "--json") for _ in range(3)]
        machines_seen = len(json.loads(timed[0][1])["rows"])
        rows.append(("usage --by machine (process)", f"{min(t for t, _ in timed) * 1000:.0f} ms, {machines_seen} rows"))
        say(f"starting {args.machines} followers")
        live = [live_file(folders[m]) for m in names]
        started = time.perf_counter()
        followers = start_followers(url, folders, work / "followers")
        try:
            rows.append((f"{args.machines} push --follow started", f"{time.perf_counter() - started:.1f} s"))
            lags = follow_lag(url, live, args.appends, args.pace)
            rows.append((f"follow lag, write → row ({len(lags)} appends)", p50_max(lags)))
            took, seen = live_sees(url, args.machines, work / "live-cache")
            rows.append(("live --json DB_URL: every machine", f"{seen} of {args.machines} machines in {took:.1f} s"))
        finally:
            stop_all(followers)
        peer_rows = []
        command = agentsview()
        if args.no_peer or command is None:
            print("agentsview: " + ("skipped" if args.no_peer else "not installed (pip install -e '.[bench]')"))
        elif pg is None:
            print("agentsview: side by side only on the private cluster (it needs two more databases)")
        else:
            say("agentsview side by side")
            peer_rows = side_by_side(command, pg, folders, mix, args.parallel, work / "agentsview")
    print(f"\nbench_archive, {date.today()}, {os.cpu_count()} cores, PostgreSQL on localhost, {total / MB:.0f} MB:")
    label = max(len(r[0]) for r in rows + [(r[0],) for r in peer_rows])
    for name, value in rows:
        print(f"  {name:<{label}}  {value}")
    if peer_rows:
        print(f"\n  {'':<{label}}  {'session-tui archive push':<30}  agentsview pg push")
        for name, ours, theirs in peer_rows:
            print(f"  {name:<{label}}  {ours:<30}  {theirs}")


if __name__ == "__main__":
    main()
