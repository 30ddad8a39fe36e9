from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support import SAMPLES


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    """A private copy of sample_sessions/ in a tmp dir (tests may change it)."""
    dest = tmp_path / "samples"
    shutil.copytree(SAMPLES, dest)
    return dest


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch) -> None:
    """The picker's metadata cache in a tmp dir, never the user's (CLI
    subprocesses inherit it through the environment)."""
    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(autouse=True)
def calls_stuck_at_once(monkeypatch) -> None:
    """A call without a result is a problem at once, however recent the file
    (tests write their files a moment before checking them); the tests of
    the live state set their own threshold."""
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "0")
