"""``session-tui clean``: what edits left beside session files is listed
and removed; sessions, unrelated files, a lock in use and the temp file of
a rewrite still running are kept."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from tests.builders.tree import chain
from tests.support import run_cli

HOLD_LOCK = r"""
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
sys.stdin.readline()
"""


def aged(path, seconds: float = 60) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past))


def test_clean_removes_what_edits_left_and_nothing_else(tmp_path):
    session = tmp_path / "a" / "s.jsonl"
    session.parent.mkdir()
    session.write_bytes(chain(3) + b'{"type":"message","id":"broken\n' + b'{"type":"mes')
    aged(session)
    assert run_cli("fix", str(session), "--drop-bad").returncode == 0
    aged(session)
    assert run_cli("fix", str(session), "--drop-torn").returncode == 0
    made = sorted(p.name for p in session.parent.iterdir())
    assert [n.split("-2")[0] for n in made] == [
        "s.jsonl",
        "s.jsonl.bad",
        "s.jsonl.bak",
        "s.jsonl.bak",
        "s.jsonl.lock",
        "s.jsonl.torn",
    ]
    # a rewrite killed half way (its process is gone), one still running (this process), and look-alikes
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (session.parent / f".s.jsonl.tmp-{dead.stdout.strip()}-20260101T000000.000000Z").write_bytes(b"half")
    running = session.parent / f".s.jsonl.tmp-{os.getpid()}-20260101T000000.000000Z"
    running.write_bytes(b"half")
    keep = ["notes.txt", "other.jsonl", "s.jsonl.bak-yesterday", "x.lock", "s.jsonl.bak-20260101T000000.000000Z.jsonl"]
    for name in keep:
        (session.parent / name).write_bytes(b"mine")
    before = sorted(os.listdir(session.parent))

    dry = run_cli("clean", str(tmp_path), "--dry-run")
    assert dry.returncode == 0 and "would remove 7 files" in dry.stdout, dry.stdout
    assert sorted(os.listdir(session.parent)) == before

    done = run_cli("clean", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "kept " in done.stdout and "may still be writing it" in done.stdout
    left = sorted(os.listdir(session.parent))
    assert left == sorted(["s.jsonl", running.name, *keep])
    assert run_cli("check", str(session)).returncode == 0  # the session is whole


def test_older_than_goes_by_when_each_was_made_and_a_held_lock_is_kept(tmp_path):
    session = tmp_path / "s.jsonl"
    session.write_bytes(chain(2))
    (tmp_path / "s.jsonl.bak-20200101T000000.000000Z").write_bytes(b"old")
    fresh = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + ".000000Z"
    (tmp_path / f"s.jsonl.bak-{fresh}").write_bytes(b"new")
    lock = tmp_path / "s.jsonl.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout and holder.stdout.readline().strip() == "locked"
        aged(lock, 30 * 86400)
        done = run_cli("clean", str(session), "--older-than", "7d")
        assert done.returncode == 0, done.stderr
        assert "removed 1 file " in done.stdout and "a process holds it" in done.stdout, done.stdout
    finally:
        holder.kill()
        holder.wait()
    assert sorted(os.listdir(tmp_path)) == sorted(["s.jsonl", f"s.jsonl.bak-{fresh}", "s.jsonl.lock"])
    bad = run_cli("clean", str(session), "--older-than", "soon")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "not an age" in bad.stderr
    missing = run_cli("clean", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
