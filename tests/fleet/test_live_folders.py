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
