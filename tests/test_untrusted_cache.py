"""A cache dir another user could write (a shared /tmp, a planted folder):
search still answers, from an index of its own run, and leaves nothing in
it; a dry-run verdict planted there is not believed by ``check``; real
subprocesses, as a user runs them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from session_tui.model.resume.verdicts import NAME as VERDICTS
from session_tui.model.search_index.database import NAME as INDEX
from tests.support import REPO, SAMPLES


def run(*args: str, cache) -> subprocess.CompletedProcess:
    env = {**os.environ, "SESSION_TUI_CACHE_DIR": str(cache)}
    env.pop("SESSION_TUI_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "session_tui", *args], capture_output=True, text=True, cwd=REPO, env=env, timeout=120
    )


@pytest.fixture
def shared(tmp_path):
    cache = tmp_path / "shared-cache"
    cache.mkdir()
    cache.chmod(0o777)  # (as a folder in /tmp anyone made)
    root = tmp_path / "sessions"
    root.mkdir()
    shutil.copy(SAMPLES / "tree" / "crash-dangling.jsonl", root / "run.jsonl")
    return cache, root


def test_search_answers_without_a_cache_dir_it_cannot_trust(shared):
    cache, root = shared
    done = run("search", "--json", "the", str(root), cache=cache)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hits"]
    assert "not using cache dir" in done.stderr and "writable by others" in done.stderr
    assert not (cache / INDEX).exists() and list(cache.iterdir()) == []


def test_a_planted_verdict_in_a_shared_cache_dir_is_not_believed(shared):
    cache, root = shared
    session = root / "run.jsonl"
    st = session.stat()
    planted = {
        str(session): {
            "client": "Claude Code",
            "version": "9.9.9",
            "accepted": True,
            "message": "",
            "size": st.st_size,
            "mtime_ns": st.st_mtime_ns,
            "at": 0.0,
        }
    }
    (cache / VERDICTS).write_text(json.dumps(planted))
    (cache / VERDICTS).chmod(0o600)
    done = run("check", str(session), cache=cache)
    assert "accepts the file as it is" not in done.stdout, done.stdout
    cache.chmod(0o700)  # the same file in a dir of the user's own: believed (the test can fail)
    done = run("check", str(session), cache=cache)
    assert "Claude Code 9.9.9 accepts the file as it is (dry run)" in done.stdout, done.stdout
