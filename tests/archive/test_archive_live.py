"""``session-tui live DB_URL``: the fleet of every machine, from what
``archive push --follow`` pushes. Two followers (machines a and b), real
processes; ``live --json`` on the archive shows both, each judged by the
fleet's own rules (its writer on another machine: the time rule, said in
``inferred``), and a write on machine a reaches it as a state line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from tests.builders.tree import call, fresh, header, message
from tests.support import REPO, _lines, run_cli

from .test_archive import init
from .test_follow import follower, stop


def live_json(url: str, cache, *more: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["SESSION_TUI_CACHE_DIR"] = str(cache)
    env["SESSION_TUI_STUCK_AFTER"] = "300"  # (the suite's 0 makes every quiet turn stopped at once)
    return subprocess.Popen(
        [sys.executable, "-m", "session_tui", "live", "--json", "--window", "1000d", url, *more],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_live_on_the_archive_shows_every_machine_and_follows_its_writes(db_url, tmp_path):
    init(db_url)
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    working = a / "s.jsonl"
    working.write_bytes(fresh(header("sa") + message("m0", None, content="fix the build")))
    waiting = b / "s.jsonl"
    waiting.write_bytes(header("sb") + message("m0", None, content="hello") + message("m1", "m0", "assistant", "done"))
    followers = [follower(db_url, a, machine="a"), follower(db_url, b, machine="b")]
    live = live_json(db_url, tmp_path / "cache")
    try:
        snapshot = [json.loads(line) for line in _lines(live.stdout.fileno(), 2, timeout=30).splitlines()]
        by_machine = {row["machine"]: row for row in snapshot}
        assert set(by_machine) == {"a", "b"}
        assert all(row["event"] == "snapshot" for row in snapshot)
        assert by_machine["a"]["state"] == "working" and by_machine["a"]["inferred"] == "time rule", json.dumps(
            snapshot
        )
        assert by_machine["b"]["state"] in ("waiting", "idle")
        assert by_machine["a"]["file"] == f"{db_url}#a{working}"
        local = live_json(str(a), tmp_path / "cache", str(b))  # the same files, watched here: the same judgement
        try:
            here = [json.loads(line) for line in _lines(local.stdout.fileno(), 2, timeout=30).splitlines()]
        finally:
            local.kill()
            local.wait()

        def judged(rows: list[dict]) -> list[dict]:
            return sorted(({k: v for k, v in r.items() if k not in ("t", "file", "machine")} for r in rows), key=str)

        assert judged(snapshot) == judged(here)
        with open(working, "ab") as f:  # on machine a, the agent calls a tool
            f.write(fresh(call("c1", "m0", "call-1")))
        written = time.monotonic()
        seen = None
        printed = b""
        while seen is None:
            printed += _lines(live.stdout.fileno(), 1, timeout=20)
            for line in printed.splitlines():
                row = json.loads(line)
                if row["machine"] == "a" and row["state"] == "tool":
                    seen = time.monotonic() - written
        print(f"\nwrite on machine a → its state line from live DB_URL: {seen * 1000:.0f} ms")
    finally:
        live.kill()
        live.wait()
        for process in followers:
            stop(process)
    assert live.stderr.read() == b""


def test_live_on_an_unreachable_archive_is_one_line(db_url):
    done = run_cli("live", "--json", db_url)  # (no archive there yet)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "archive init" in done.stderr
