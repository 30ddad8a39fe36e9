"""`session-tui live --json` in a real process against agents writing in
threads: a snapshot line per session, then a line per change, flushed as
it happens."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time

from .builders import Writer

FIELDS = {
    "event",
    "t",
    "file",
    "format",
    "state",
    "tool",
    "since",
    "inferred",
    "title",
    "cwd",
    "tokens",
    "context_tokens",
    "context_window",
    "alerts",
}


def lines_of(process: subprocess.Popen) -> queue.Queue:
    found: queue.Queue = queue.Queue()

    def read() -> None:
        for line in process.stdout:
            found.put(json.loads(line))

    threading.Thread(target=read, daemon=True).start()
    return found


def wait_for(found: queue.Queue, seen: list, predicate, timeout: float = 20.0, what: str = "a line"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            seen.append(found.get(timeout=0.1))
        except queue.Empty:
            pass
        if predicate(seen):
            return
    raise AssertionError(
        f"timed out waiting for {what}; got {[(s['event'], s['format'], s['state'], s['t'], s['since']) for s in seen]}"
    )


def test_snapshot_then_a_line_per_change_from_writers_in_threads(tmp_path):
    now = time.time()
    writers = [
        # (each holds its file open, as Codex does: its writer lives)
        Writer(tmp_path / f"{fmt}-agent.jsonl", fmt, now, hold=True).prompt("Run the tests")
        for fmt in ("claude", "codex", "pi")
    ]
    env = {**os.environ, "SESSION_TUI_STUCK_AFTER": "300"}
    process = subprocess.Popen(
        [sys.executable, "-m", "session_tui", "live", "--json", str(tmp_path), "--window", "1h"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        found, seen = lines_of(process), []
        wait_for(found, seen, lambda s: sum(x["event"] == "snapshot" for x in s) == 3, what="the snapshot")
        assert all(set(x) == FIELDS for x in seen) and {x["state"] for x in seen} == {"working"}
        assert {x["format"] for x in seen} == {"claude", "codex", "pi"}

        def write(w: Writer) -> None:
            w.now = time.time()
            w.calls_made("Bash", ago=0)

        threads = [threading.Thread(target=write, args=(w,)) for w in writers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wait_for(
            found,
            seen,
            lambda s: (
                {x["file"] for x in s if x["event"] == "state" and x["state"] == "tool"}
                == {str(w.path) for w in writers}
            ),
            what="a tool line per agent",
        )
        tool = [x for x in seen if x["event"] == "state" and x["state"] == "tool"]
        assert {x["tool"] for x in tool} == {"Bash"}
        for w in writers:
            w.now = time.time()
            w.result(0, ago=0).answer("All green.", ago=0)
        wait_for(
            found,
            seen,
            lambda s: {x["file"] for x in s if x["state"] == "waiting"} == {str(w.path) for w in writers},
            what="each agent waiting for you",
        )
    finally:
        process.terminate()
        process.wait(timeout=10)
