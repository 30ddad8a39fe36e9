"""`session-tui live --json` over awkward roots, in a real process: a
subfolder it may not read is passed over with one notice (run as an
unprivileged user: root reads anything), and each file has one path
however the root was named (``.``, a symlink)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from .builders import Writer
from .test_live_json import lines_of, wait_for

NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


def live(root: str, cwd: str | None = None, prefix: list[str] | None = None, env: dict | None = None):
    return subprocess.Popen(
        [*(prefix or []), sys.executable, "-m", "session_tui", "live", "--json", root, "--window", "1h"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={**os.environ, "SESSION_TUI_STUCK_AFTER": "300", **(env or {})},
    )


def snapshot_then_a_call(process: subprocess.Popen, writer: Writer) -> list[dict]:
    """The lines ``live --json`` prints: its snapshot, then, once ``writer``'s agent starts a call, that call."""
    found, seen = lines_of(process), []
    wait_for(found, seen, lambda s: any(x["event"] == "snapshot" for x in s), what="the snapshot")
    writer.now = time.time()
    writer.calls_made("Bash", ago=0)
    wait_for(found, seen, lambda s: any(x["state"] == "tool" for x in s), what="the call, watched")
    return seen


def stop(process: subprocess.Popen) -> str:
    process.terminate()
    _, err = process.communicate(timeout=10)
    return err


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root and setpriv to run live as another user (root itself reads an unreadable folder)",
)
def test_an_unreadable_subfolder_is_passed_over_with_one_notice():
    top = Path(tempfile.mkdtemp(prefix="live-unreadable-"))  # (not under pytest's tmp dir: nobody cannot enter it)
    try:
        root, cache = top / "root", top / "cache"
        (root / "ok").mkdir(parents=True)
        (root / "secret").mkdir()
        cache.mkdir()
        now = time.time()
        mine = Writer(root / "ok" / "agent.jsonl", "claude", now).prompt("Run the tests")
        Writer(root / "secret" / "agent.jsonl", "claude", now).prompt("Hidden")
        os.chmod(top, 0o755)
        os.chmod(root, 0o755)
        os.chmod(root / "ok", 0o777)  # (the agent below writes as root; nobody reads)
        os.chmod(mine.path, 0o644)
        os.chmod(root / "secret", 0o700)
        shutil.chown(cache, "nobody")
        os.chmod(cache, 0o700)
        process = live(str(root), prefix=NOBODY, env={"SESSION_TUI_CACHE_DIR": str(cache)})
        try:
            seen = snapshot_then_a_call(process, mine)
        finally:
            err = stop(process)
        assert {x["file"] for x in seen} == {str(mine.path)}
        assert err.splitlines() == [f"session-tui live: passing over {root / 'secret'}: permission denied"]
    finally:
        shutil.rmtree(top)


@pytest.mark.parametrize("named", ["dot", "symlink"])
def test_each_file_has_one_path_however_the_root_is_named(tmp_path, named):
    real = tmp_path / "sessions"
    (real / "project").mkdir(parents=True)
    writer = Writer(real / "project" / "agent.jsonl", "claude", time.time(), hold=True).prompt("Run the tests")
    if named == "dot":
        process = live(".", cwd=str(real))
    else:
        (tmp_path / "link").symlink_to(real)
        process = live(str(tmp_path / "link"))
    try:
        seen = snapshot_then_a_call(process, writer)
    finally:
        stop(process)
    assert {x["file"] for x in seen} == {os.path.realpath(writer.path)}


def test_an_opencode_session_written_through_the_wal_joins_the_fleet(tmp_path):
    """An old session of an opencode database, out of the window, gets a
    new prompt, then the answer (real writes through SQLite's WAL, as
    opencode makes them): it joins the fleet, a turn cut off (no opencode
    process runs it), then idle once answered."""
    import sqlite3

    import orjson

    from tests.model.formats.test_opencode import _copy

    db = _copy("work", tmp_path)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("pragma journal_mode=wal")
    session_id = conn.execute("select id from session").fetchone()[0]

    def add(n: int, role: str, text: str) -> None:
        now = int(time.time() * 1000)
        message = orjson.dumps({"role": role, "time": {"created": now}}).decode()
        part = orjson.dumps({"type": "text", "text": text}).decode()
        conn.execute(
            "insert into message values (?, ?, ?, ?, ?)", (f"msg_zzzzzzzzzzzz{n:014d}", session_id, now, now, message)
        )
        conn.execute(
            "insert into part values (?, ?, ?, ?, ?, ?)",
            (f"prt_zzzzzzzzzzzz{n:014d}", f"msg_zzzzzzzzzzzz{n:014d}", session_id, now, now, part),
        )

    from session_tui.model.fleet.fleet import Fleet

    fleet = Fleet([str(tmp_path)], window=3600)
    assert fleet.scan() == []  # (written over an hour ago)
    add(0, "user", "a change the watch reports")
    (changed,) = fleet.update([str(db) + "-wal"])  # what the watch says: the WAL changed
    assert changed.path == f"{db}#{session_id}"
    process = live(str(tmp_path))
    try:
        found, seen = lines_of(process), []
        add(1, "user", "and now the tests")
        mine = lambda s: [x for x in s if x.get("format") == "opencode"]  # noqa: E731
        wait_for(found, seen, lambda s: mine(s), what="the opencode session")
        first = mine(seen)[0]
        assert first["file"] == f"{db}#{session_id}"
        assert (first["state"], first["inferred"]) == ("crashed", "process gone")  # (no opencode runs here)
        add(2, "assistant", "all green")
        wait_for(found, seen, lambda s: mine(s)[-1]["state"] == "idle", what="the answer, through the WAL's watch")
    finally:
        conn.close()
        process.kill()
        process.wait(timeout=30)
