"""Measure ``session-tui search`` over the team archive (issue 41, search):
push time with and without the search indexes, their size, and ``took_ms``
of the search bench's query mix, each query's hits against a search of the
same files.

    python bench/bench_archive_search.py [--size 50M] [--queries 60] [--variants 0,1,2,3]

A private PostgreSQL cluster (tests/archive/postgres.py: fsync off, as the
tests run it); the varied archive of bench/gen_varied.py (four formats,
300 KB results, sub-agents, needles). Pushed (``--no-redact``, a real
process) into an empty archive of each schema variant chosen: without the
chunks' trigram index, with it (schema 4: the one searched), and with its
GIN pending list larger, or off. Then the
query mix through ``search --json`` on the archive (``took_ms``: the
query, the process's start aside: a new connection each) and on the files
(the local index, built first), the mix again in this process over one
warm connection, and the needles' recall.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "bench")]

from bench_search import query_mix  # noqa: E402
from gen_tree import parse_size  # noqa: E402
from gen_varied import generate_archive  # noqa: E402

from tests.archive.postgres import cluster, why_not  # noqa: E402

#: schema variants pushed into, each an empty archive (``--variants`` picks some by number)
VARIANTS = {
    "no search index": "DROP INDEX chunks_trigrams",
    "chunks' trigram index (schema 4)": "",
    "chunks' trigram index, pending list 64 MB": "ALTER INDEX chunks_trigrams SET (gin_pending_list_limit = 65536)",
    "chunks' trigram index, fastupdate off": "ALTER INDEX chunks_trigrams SET (fastupdate = off)",
}
SEARCHED = "chunks' trigram index (schema 4)"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "session_tui", *args], capture_output=True, text=True, cwd=REPO)


def sizes(url: str) -> str:
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT pg_database_size(current_database()), pg_total_relation_size('lines'), "
            "pg_relation_size('chunks') + coalesce(pg_relation_size(pg_class.reltoastrelid), 0), "
            "coalesce(pg_relation_size(to_regclass('chunks_trigrams')), 0) "
            "FROM pg_class WHERE oid = 'chunks'::regclass"
        ).fetchone()
    return "database {:.0f} MB, lines {:.0f} MB, chunks {:.0f} MB, trigram index {:.0f} MB".format(
        *(v / 1e6 for v in rows)
    )


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def warm_connection(url: str, mix: list[tuple[str, str]]) -> list[float]:
    """``took_ms`` of the mix in this process over one connection, after a first round (the server's caches and
    this process's imports warm): what a long-lived reader of the archive would see."""
    from session_tui.model.reading.archived import connect
    from session_tui.model.search_index.archive_search import Where, run_archive_query
    from session_tui.model.search_index.query import parse

    conn = connect(url, read_only=True)
    try:
        for _, query in mix:
            run_archive_query(conn, Where(url, []), parse(query), 50, mark_branches=False)
        return [run_archive_query(conn, Where(url, []), parse(q), 50, mark_branches=False).took_ms for _, q in mix]
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="50M")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variants", default="0,1", help="which schema variants to push (numbers, from 0)")
    args = parser.parse_args()
    reason = why_not()
    if reason:
        sys.exit(f"bench_archive_search: {reason}")
    with tempfile.TemporaryDirectory() as tmp, cluster() as pg:
        root = Path(tmp) / "sessions"
        planted = generate_archive(root, parse_size(args.size), args.seed)
        total = sum(p.stat().st_size for p in root.rglob("*.jsonl"))
        print(f"archive: {total / 1e6:.1f} MB in {sum(1 for _ in root.rglob('*.jsonl'))} files")
        searched = ""
        chosen = {int(n) for n in args.variants.split(",")} | {1}
        for n, (name, ddl) in enumerate(VARIANTS.items()):
            if n not in chosen:
                continue
            url = pg.fresh_database(f"bench_search_{n}")
            assert cli("archive", "init", url).returncode == 0
            if ddl:
                import psycopg

                with psycopg.connect(url, autocommit=True) as conn:
                    conn.execute(ddl)
            began = time.perf_counter()
            done = cli("archive", "push", url, str(root), "--machine", "bench", "--no-redact")
            took = time.perf_counter() - began
            assert done.returncode == 0, done.stderr
            print(f"push, {name}: {took:.1f} s ({total / 1e6 / took:.1f} MB/s); {sizes(url)}")
            if name == SEARCHED:
                searched = url
        cache = Path(tmp) / "cache"
        env_cache = {"SESSION_TUI_CACHE_DIR": str(cache)}
        import os

        os.environ.update(env_cache)
        cli("search", "anything", str(root))  # (the local index built)
        mix = query_mix(planted, args.queries, random.Random(args.seed))
        by_kind: dict[str, list[float]] = {}
        slowest: list[tuple[float, str]] = []
        local_ms: list[float] = []
        differ = []
        for kind, query in mix:
            remote = json.loads(cli("search", query, searched, "--json").stdout or "{}")
            local = json.loads(cli("search", query, str(root), "--json").stdout or "{}")
            if not remote or not local:
                continue
            by_kind.setdefault(kind, []).append(remote["took_ms"])
            slowest.append((remote["took_ms"], query))
            local_ms.append(local["took_ms"])
            if remote["total"] != local["total"] and remote.get("total_exact", True) and local.get("total_exact", True):
                differ.append((query, local["total"], remote["total"]))
        every = [ms for values in by_kind.values() for ms in values]
        print(
            f"archive search took_ms over {len(every)} queries: p50 {statistics.median(every):.0f}, "
            f"p99 {pct(every, 0.99):.0f} (local index: p50 {statistics.median(local_ms):.0f}, "
            f"p99 {pct(local_ms, 0.99):.0f})"
        )
        for kind, values in by_kind.items():
            print(f"  {kind}: p50 {statistics.median(values):.0f} ms, max {max(values):.0f} ms ({len(values)})")
        warm = warm_connection(searched, mix)
        print(f"in one warm connection (a server's case): p50 {statistics.median(warm):.0f}, p99 {pct(warm, 0.99):.0f}")
        print("slowest: " + ", ".join(f"{q!r} {ms:.0f} ms" for ms, q in sorted(slowest, reverse=True)[:6]))
        print(f"counts differing from the local search (both exact): {differ or 'none'}")
        needles = planted.placed()
        found = sum(
            1 for needle in needles if json.loads(cli("search", needle.query, searched, "--json").stdout)["total"]
        )
        print(f"needles found in the archive: {found} of {len(needles)}")


if __name__ == "__main__":
    main()
