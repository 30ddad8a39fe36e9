"""Helpers shared by the tests."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_sessions"
#: one healthy sample of each format (relative to SAMPLES)
ONE_PER_FORMAT = [
    "tree/branched-summary.jsonl",
    "chat/session-fix-rounding.jsonl",
    "pi/2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl",
    "claude/d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl",
    "codex/rollout-2026-03-14T10-30-12-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl",
    "astorlm/3fc3f7d7-a9cc-4b2a-8f1b-80ee252c7110.jsonl",
]


def _cli_env() -> tuple[dict[str, str], bool]:
    """The environment a CLI run gets (no debug switch of the user's), and whether it runs warm
    (forked by tests/warm_cli.py's server) rather than in a fresh interpreter (SESSION_TUI_TESTS_COLD=1)."""
    env = dict(os.environ)
    env.pop("SESSION_TUI_DEBUG", None)
    return env, env.get("SESSION_TUI_TESTS_COLD") != "1"


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m session_tui ARGS`` as a real process: a child forked by a warm server
    (tests/warm_cli.py), or, with SESSION_TUI_TESTS_COLD=1, a fresh interpreter each time."""
    env, warm = _cli_env()
    if warm:
        from tests.warm_cli import run_warm

        return run_warm(list(args), cwd or REPO, env)
    return subprocess.run(
        [sys.executable, "-m", "session_tui", *args],
        capture_output=True,
        text=True,
        cwd=cwd or REPO,
        env=env,
        timeout=120,
    )


def run_killed(*args: str, after: float) -> subprocess.CompletedProcess:
    """``run_cli(*ARGS)`` killed with SIGKILL ``after`` seconds from its start, if it has not ended
    by then (a forked child of the warm server, or with SESSION_TUI_TESTS_COLD=1 a fresh interpreter,
    whose start the kill then may land in)."""
    env, warm = _cli_env()
    if warm:
        from tests.warm_cli import run_warm

        return run_warm(list(args), REPO, env, kill_after=after)
    proc = subprocess.Popen(
        [sys.executable, "-m", "session_tui", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        proc.wait(timeout=after)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return subprocess.CompletedProcess(proc.args, proc.returncode)


def check_json(*paths: Path | str, usage: bool = False, agent: bool = False) -> list[dict]:
    """The reports of ``check --json``; their ``usage`` (tests/model/usage) and ``agent`` (the live state, which
    depends on the time: tests/model/session/test_agent_state.py) left out unless asked for."""
    result = run_cli("check", "--json", *map(str, paths))
    assert result.returncode in (0, 1), result.stderr
    reports = [json.loads(line) for line in result.stdout.splitlines()]
    for report in reports:
        if not usage:
            report.pop("usage", None)
        if not agent:
            report.pop("agent", None)
    return reports


@contextlib.contextmanager
def tmpfs(where, size):
    """A small tmpfs mounted at ``where`` (skipped where it cannot be mounted)."""
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=True)


def live_snapshot(root: str, sessions: int, cache: Path, *flags: str) -> bytes:
    """The first ``sessions`` lines ``live --json FLAGS`` prints of the sessions under ``root`` (its snapshot,
    one line a session), then what it wrote to stderr; a real process, killed once they are read."""
    env = {**os.environ, "SESSION_TUI_CACHE_DIR": str(cache)}
    with subprocess.Popen(
        [sys.executable, "-m", "session_tui", "live", "--json", *flags, "--window", "1000d", root],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as live:
        try:
            printed = _lines(live.stdout.fileno(), sessions)
        finally:
            live.kill()
        return printed + live.stderr.read()


def _lines(fd: int, count: int, timeout: float = 60) -> bytes:
    """The first ``count`` lines written to ``fd``, read unbuffered (select sees only what is not read yet)."""
    data = b""
    while data.count(b"\n") < count:
        ready, _, _ = select.select([fd], [], [], timeout)
        assert ready, f"{len(data.splitlines())} of {count} lines in {timeout} s"
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    return data


def golden_form(steps) -> list[list]:
    """Resume steps as the goldens in tests/golden store them (JSON lists)."""
    return [[list(v) if isinstance(v, tuple) else v for v in step.key()] for step in steps]


#: a process that opens its file for appending, says so, and keeps it open
HOLD_OPEN = "import sys, time; f = open(sys.argv[1], 'a'); print('open', flush=True); time.sleep(60)"


@contextlib.contextmanager
def held_open(path):
    """A process holding ``path`` open for writing (as Codex holds its rollout) while the block runs;
    killed at its end (the block may kill it sooner)."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD_OPEN, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        yield holder
    finally:
        holder.kill()
        holder.wait()


def copy_session(source: Path, folder: Path) -> Path:
    """``source`` copied into ``folder`` (an opencode ``opencode.db#ID``: the
    database's files; a Copilot CLI ``events.jsonl``: its whole folder)."""
    database, sep, _ = source.name.partition("#")
    if sep:
        for suffix in ("", "-wal", "-shm"):
            if (source.parent / (database + suffix)).exists():
                shutil.copyfile(source.parent / (database + suffix), folder / (database + suffix))
        return folder / source.name
    if source.name == "events.jsonl":
        shutil.copytree(source.parent, folder / source.parent.name)
        return folder / source.parent.name / source.name
    shutil.copyfile(source, folder / source.name)
    return folder / source.name


class KillPace:
    """When to kill a run of a write that takes ``took`` seconds here and
    now: a random time over its length (``low`` to ``high`` times it), so
    kills land both before and after the write. The pace of a loaded
    machine changes between the timing run and the trials: while one side
    is not seen yet, every five trials steer the kills toward it."""

    def __init__(self, took: float, rng, low: float = 0.2, high: float = 1.6) -> None:
        self.took, self.rng, self.low, self.high = took, rng, low, high
        self.scale, self.trials = 1.0, 0

    def delay(self) -> float:
        return self.rng.uniform(self.low, self.high) * self.took * self.scale

    def saw(self, before: bool, after: bool) -> None:
        """After a trial: whether kills landed before the write, and after it, so far."""
        self.trials += 1
        if self.trials % 5 == 0 and not (before and after):
            self.scale *= 0.7 if not before else 1.4

    def more(self, before: bool, after: bool, trials: int, most: int) -> bool:
        """Whether to run another trial: ``trials`` at least, up to ``most`` while a side is not seen."""
        return self.trials < trials or (not (before and after) and self.trials < most)
