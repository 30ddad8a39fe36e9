"""Benchmark the search index over a generated archive of sessions.

    python bench/bench_search.py [--size 400M] [--queries 200]

The archive: Claude Code, pi and Codex sessions grown from the samples
(their turns repeated with new ids) and native sessions from gen_tree.py
(100 KB tool outputs among them), about a quarter each. Measures:

* cold: the whole index built by ``session-tui search`` in a fresh cache,
  against a bare ``orjson.loads`` loop over the same bytes (target ≤ 12×);
* warm: ``took_ms`` of queries (words sampled from the archive, phrases,
  filters), p50 and p99 (targets ≤ 20 ms, ≤ 100 ms); the whole ``session-tui
  search`` process against ``grep -rlF`` (target ≤ 0.5×);
* an append found by the next search;
* recall: exact strings cut from random records (inside big tool results
  too) are all found;
* the index's size against the archive's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from gen_tree import generate  # noqa: E402

from session_tui.model.search_index.database import NAME, open_database  # noqa: E402
from session_tui.model.search_index.query import parse  # noqa: E402
from session_tui.model.search_index.search import run_query  # noqa: E402

SAMPLES = {
    "claude": REPO / "sample_sessions" / "claude" / "d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl",
    "pi": REPO / "sample_sessions" / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl",
    "codex": REPO
    / "sample_sessions"
    / "codex"
    / "rollout-2026-03-16T08-20-10-019cf5bb-2c70-734a-8f4d-7f8b69651b42.jsonl",
}
ID_KEYS = ("uuid", "parentUuid", "id", "parentId", "leafUuid")


def size_of(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


def grow(sample: Path, out: Path, target: int, seed: int, start: float = 0.0) -> None:
    """The sample's turns again and again, ids made unique, a word of each
    copy its own, each copy later than the last (as a session goes on: from
    ``start`` seconds after the sample's own first time)."""
    lines = sample.read_text().splitlines()
    head, body = lines[:1], lines[1:]
    times = [_seconds(t) for line in body if (t := json.loads(line).get("timestamp"))]
    span = max(times) - min(times) + 60 if times else 0
    rng = random.Random(seed)
    written = 0
    with open(out, "w") as f:
        for line in head:
            f.write(line + "\n")
        copy = 0
        while written < target:
            copy += 1
            word = f"w{seed}x{copy}x{rng.randrange(1 << 30):x}"
            for line in body:
                record = json.loads(line)
                for key in ID_KEYS:
                    if isinstance(record.get(key), str):
                        record[key] = f"{record[key]}-{copy}"
                if isinstance(record.get("timestamp"), str):
                    record["timestamp"] = _iso(_seconds(record["timestamp"]) + start + copy * span)
                text = json.dumps(record).replace("rounding", f"rounding {word}", 1)
                f.write(text + "\n")
                written += len(text) + 1


def make_archive(folder: Path, total: int) -> None:
    """40 sessions, a quarter of each format; each session a day after the
    last of its kind, the kinds hours apart (some overlap, as agents run side by side)."""
    quarter = total // 4
    files = 40
    for k in range(files // 4):
        for n, (fmt, sample) in enumerate(SAMPLES.items()):
            sub = folder / fmt
            sub.mkdir(exist_ok=True)
            start = k * 86400 + n * 3 * 3600
            grow(sample, sub / f"{fmt}-{k:02d}.jsonl", quarter // (files // 4), seed=k * 7 + len(fmt), start=start)
        tree = folder / "tree"
        tree.mkdir(exist_ok=True)
        generate(str(tree / f"tree-{k:02d}.jsonl"), quarter // (files // 4), seed=k, start=k * 86400 + 9 * 3600)


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def bare_loop(folder: Path) -> float:
    began = time.perf_counter()
    for path in sorted(folder.rglob("*.jsonl")):
        with open(path, "rb") as f:
            for line in f:
                try:
                    orjson.loads(line)
                except orjson.JSONDecodeError:
                    pass
    return time.perf_counter() - began


def session_tui_search(query: str, folder: Path, cache: Path) -> tuple[float, dict]:
    # (bytecode written as on a user's machine: a sandbox's PYTHONDONTWRITEBYTECODE would compile every module each run)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["SESSION_TUI_CACHE_DIR"] = str(cache)
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "session_tui", "search", query, str(folder), "--json", "--limit", "20"],
        capture_output=True,
        text=True,
        env=env,
    )
    return time.perf_counter() - began, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="400M")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    total = size_of(args.size)
    with tempfile.TemporaryDirectory() as tmp:
        folder, cache = Path(tmp) / "archive", Path(tmp) / "cache"
        folder.mkdir()
        make_archive(folder, total)
        size = sum(p.stat().st_size for p in folder.rglob("*.jsonl"))
        files = len(list(folder.rglob("*.jsonl")))
        bare_loop(folder)  # the page cache, warm for every contender alike
        bare = bare_loop(folder)
        cold, out = session_tui_search("zzzqqq-nothing", folder, cache)
        print(f"archive: {files} files, {size / 1e6:.0f} MB (claude, pi, codex, tree)")
        ratio = cold / bare
        print(
            f"cold: bare orjson loop {bare:.2f} s; index built by the first search {cold:.1f} s = {ratio:.1f}× (≤ 12×)"
        )
        index = sum(p.stat().st_size for p in cache.glob(NAME + "*"))
        print(f"index size: {index / 1e6:.0f} MB = {index / size:.2f}× the sessions (target ≤ 1×)")

        db = open_database(str(cache))
        rng = random.Random(1)
        words = []
        for path in rng.sample(sorted(folder.rglob("*.jsonl")), 8):
            lines = path.read_text().splitlines()
            for line in rng.sample(lines, min(40, len(lines))):
                tokens = [t for t in line.replace('"', " ").split() if len(t) >= 5 and t.isalnum()]
                words.extend(tokens[:3])
        queries = [rng.choice(words) for _ in range(args.queries // 2)]
        queries += [f'"{rng.choice(words)} {rng.choice(words)}"' for _ in range(args.queries // 4)]
        queries += [
            f"{rng.choice(words)} role:{rng.choice(['user', 'assistant', 'tool'])}" for _ in range(args.queries // 4)
        ]
        took = []
        for text in queries:
            took.append(run_query(db, parse(text), [str(folder)], 20, mark_branches=False).took_ms)  # (as --json)
        took.sort()
        p50, p99 = statistics.median(took), took[int(0.99 * (len(took) - 1))]
        print(f"warm: {len(took)} queries, took_ms p50 {p50:.1f} ms, p99 {p99:.1f} ms (targets ≤ 20, ≤ 100)")

        claude = sorted(folder.rglob("claude-*.jsonl"))[-1].read_text()
        needle = re.findall(r"rounding (w\d+x\d+x[0-9a-f]+)", claude)[-1]  # a word of one copy of a turn: one hit
        for label, word in (("a rare word", needle), ("a common word", rng.choice(words))):
            ours = min(session_tui_search(word, folder, cache)[0] for _ in range(3))
            grep = min(_timed(["grep", "-rlF", word, str(folder)]) for _ in range(3))
            print(
                f"warm process, {label} ({word}): session-tui search {ours:.3f} s, grep -rlF {grep:.3f} s"
                f" = {ours / grep:.2f}× (target ≤ 0.5×)"
            )

        target = sorted(folder.rglob("pi-*.jsonl"))[0]
        with open(target, "a") as f:
            f.write(
                json.dumps(
                    {
                        "type": "message",
                        "id": "appended",
                        "parentId": None,
                        "timestamp": "2026-12-01T10:00:00.000Z",
                        "message": {"role": "user", "content": "appended-token-5e1f"},
                    }
                )
                + "\n"
            )
        took_append, found = session_tui_search('"appended-token-5e1f"', folder, cache)
        print(f"append: found by the next search: {found['total'] == 1} ({took_append:.2f} s, the catch-up included)")

        probes, missed = 0, 0
        for path in rng.sample(sorted(folder.rglob("*.jsonl")), 12):
            lines = path.read_text().splitlines()
            for line in rng.sample(lines, min(10, len(lines))):
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                texts = [v for v in _strings(record) if len(v) >= 12]
                if not texts:
                    continue
                text = max(texts, key=len)  # the biggest string: a tool output where there is one
                at = rng.randrange(0, max(1, len(text) - 12))
                needle = text[at : at + 12]
                if '"' in needle or needle.strip() != needle:
                    continue
                probes += 1
                if run_query(db, parse(f'"{needle}"'), [str(path)], 1).total == 0:
                    missed += 1
        print(f"recall: {probes - missed}/{probes} exact strings cut from random records found")


def _timed(command: list[str]) -> float:
    began = time.perf_counter()
    subprocess.run(command, capture_output=True)
    return time.perf_counter() - began


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


if __name__ == "__main__":
    main()
