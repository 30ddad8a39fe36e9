"""Helpers shared by the tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_sessions"


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m session_tui ARGS`` as a real subprocess."""
    env = dict(os.environ)
    env.pop("SESSION_TUI_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "session_tui", *args],
        capture_output=True,
        text=True,
        cwd=cwd or REPO,
        env=env,
        timeout=120,
    )


def check_json(*paths: Path | str) -> list[dict]:
    result = run_cli("check", "--json", *map(str, paths))
    assert result.returncode in (0, 1), result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]
