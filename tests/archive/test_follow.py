"""``archive push --follow`` against a real writer: a process appending
lines as an agent does while the follower pushes them, the archive polled
until each line is there (its lag measured), a new file picked up, and
SIGTERM / Ctrl-C stopping it cleanly."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psycopg

from tests.support import REPO, _lines

from .test_archive import archived, init, tree_lines

APPENDS = 50

#: appends APPENDS records to argv[1], one each 40 ms, each with the time it was written ("w"); a new
#: session file argv[2] half-way
WRITER = r"""
import json, os, sys, time
path, other, start, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
for k in range(start, start + count):
    record = {"type": "message", "id": f"e{k}", "parentId": f"e{k - 1}", "createdAt": "2026-03-15T19:10:00.000Z",
              "message": {"role": "user" if k % 2 == 0 else "assistant", "content": f"line {k} " + "x" * 300},
              "w": time.time()}
    os.write(fd, json.dumps(record).encode() + b"\n")
    if k == start + count // 2:
        with open(other, "w") as f:
            f.write(json.dumps({"type": "message", "id": "n0", "parentId": None, "createdAt": "2026-03-15T19:10:00Z",
                                "message": {"role": "user", "content": "a new session"}}) + "\n")
    time.sleep(0.04)
"""


def follower(url: str, *paths: Path, machine: str = "m") -> subprocess.Popen:
    """``archive push --follow`` as a real process, once it says it follows (its first push done)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    argv = [sys.executable, "-m", "session_tui", "archive", "push", url, *map(str, paths), "--machine", machine]
    process = subprocess.Popen(
        argv + ["--follow", "--no-redact"], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        said = b""
        while b"following " not in said:
            said += _lines(process.stdout.fileno(), 1, timeout=30)
    except BaseException:
        process.kill()
        process.wait()
        raise
    return process


def stop(process: subprocess.Popen, how: int = signal.SIGTERM) -> tuple[int, str, str]:
    process.send_signal(how)
    out, err = process.communicate(timeout=30)
    return process.returncode, out.decode(), err.decode()


def test_follow_pushes_each_append_within_a_second_and_new_files(db_url, tmp_path):
    init(db_url)
    folder = tmp_path / "sessions"
    folder.mkdir()
    session, other = folder / "s.jsonl", folder / "new.jsonl"
    session.write_bytes(tree_lines(3))
    process = follower(db_url, folder)
    try:
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(session), str(other), "3", str(APPENDS)])
        lags: dict[int, float] = {}
        deadline = time.monotonic() + 30
        with psycopg.connect(db_url, autocommit=True) as conn:
            while len(lags) < APPENDS and time.monotonic() < deadline:
                rows = conn.execute(
                    "SELECT l.line_no, (l.record->>'w')::float8 FROM lines l JOIN files f ON f.id = l.file_id "
                    "WHERE f.path = %s AND l.line_no > 3 AND l.terminated",
                    (str(session),),
                ).fetchall()
                seen = time.time()
                for line_no, written in rows:
                    lags.setdefault(line_no, seen - written)
                time.sleep(0.005)  # (the poll's pace: each line is seen within 5 ms of its arrival)
        assert writer.wait(timeout=30) == 0
        assert len(lags) == APPENDS, f"{len(lags)} of {APPENDS} appends in the archive"
        values = sorted(lags.values())
        p50, worst = statistics.median(values), values[-1]
        print(f"\nfollow lag over {APPENDS} appends: p50 {p50 * 1000:.0f} ms, max {worst * 1000:.0f} ms")
        assert worst <= 1.0, f"an append reached the archive {worst:.2f} s after it was written"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _archived_or_none(db_url, other) != other.read_bytes():
            time.sleep(0.01)
        assert _archived_or_none(db_url, other) == other.read_bytes()  # the new file, picked up
    finally:
        code, out, err = stop(process)
    assert code == 0, err
    assert "stopped following as machine m" in out.splitlines()[-1]
    assert f"new {other}" in out
    assert archived(db_url, "m", session) == session.read_bytes()


def _archived_or_none(url: str, path: Path) -> bytes | None:
    from session_tui.model.errors import SessionError

    try:
        return archived(url, "m", path)
    except SessionError:
        return None


def test_ctrl_c_stops_cleanly_and_a_plain_push_takes_its_turn_meanwhile(db_url, tmp_path):
    """A follower holds the machine's push lock only while it pushes: a cron push of the same machine runs
    between two of its rounds; Ctrl-C (SIGINT) ends it with its summary, exit 0."""
    from tests.support import run_cli

    init(db_url)
    session = tmp_path / "s.jsonl"
    session.write_bytes(tree_lines(2))
    process = follower(db_url, session)
    try:
        done = run_cli("archive", "push", db_url, str(session), "--machine", "m", "--no-redact")
        assert done.returncode == 0 and "1 unchanged" in done.stdout, done.stderr
    finally:
        code, out, err = stop(process, signal.SIGINT)
    assert code == 0, err
    assert err == "" and "stopped following as machine m" in out
    assert archived(db_url, "m", session) == session.read_bytes()


def test_follow_of_a_missing_path_or_a_bad_url_is_one_line(db_url, tmp_path):
    from tests.support import run_cli

    missing = run_cli("archive", "push", db_url, str(tmp_path / "nope"), "--follow")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    no_schema = run_cli("archive", "push", db_url, str(tmp_path), "--follow")
    assert no_schema.returncode == 2 and "archive init" in no_schema.stderr and no_schema.stderr.count("\n") == 1
