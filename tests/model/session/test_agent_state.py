"""One answer to "what is the agent doing?", told by its writer's liveness
first (model.session.live_state), the same in ``check --json``, ``live
--json`` and the session view; with real processes: a client (a script
named ``claude``, run in the session's recorded directory, that writes the
session's lines itself) killed mid-call or mid-answer, one in a long call,
a file held open for writing; and session-tui's own edits, which leave the
state as it was."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from session_tui.model.session.live_rule import Activity
from session_tui.model.session.live_state import live_state
from session_tui.model.session.session import open_session
from tests.model.fleet import builders
from tests.model.fleet.builders import Writer
from tests.model.fleet.test_live_json import lines_of, wait_for
from tests.support import REPO, SAMPLES, check_json, held_open, run_cli

CLIENT = r"""
import os, sys, time
lines = open(os.environ["PENDING"]).read()  # (not on its command line: a client named no session there)
with open(os.environ["SESSION"], "a") as f:  # it writes its records, then closes the file (as Claude Code does)
    f.write(lines)
print("written", flush=True)
time.sleep(600)  # the tool runs (or the model streams its answer)
"""
OLD_PI = SAMPLES / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"
CRASHES = REPO / "tests" / "data" / "live-crashes"


def agent_of(path: Path) -> dict:
    (report,) = check_json(path, agent=True)
    return report["agent"]


def until(look, done, timeout: float, what: str):
    """``look()`` again until ``done`` holds of it; what it was then (fails after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        found = look()
        if done(found):
            return found
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}: {found}"
        time.sleep(0.05)


class Client:
    """A process of a client (its program named like the client's: ``claude``) in the session's
    directory, that appends the session's lines and then runs a long call."""

    def __init__(self, tmp: Path, session: Path, lines: bytes, cwd: Path, name: str = "claude") -> None:
        bin_dir = tmp / "bin"
        bin_dir.mkdir(exist_ok=True)
        self.program = bin_dir / name
        self.program.write_text(CLIENT)
        staged = tmp / f"{session.name}.pending"
        staged.write_bytes(lines)
        self.process = subprocess.Popen(
            [sys.executable, str(self.program), "-p", "Run the tests"],
            cwd=cwd,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "SESSION": str(session), "PENDING": str(staged)},
        )
        assert self.process.stdout is not None and self.process.stdout.readline().strip() == "written"

    def kill(self) -> float:
        """kill -9; when it was (time.monotonic())."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        return time.monotonic()

    def close(self) -> None:
        if self.process.poll() is None:
            self.kill()


def claude_session(tmp_path: Path, monkeypatch, mid: str) -> tuple[Path, Path, bytes]:
    """(the session file, its recorded directory, the lines its client will write): a prompt
    sent a moment ago, then (``mid``) a Bash call made, or nothing yet (the model answering)."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setattr(builders, "CWD", str(work))
    folder = tmp_path / "projects" / "work"
    folder.mkdir(parents=True)
    path = folder / "6e3f0c2a-4b1d-4c8e-9f00-1a2b3c4d5e6f.jsonl"
    writer = Writer(path, "claude", time.time()).prompt("Run the tests", ago=1)
    if mid == "call":
        writer.calls_made("Bash", ago=0)
    lines = path.read_bytes()
    path.write_bytes(b"")  # (the client writes them)
    return path, work, lines


@pytest.mark.parametrize("mid", ["call", "answer"])
def test_a_client_killed_mid_turn_is_crashed_at_once_in_check(tmp_path, monkeypatch, mid):
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")  # (the time rule would say running for 5 minutes)
    path, work, lines = claude_session(tmp_path, monkeypatch, mid)
    client = Client(tmp_path, path, lines, work)
    try:
        alive = agent_of(path)
        assert alive["state"] == ("tool" if mid == "call" else "working"), alive
        assert alive["inferred"] == "process running in its directory" and (alive["tool"] == "Bash") == (mid == "call")
        killed = client.kill()
        dead = agent_of(path)  # (a fresh process: it reads the process table after the kill)
        took = time.monotonic() - killed
    finally:
        client.close()
    assert (dead["state"], dead["inferred"]) == ("crashed", "process gone"), dead
    assert took < 5, took
    text = run_cli("check", str(path)).stdout
    assert "agent: crashed (process gone)" in text, text
    if mid == "call":
        assert "call without result" in text  # a crash's call is a problem at once

    copied = tmp_path / "copy" / path.name  # a copy of a crashed file is crashed, not running
    copied.parent.mkdir()
    shutil.copy(path, copied)
    assert agent_of(copied)["state"] == "crashed"


@pytest.mark.parametrize("mid", ["call", "answer"])
def test_a_client_killed_mid_turn_is_crashed_in_live_json_within_seconds(tmp_path, monkeypatch, mid):
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")
    path, work, lines = claude_session(tmp_path, monkeypatch, mid)
    client = Client(tmp_path, path, lines, work)
    live = subprocess.Popen(
        [sys.executable, "-m", "session_tui", "live", "--json", str(path.parent), "--window", "1h"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        found, seen = lines_of(live), []
        wait_for(found, seen, lambda s: any(x["event"] == "snapshot" for x in s), what="the snapshot")
        running = "tool" if mid == "call" else "working"
        assert (seen[0]["state"], seen[0]["inferred"]) == (running, "process running in its directory"), seen[0]
        killed = client.kill()
        wait_for(found, seen, lambda s: s[-1]["state"] == "crashed", timeout=10, what="the crash")
        took = time.monotonic() - killed
    finally:
        client.close()
        live.terminate()
        live.wait(timeout=10)
    assert seen[-1]["inferred"] == "process gone" and seen[-1]["tool"] == ("Bash" if mid == "call" else None)
    assert took < 6, f"crashed {took:.1f} s after the kill"


@pytest.mark.parametrize("mid", ["call", "answer"])
async def test_a_client_killed_mid_turn_is_crashed_in_the_session_view(tmp_path, monkeypatch, mid):
    from session_tui.ui.app import SessionApp
    from session_tui.ui.widgets.status import StatusLine
    from tests.ui.pilot_support import session_screen
    from tests.ui.pilot_support import wait_for as wait_on_screen

    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")
    path, work, lines = claude_session(tmp_path, monkeypatch, mid)
    client = Client(tmp_path, path, lines, work)
    try:
        async with SessionApp(str(path)).run_test(size=(140, 30)) as pilot:
            screen = await session_screen(pilot)
            status = screen.query_one(StatusLine)
            running = "running Bash" if mid == "call" else "answering"
            await wait_on_screen(pilot, lambda: running in status.text.plain, what="the turn going on")
            assert "✓ no problems" in status.text.plain
            killed = client.kill()
            await wait_on_screen(
                pilot, lambda: "crashed (process gone)" in status.text.plain, timeout=8, what="the crash"
            )
            took = time.monotonic() - killed
            if mid == "call":
                await wait_on_screen(pilot, lambda: screen.state.problems, what="its call a problem")
                assert [p.kind.value for p in screen.state.problems] == ["dangling_tool_call"]
    finally:
        client.close()
    assert took < 6, f"crashed {took:.1f} s after the kill"


def test_a_live_client_in_a_long_call_stays_running_past_stuck_after(tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "1")
    path, work, lines = claude_session(tmp_path, monkeypatch, "call")
    client = Client(tmp_path, path, lines, work)
    try:
        with open_session(path) as session:  # quiet past the threshold: the time rule would say stuck
            until(lambda: live_state(session).quiet_for, lambda q: q > 1.5, 15, "quiet past stuck_after")
            state = live_state(session)
        agent = agent_of(path)
    finally:
        client.close()
    assert (state.activity, state.inferred) == (Activity.RUNNING, "process running in its directory")
    assert (agent["state"], agent["inferred"], agent["tool"]) == ("tool", "process running in its directory", "Bash")


def test_a_file_held_open_for_writing_stays_running(tmp_path, monkeypatch):
    """Codex keeps its rollout open while it runs: however quiet, its call runs."""
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "1")
    path = tmp_path / "rollout-2026-12-02T10-00-00-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl"
    Writer(path, "codex", time.time()).prompt("Run", ago=2).calls_made("Bash", ago=2)
    with held_open(path):
        agent = agent_of(path)
    assert (agent["state"], agent["inferred"]) == ("tool", "writer open"), agent
    gone = agent_of(path)  # (a fresh look: the writer is gone; no codex runs it)
    assert gone["state"] == "crashed" and gone["inferred"] == "process gone", gone


@pytest.mark.parametrize("mid", ["call", "answer"])
def test_the_picker_says_what_check_says_of_a_file_held_open_and_of_its_writer_killed(tmp_path, monkeypatch, mid):
    """The picker's row gathers less (the file's head and tail, no session
    opened) but decides by the same rule as ``check`` and the session view."""
    from session_tui.model.catalog.info_reader import read_info

    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")
    path = tmp_path / "rollout-2026-12-02T10-00-00-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl"
    now = time.time()
    writer = Writer(path, "codex", now - 60).prompt("Explain the code", ago=30)
    if mid == "call":
        writer.calls_made("Bash", ago=30)
    os.utime(path, (now - 30, now - 30))  # quiet for 30 s: past the picker's few seconds of "live"

    def picker() -> tuple[str, str]:
        decided = read_info(str(path)).state()
        return decided.activity.state, decided.inferred

    with held_open(path):
        agent = agent_of(path)
        assert (agent["state"], agent["inferred"]) == ("tool" if mid == "call" else "working", "writer open"), agent
        # (this process keeps a process table a moment: the picker may look again until it sees the holder)
        until(picker, lambda p: p == (agent["state"], agent["inferred"]), 10, "the picker to say what check says")
        info = read_info(str(path))
        assert info.live() and info.running() == (mid == "call")
    # the writer gone: each looks again until it sees it gone (a process table is kept a moment), then both agree
    gone = until(lambda: agent_of(path), lambda a: a["state"] == "crashed", 10, "check to see the crash")
    assert until(picker, lambda p: p[0] == "crashed", 10, "the picker to see the crash") == (
        gone["state"],
        gone["inferred"],
    )
    info = read_info(str(path))
    assert not info.live() and not info.running()


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_leaf_move_a_repair_and_an_undo_leave_an_old_sessions_state_as_it_was(tmp_path, monkeypatch, force):
    """With ``--force`` too: it answers the question about a live agent, it
    does not skip remembering the state our write must leave as it was."""
    from session_tui.model.reading.segment import Shape
    from session_tui.store import edits

    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")
    path = tmp_path / OLD_PI.name
    shutil.copy(OLD_PI, path)  # a fresh copy of a 260-day-old session: not live
    before = agent_of(path)
    assert before["state"] == "idle", before
    with open_session(path) as session:
        leaf = session.active_leaf()
        answers = [
            e
            for e in session.active_path()
            if e != leaf and session.tree.shape[e] & (Shape.ROLE_MASK | Shape.CALLS) == Shape.ASSISTANT
        ]
        target = session.format.entry_id(session.record(answers[-1]))
    moved = run_cli("set-leaf", *force, str(path), target)  # not refused as live: a copy is as old as its entries
    assert moved.returncode == 0, moved.stderr
    assert agent_of(path) == before
    assert "agent: idle" in run_cli("check", str(path)).stdout
    with open_session(path) as session:  # the leaf moved to a prompt: still the idle session it was
        prompt = next(
            e for e in reversed(session.active_path()) if session.tree.shape[e] & Shape.ROLE_MASK == Shape.USER
        )
        target = session.format.entry_id(session.record(prompt))
    assert run_cli("set-leaf", *force, str(path), target).returncode == 0
    assert agent_of(path) == before

    stuck = tmp_path / "tree" / "s.jsonl"  # an old call without a result, no client to ask: stuck on its tool
    stuck.parent.mkdir()
    shutil.copy(SAMPLES / "tree" / "crash-dangling.jsonl", stuck)
    was = agent_of(stuck)
    assert (was["state"], was["tool"]) == ("stuck", "run_command"), was
    assert run_cli("set-leaf", *force, str(stuck), "d3000000-0000-4000-8000-000000000002").returncode == 0
    assert agent_of(stuck) == was  # (the leaf now a prompt: the file alone would say a turn cut off, no tool)

    crashed = tmp_path / "crash" / "s.jsonl"  # an old crash: a call without a result, its client long gone
    crashed.parent.mkdir()
    shutil.copy(next(CRASHES.glob("pi/*.jsonl")), crashed)
    was = agent_of(crashed)
    assert (was["state"], was["inferred"]) == ("crashed", "process gone"), was
    fixed = run_cli("fix", "--close", *force, str(crashed))
    assert fixed.returncode == 0, fixed.stderr
    assert agent_of(crashed) == was  # the turn still cut off, on the same tool
    with open_session(crashed) as session:
        done = edits.apply(edits.plan_set_leaf(session, 0))  # and an undo of a leaf move, through the store
    edits.apply(edits.plan_undo(done))
    assert agent_of(crashed)["since"] == was["since"]


def test_the_fleet_asks_the_writer_as_the_session_view_does_and_says_a_crash_the_same_way(tmp_path, monkeypatch):
    from session_tui.model.fleet.observe import observe

    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")
    path = tmp_path / "rollout-2026-12-02T10-00-00-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl"
    Writer(path, "codex", time.time()).prompt("Run", ago=400).calls_made("Bash", ago=400)  # past stuck_after

    def both() -> tuple[tuple[str, str, str], tuple[str, str, str]]:
        with open_session(path) as session:
            seen, live = observe(session), live_state(session)
        return (seen.state.value, seen.inferred, seen.state_words()), (live.state, live.inferred, live.words())

    with held_open(path):
        # (both looks share the process table, read at most every PROCESS_TABLE_TTL: one read in the
        # worker before the holder started, after the file's last write, says no writer until it is old)
        held = until(both, lambda b: b[0][1] == b[1][1] == "writer open", 10, "the writer seen by both")
    assert held[0][:2] == ("tool", "writer open"), held  # not stuck by the time rule: its writer lives
    gone = until(both, lambda b: b[1][0] == "crashed", 10, "the crash seen")
    assert gone[0] == ("crashed", "process gone", "crashed (process gone)") and gone[1][2] == gone[0][2], gone


def test_after_a_pi_leaf_move_check_names_the_target_and_counts_no_pointer(tmp_path):
    """pi keeps session-tui's leaf pointer as an entry (pi's leaf is its last
    entry): ``check`` names the entry it points at, as ``diff`` does, and
    counts the same entries as before the move."""
    from session_tui.model.reading.segment import Shape

    path = tmp_path / OLD_PI.name
    shutil.copy(OLD_PI, path)
    (before,) = check_json(path)
    with open_session(path) as session:
        leaf = session.active_leaf()
        answer = next(
            e
            for e in reversed(session.active_path())
            if e != leaf and session.tree.shape[e] & (Shape.ROLE_MASK | Shape.CALLS) == Shape.ASSISTANT
        )
        target, line = session.format.entry_id(session.record(answer)), session.line_of(answer)
    assert run_cli("set-leaf", str(path), target).returncode == 0
    (after,) = check_json(path)
    assert (after["entries"], after["active_leaf"], after["active_leaf_line"]) == (before["entries"], target, line)
    text = run_cli("check", str(path)).stdout
    assert f"{before['entries']} entries" in text and f"active leaf {target} (line {line})" in text, text
    diff = run_cli("diff", "--json", str(path))
    assert [b["leaf"] for b in json.loads(diff.stdout)["branches"] if b["active"]] == [target], diff.stdout


def test_the_own_writes_ledger_is_ignored_when_damaged_or_not_private(tmp_path, monkeypatch):
    from session_tui.model.cache_dir import default_cache_dir
    from session_tui.model.reading import own_writes

    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")
    path = tmp_path / OLD_PI.name
    shutil.copy(OLD_PI, path)
    before = agent_of(path)
    own_writes.record(str(path), time.time() - 10)  # "the agent wrote it 10 s before our edit"
    assert agent_of(path)["since"] != before["since"]
    ledger = Path(default_cache_dir()) / own_writes.LEDGER
    assert json.loads(ledger.read_text())["writes"] and (ledger.stat().st_mode & 0o777) == 0o600
    os.chmod(ledger, 0o644)  # open to others: not trusted
    assert own_writes.own_write(str(path)) is None
    os.chmod(ledger, 0o600)
    assert own_writes.own_write(str(path)) is not None
    ledger.write_text("{not json")
    assert own_writes.own_write(str(path)) is None
    own_writes.record(str(path), None)  # a damaged ledger is replaced by the next write's
    assert own_writes.own_write(str(path)) is not None


def test_the_pickers_sort_reads_the_own_writes_ledger_once_and_still_sees_it(tmp_path, monkeypatch):
    """A sort by last activity asks every row for the agent's last write
    (session-tui's own edit is not the agent's); the ledger is read once
    for all the rows, and the edited old session still sorts as old."""
    from session_tui.model.catalog.cache import Catalog
    from session_tui.model.catalog.finding import SORTS, rank_rows
    from session_tui.model.reading import own_writes

    folder = tmp_path / "sessions"
    folder.mkdir()
    old = folder / OLD_PI.name
    shutil.copy(OLD_PI, old)
    with open_session(old) as session:
        first = session.format.entry_id(session.record(session.active_path()[1]))
    assert run_cli("set-leaf", str(old), first).returncode == 0  # our write: the file's mtime is now
    fresh = [folder / f"fresh-{n}.jsonl" for n in range(30)]
    for path in fresh:
        shutil.copy(REPO / "sample_sessions" / "tree" / "branched-summary.jsonl", path)
    catalog = Catalog(str(tmp_path / "cache"))
    infos = [catalog.read(info.path) for info in catalog.listing([str(folder)])]
    loads = []
    real = own_writes._load
    monkeypatch.setattr(own_writes, "_load", lambda ledger: loads.append(ledger) or real(ledger))
    rows = rank_rows(infos, "", None, SORTS[0][1], str)
    assert len(loads) == 1
    assert rows[-1].path.endswith(OLD_PI.name)  # the agent last wrote it 260 days ago, whatever its mtime says


@pytest.mark.parametrize("mid", ["answer", "call"])
async def test_the_pickers_row_says_crashed_when_the_view_and_check_do(tmp_path, monkeypatch, mid):
    """A client killed mid-answer leaves no call without a result: the
    picker's row still says what the session view and ``check`` say of it
    (``✗ crashed``), live before the kill; a session that simply ended (an
    answer, a turn the user interrupted, a local command) has no badge."""
    from session_tui.ui.app import SessionApp
    from session_tui.ui.widgets.status import StatusLine
    from tests.ui.pilot_support import picker_read, session_screen
    from tests.ui.pilot_support import wait_for as wait_on_screen

    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(tmp_path / "cache"))
    path, work, lines = claude_session(tmp_path, monkeypatch, mid)
    ended = path.parent / "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6.jsonl"  # ends in local commands (/exit)
    shutil.copy(REPO / "tests" / "data" / "real" / "claude" / "short.jsonl", ended)
    client = Client(tmp_path, path, lines, work)
    try:
        async with SessionApp([str(path.parent)], watch=False).run_test(size=(140, 30)) as pilot:
            screen = await picker_read(pilot, 2)
            table = screen.table

            def row(of: Path) -> str:
                info = next(i for i in table.rows if i.path == str(of))
                return table.row_text(info, 140).plain

            await wait_on_screen(pilot, lambda: "▶ running" in row(path) or "● live" in row(path), what="live")
            assert "crashed" not in row(ended) and "live" not in row(ended), row(ended)
            killed = client.kill()
            await wait_on_screen(pilot, lambda: "✗ crashed" in row(path), timeout=8, what="the crash in the row")
            took = time.monotonic() - killed
            assert "● live" not in row(path) and "▶ running" not in row(path), row(path)
            assert row(ended).rstrip().endswith("B"), row(ended)  # (its size last: no badge)
    finally:
        client.close()
    assert took < 6, f"crashed {took:.1f} s after the kill"
    agent = agent_of(path)
    assert (agent["state"], agent["inferred"]) == ("crashed", "process gone"), agent
    assert agent_of(ended)["state"] == "idle"
    async with SessionApp(str(path)).run_test(size=(140, 30)) as pilot:
        status = (await session_screen(pilot)).query_one(StatusLine)
        await wait_on_screen(pilot, lambda: "crashed (process gone)" in status.text.plain, what="the view's crash")
