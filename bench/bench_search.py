"""Benchmark search over an archive that cannot flatter it, side by side with the peers.

    python bench/bench_search.py [--size 400M] [--queries 160] [--no-peers]

The archive (bench/gen_varied.py): varied text (a Zipf vocabulary of ~40k
synthetic words, code-like tool output with identifiers, paths, hashes and
stack traces, some 300 KB tool results), half Claude Code (a projects layout
with sub-agent files), a sixth each Codex, pi and tree; the real sessions of
../shared/real-sessions copied in (never printed). 20 needles, exact strings
planted in known records of the Claude Code part (in big tool results and
sub-agents too), and one in each other format.

Figures, each against an anchor measured in the same run:

* cold build, wall and CPU (user+sys of the child processes), × a bare
  ``orjson.loads`` loop over the same bytes in a child process;
* ``took_ms`` p50 / p99 over a query mix (rare and common words, phrases,
  pieces inside words, pieces across a token boundary, filters), whole and
  per kind; the whole ``search --json`` process against ``grep -rlF``;
* recall on the needles, per kind; an append found by the next search;
  the cache dir's size against the archive's;
* the same for agentsview and claude-code-log where installed (the ``bench``
  extra), on the archive's Claude Code part.

``make_archive`` and ``session_tui_search`` are the CI guard's (bench/guard.py):
its archive grown from the samples, and one warm ``search --json`` process.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from anchors import ENV, LOOP  # noqa: E402
from gen_tree import generate  # noqa: E402
from gen_varied import Needle, Planted, generate_archive  # noqa: E402
from search_peers import PEERS, Peer, run_timed  # noqa: E402

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


def session_tui_search(query: str, folder: Path, cache: Path) -> tuple[float, dict]:
    env = ENV | {"SESSION_TUI_CACHE_DIR": str(cache)}
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "session_tui", "search", query, str(folder), "--json", "--limit", "20"],
        capture_output=True,
        text=True,
        env=env,
    )
    return time.perf_counter() - began, json.loads(done.stdout)


REAL = REPO.parent / "shared" / "real-sessions"
#: where ``python -m session_tui`` is run from (``--at REV`` exports that revision there)
CODE = REPO
KINDS = ("rare", "common", "phrase", "piece", "boundary", "filter")


def search_json(query: str, folder: Path, cache: Path, limit: int = 20) -> tuple[float, float, dict]:
    """One ``session-tui search --json`` process: (wall, CPU of it and its children, its answer)."""
    env = ENV | {"SESSION_TUI_CACHE_DIR": str(cache), "PYTHONPATH": str(CODE)}
    argv = [sys.executable, "-m", "session_tui", "search", query, str(folder), "--json", "--limit", str(limit)]
    cpu, began = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False, cwd=CODE)
    wall = time.perf_counter() - began
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        answer = {"error": done.returncode, "hits": [], "total": 0, "took_ms": float("nan")}
    return wall, _children_cpu() - cpu, answer


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def jsonl(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.jsonl"))


def bare_loop(folder: Path) -> tuple[float, float]:
    """A bare orjson loop over every file under ``folder``, in a child process: (wall, CPU)."""
    wall, cpu, _ = run_timed([sys.executable, "-c", LOOP, *map(str, jsonl(folder))], ENV)
    return wall, cpu


def copy_real(folder: Path) -> int:
    """The real sessions into the archive (Claude Code's into the projects layout); their bytes."""
    if not REAL.is_dir():
        return 0
    for sub in sorted(p for p in REAL.iterdir() if p.is_dir()):
        shutil.copytree(
            sub, folder / "claude" / "-work-real-sessions" if sub.name == "claude" else folder / "real" / sub.name
        )
    return sum(p.stat().st_size for p in REAL.rglob("*.jsonl"))


def query_mix(planted: Planted, n: int, rng: random.Random) -> list[tuple[str, str]]:
    """(kind, query): rare and common words, phrases, pieces inside words, pieces across a token boundary,
    filters; a sixth each."""
    each = max(1, n // len(KINDS))
    out: list[tuple[str, str]] = []
    out += [("rare", w) for w in rng.sample(planted.rare, min(each, len(planted.rare)))]
    out += [("common", w) for w in rng.sample(planted.common, each)]
    phrases = [p for p in planted.phrases if " " in p]
    out += [("phrase", f'"{p}"') for p in rng.sample(phrases, min(each, len(phrases)))]
    pieces = []
    for _ in range(each):
        if rng.random() < 0.5 and planted.idents:
            ident = rng.choice(planted.idents)
            at = rng.randrange(1, max(2, len(ident) - 6))
            pieces.append(ident[at : at + rng.randint(5, 8)])
        elif planted.hashes:
            h = rng.choice(planted.hashes)
            at = rng.randrange(1, 28)
            pieces.append(h[at : at + rng.randint(8, 12)])
    pieces[:2] = ["Parser", "Handl"][: len(pieces)]
    out += [("piece", p) for p in pieces]
    for p in rng.sample(phrases, min(each, len(phrases))):
        a, b = p.split(" ")[:2]
        out.append(("boundary", f'"{a[-3:]} {b[:3]}"'))
    filters = ["role:tool", "role:user", "tool:Bash", "error:", "path:src/", "format:codex", "after:2026-03-10"]
    filters += ["before:2026-03-05", "model:claude-haiku-4-5-20251001", "role:assistant"]
    for i in range(each):
        word = rng.choice(planted.common if i % 2 else planted.rare)
        out.append(("filter", f"{word} {filters[i % len(filters)]}"))
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))] if ordered else float("nan")


def p50_p99(values: list[float]) -> str:
    return f"{pct(values, 0.5):,.1f} / {pct(values, 0.99):,.1f}" if values else "-"


def found_by_session_tui(needle: Needle, folder: Path, cache: Path) -> bool:
    _, _, answer = search_json(needle.query, folder, cache, limit=500)
    want = str(folder / needle.file)
    return any(h.get("file") == want and h.get("line") == needle.line for h in answer.get("hits", []))


def found_by_peer(peer: Peer, needle: Needle) -> bool:
    _, sessions = peer.query(needle.query)
    return bool(sessions & {needle.session, Path(needle.file).stem})


def claude_append(path: Path, session: str, token: str) -> None:
    record = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/home/dev/src/x"}
    record |= {"sessionId": session, "version": "2.1.30", "type": "user", "uuid": f"appended-{token}"}
    record |= {
        "message": {"role": "user", "content": f"appended {token} here"},
        "timestamp": "2026-12-01T10:00:00.000Z",
    }
    with open(path, "a") as f:
        f.write(json.dumps(record) + "\n")


def recall_line(found: dict[str, list[bool]]) -> str:
    total = [x for v in found.values() for x in v]
    parts = ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in found.items())
    return f"{sum(total)}/{len(total)} ({parts})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="400M")
    parser.add_argument("--queries", type=int, default=160)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--at", metavar="REV", help="measure session_tui as committed at REV, not the work tree")
    args = parser.parse_args()
    total = size_of(args.size)
    rng = random.Random(args.seed)
    global CODE
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        folder, cache = Path(tmp) / "archive", Path(tmp) / "cache"
        folder.mkdir()
        if args.at:
            CODE = Path(tmp) / "code"
            CODE.mkdir()
            tree = subprocess.run(
                ["git", "-C", str(REPO), "archive", args.at, "session_tui"], capture_output=True, check=True
            )
            subprocess.run(["tar", "-x", "-C", str(CODE)], input=tree.stdout, check=True)
            commit = subprocess.run(
                ["git", "-C", str(REPO), "rev-parse", "--short", args.at], capture_output=True, text=True
            )
            print(f"session-tui as committed at {commit.stdout.strip()}")
        search_json("warm-up", folder, Path(tmp) / "warm-cache")  # bytecode written, untimed
        began = time.perf_counter()
        real = copy_real(folder)
        planted = generate_archive(folder, total - real, seed=args.seed)
        size = sum(p.stat().st_size for p in jsonl(folder))
        claude_size = sum(p.stat().st_size for p in jsonl(folder / "claude"))
        counts = ", ".join(f"{k} {v}" for k, v in planted.files.items())
        subagents = len(list((folder / "claude").rglob("subagents/*.jsonl")))
        print(
            f"archive: {len(jsonl(folder))} files, {size / 1e6:.0f} MB ({counts} sessions, {subagents} sub-agent files,"
            f" {real / 1e6:.1f} MB real sessions); Claude Code part {claude_size / 1e6:.0f} MB;"
            f" generated in {time.perf_counter() - began:.0f} s",
            flush=True,
        )

        bare_loop(folder)  # the page cache, warm for every contender alike
        loop_wall, loop_cpu = min(bare_loop(folder) for _ in range(2))
        claude_wall, claude_cpu = min(bare_loop(folder / "claude") for _ in range(2))
        print(f"bare orjson loop: whole {loop_wall:.2f} s ({loop_cpu:.2f} s CPU); Claude Code part {claude_wall:.2f} s")

        rows: dict[str, dict[str, str]] = {}
        cold_wall, cold_cpu, _ = search_json("zzzqqq-nothing", folder, cache)
        index = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file())
        print(
            f"session-tui cold build (the first search): {cold_wall:.1f} s = {cold_wall / loop_wall:.1f}× the loop"
            " (≤ 12×),"
            f" CPU {cold_cpu:.1f} s = {cold_cpu / loop_cpu:.1f}× (≤ 20×); cache dir {index / 1e6:.0f} MB ="
            f" {index / size:.2f}× the archive (≤ 0.5×)",
            flush=True,
        )

        mix = query_mix(planted, args.queries, rng)
        took: dict[str, list[float]] = {k: [] for k in KINDS}
        walls: dict[str, list[float]] = {k: [] for k in KINDS}
        errors = 0
        for kind, text in mix:
            wall, _, answer = search_json(text, folder, cache)
            if "error" in answer:
                errors += 1
                continue
            took[kind].append(answer["took_ms"])
            walls[kind].append(wall * 1000)
        everything = [t for v in took.values() for t in v]
        print(f"\nsession-tui took_ms over {len(everything)} queries ({errors} failed), p50 / p99 (≤ 20 / ≤ 100 ms):")
        print(f"  all {p50_p99(everything)}  |  " + "  ".join(f"{k} {p50_p99(v)}" for k, v in took.items()))

        ratios = []
        for _kind, text in [m for m in mix if m[0] in ("rare", "common")][::4]:
            ours = min(search_json(text, folder, cache)[0] for _ in range(2))
            grep = min(_timed(["grep", "-rlF", text, str(folder)]) for _ in range(2))
            ratios.append((ours, grep))
        ours_p, grep_p = statistics.median(r[0] for r in ratios), statistics.median(r[1] for r in ratios)
        print(
            f"whole search --json process, median of {len(ratios)} words: {ours_p:.3f} s against grep -rlF"
            f" {grep_p:.3f} s = {ours_p / grep_p:.2f}× (≤ 0.5×)"
        )

        found: dict[str, list[bool]] = {}
        for needle in planted.placed():
            found.setdefault(needle.kind, []).append(found_by_session_tui(needle, folder, cache))
        other = [found_by_session_tui(n, folder, cache) for n in planted.extra]
        in_others = f"in codex, pi, tree: {sum(other)}/{len(other)}"
        print(f"recall on the {planted.placed_words()}: {recall_line(found)}; {in_others}")

        target = folder / planted.needles[0].file
        claude_append(target, planted.needles[0].session, "zkappendedqx")
        wall, _, answer = search_json("zkappendedqx", folder, cache)
        ours_append = f"{wall:.2f} s" if answer.get("total") else "not found"
        print(f"append → found by the next search: {ours_append} (the catch-up included)", flush=True)
        rows["session-tui"] = {
            "build": f"{cold_wall / loop_wall:.0f}× / {cold_cpu / loop_cpu:.0f}×",
            "p50/p99": p50_p99(everything),
            "words": p50_p99(took["rare"] + took["common"]),
            "phrases": p50_p99(took["phrase"]),
            "pieces": p50_p99(took["piece"] + took["boundary"]),
            "recall": recall_line(found),
            "append": ours_append,
            "index": f"{index / size:.2f}×",
        }

        if not args.no_peers:
            for cls in PEERS:
                if not cls.installed():
                    print(f"\n{cls.name}: not installed (pip install -e '.[bench]'), skipped")
                    continue
                peer_rows = run_peer(
                    cls, folder, Path(tmp) / cls.name, planted, mix, claude_wall, claude_cpu, claude_size
                )
                rows.update(peer_rows)

        print(
            f"\n{size / 1e6:.0f} MB archive (peers: its Claude Code part, {claude_size / 1e6:.0f} MB);"
            " build × the bare loop over what each reads (wall / CPU); query ms p50 / p99"
            " (session-tui: took_ms; agentsview: its HTTP API's round trip; claude-code-log: its search() call)"
        )
        heads = ["tool", "build", "p50/p99", "words", "phrases", "pieces", "recall", "append", "index"]
        print("| " + " | ".join(heads) + " |")
        print("|" + "---|" * len(heads))
        for name, row in rows.items():
            print("| " + " | ".join([name] + [row.get(h, "-") for h in heads[1:]]) + " |")


def run_peer(
    cls: type[Peer],
    folder: Path,
    work: Path,
    planted: Planted,
    mix: list[tuple[str, str]],
    loop_wall: float,
    loop_cpu: float,
    claude_size: int,
) -> dict[str, dict[str, str]]:
    """The peer on the archive's Claude Code part; its rows of the table (agentsview: two, its two modes)."""
    work.mkdir()
    peer = cls(folder / "claude", work)
    try:
        wall, cpu = peer.build()
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"\n{cls.name}: build failed ({e}), skipped")
        return {}
    index = peer.index_bytes()
    print(
        f"\n{cls.name}: cold build {wall:.1f} s = {wall / loop_wall:.1f}× the loop,"
        f" CPU {cpu:.1f} s = {cpu / loop_cpu:.1f}×;"
        f" index {index / 1e6:.0f} MB = {index / claude_size:.2f}× what it read"
        + (f" ({peer.note})" if peer.note else ""),
        flush=True,
    )
    rows = {}
    peer.start()
    try:
        modes = ["substring", "fts"] if hasattr(peer, "search_mode") and cls.name == "agentsview" else [""]
        for mode in modes:
            if mode:
                peer.search_mode = mode
            name = f"{cls.name} --{mode}" if mode == "fts" else cls.name
            took: dict[str, list[float]] = {k: [] for k in KINDS if k != "filter"}
            for kind, text in mix:
                if kind in took:
                    took[kind].append(peer.query(text, limit=20)[0])
            everything = [t for v in took.values() for t in v]
            found: dict[str, list[bool]] = {}
            for needle in planted.placed():
                found.setdefault(needle.kind, []).append(found_by_peer(peer, needle))
            print(
                f"{name}: query ms p50 / p99 over {len(everything)} (no filters) {p50_p99(everything)}  |  "
                + "  ".join(f"{k} {p50_p99(v)}" for k, v in took.items())
                + f"\n{name}: recall on the {planted.placed_words()}: {recall_line(found)}",
                flush=True,
            )
            rows[name] = {
                "build": f"{wall / loop_wall:.0f}× / {cpu / loop_cpu:.0f}×",
                "p50/p99": p50_p99(everything),
                "words": p50_p99(took["rare"] + took["common"]),
                "phrases": p50_p99(took["phrase"]),
                "pieces": p50_p99(took["piece"] + took["boundary"]),
                "recall": recall_line(found),
                "index": f"{index / claude_size:.2f}×",
            }
        needle = planted.needles[1]
        token = "zkpeerappendedqx"
        claude_append(peer.target(str(Path(needle.file).relative_to("claude"))), needle.session, token)
        began = time.perf_counter()
        seen = False
        while time.perf_counter() - began < 300:
            peer.refresh()
            if peer.query(token)[1]:
                seen = True
                break
            time.sleep(0.1)
        appended = f"{time.perf_counter() - began:.1f} s" if seen else "not in 300 s"
        print(f"{cls.name}: append → found: {appended}")
        for row in rows.values():
            row["append"] = appended
    finally:
        peer.stop()
    return rows


def _timed(command: list[str]) -> float:
    began = time.perf_counter()
    subprocess.run(command, capture_output=True, check=False)
    return time.perf_counter() - began


if __name__ == "__main__":
    main()
