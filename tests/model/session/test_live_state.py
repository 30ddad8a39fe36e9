"""What the agent is doing, from the file alone (model.session.live_state): a call
without a result is running while the file is written (or held open by a
writer), stuck after ``stuck_after``; the same rule in ``check`` and the
store's refusal of edits."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from session_tui.model.session.last_write import last_written
from session_tui.model.session.live_rule import Activity
from session_tui.model.session.live_state import live_state
from session_tui.model.session.problems import find_problems
from session_tui.model.session.session import open_session
from session_tui.model.session.writer_liveness import cannot_tell
from session_tui.model.words import ago, clock
from tests.builders.tree import call, chain, fresh, message, result
from tests.support import REPO, SAMPLES, held_open, run_cli

LIVE = REPO / "tests" / "data" / "live-crashes"


def until(look, done, timeout: float = 15.0):
    """``look()`` again until ``done`` holds of it (the process table is read every few seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        found = look()
        if done(found) or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


@pytest.fixture(autouse=True)
def five_minutes(monkeypatch):
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")


def _crash(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(fresh(chain(2) + call("a1", "m1", "c1")))
    return path


def test_a_call_just_written_is_running_and_no_problem(tmp_path):
    path = _crash(tmp_path)
    with open_session(path) as session:
        state = live_state(session)
        assert state.activity is Activity.RUNNING and [a.call_id for a in state.awaited] == ["c1"]
        assert state.words().startswith("running run ")
        assert find_problems(session) == []


def test_after_stuck_after_of_quiet_the_call_is_stuck_a_problem(tmp_path):
    path = _crash(tmp_path)
    _age(path, 301)
    with open_session(path) as session:
        state = live_state(session)  # (a tree file: no client's process to ask, the time rule decides)
        assert state.activity is Activity.STUCK and state.running() == set() and state.inferred == "time rule"
        assert [p.kind.value for p in find_problems(session)] == ["dangling_tool_call"]
        assert "run call (c1) has no result" in find_problems(session)[0].message


def test_the_threshold_is_the_callers(tmp_path):
    path = _crash(tmp_path)
    with open_session(path) as session:
        assert live_state(session, stuck_after=0).activity is Activity.STUCK
        assert live_state(session, now=time.time() + 10, stuck_after=5).activity is Activity.STUCK
        assert live_state(session, now=time.time() + 10, stuck_after=60).activity is Activity.RUNNING


def test_a_call_the_model_went_past_is_a_problem_however_recent(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        fresh(
            chain(2) + call("a1", "m1", "c1", "c2") + result("r1", "a1", "c1") + message("a2", "r1", "assistant", "ok")
        )
    )
    with open_session(path) as session:
        assert live_state(session).awaited == ()
        assert [p.kind.value for p in find_problems(session)] == ["dangling_tool_call"]


def test_one_of_two_parallel_calls_answered_the_other_runs(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(fresh(chain(2) + call("a1", "m1", "c1", "c2") + result("r1", "a1", "c1")))
    with open_session(path) as session:
        state = live_state(session)
        assert [a.call_id for a in state.awaited] == ["c2"] and state.activity is Activity.RUNNING
        assert find_problems(session) == []


@pytest.mark.parametrize(
    ("tail", "quiet", "activity"),
    [
        (message("a1", "m1", "assistant", "the answer"), 0, Activity.ANSWERING),  # its calls may follow
        (message("a1", "m1", "assistant", "the answer"), 3, Activity.WAITING),
        (message("a1", "m1", "assistant", "the answer"), 1500, Activity.IDLE),
        (b"", 1, Activity.ANSWERING),  # the last entry is the user's prompt
        (b"", 1500, Activity.STOPPED),
    ],
)
def test_what_the_agent_is_doing(tmp_path, tail, quiet, activity):
    path = tmp_path / "s.jsonl"
    path.write_bytes(fresh(chain(2) + tail))
    _age(path, quiet)
    with open_session(path) as session:
        state = live_state(session)
        assert state.activity is activity
        if activity is Activity.IDLE:
            assert state.words() == "idle 25 min"


def test_a_quiet_file_held_open_by_its_writer_keeps_its_call_running(tmp_path):
    """Codex keeps its rollout open while it runs: a long command in a quiet
    file is still running while the writer holds the file (Linux /proc)."""
    path = _crash(tmp_path)
    with held_open(path) as holder:
        _age(path, 301)
        with open_session(path) as session:
            state = until(lambda: live_state(session), lambda s: s.activity is Activity.RUNNING)
            assert state.inferred == "writer open" and state.alive is True
            assert find_problems(session) == []
            holder.kill()
            holder.wait()
            state = until(lambda: live_state(session), lambda s: s.activity is not Activity.RUNNING)
            assert (state.activity, state.inferred) == (Activity.STOPPED, "writer gone")  # seen holding it, now gone
    with open_session(path) as session:  # (a fresh look: no writer seen, its liveness unknown)
        assert live_state(session).activity is Activity.STUCK


def test_real_crashes_are_running_while_fresh_and_stuck_when_quiet(tmp_path):
    for source in sorted(LIVE.glob("*/*.jsonl")):
        path = tmp_path / source.name
        path.write_bytes(source.read_bytes())
        with open_session(path) as session:  # a copy: its entries are old, whatever the file's time
            state = live_state(session)  # (no process of its client started before them: it is gone)
            assert (state.activity, state.inferred) == (Activity.STOPPED, "process gone"), source
            written = last_written(session)
            then = live_state(session, now=written + 10, probe=cannot_tell)  # as it was then, its client unseen
            assert then.activity is Activity.RUNNING and then.inferred == "time rule", source
            assert find_problems(session, live=then) == [], source
            assert find_problems(session), source  # now: stuck


def test_check_says_what_the_agent_does_and_takes_stuck_after(tmp_path):
    path = _crash(tmp_path)
    fresh = run_cli("check", str(path))
    assert fresh.returncode == 0 and "agent: running run" in fresh.stdout and "no problems" in fresh.stdout
    stuck = run_cli("check", "--stuck-after", "0", str(path))
    assert stuck.returncode == 1 and "call without result" in stuck.stdout and "agent: stuck run" in stuck.stdout


def test_a_repair_of_a_file_written_within_stuck_after_needs_force(tmp_path):
    path = _crash(tmp_path)
    before = path.read_bytes()
    refused = run_cli("fix", "--close", str(path))
    assert refused.returncode == 1 and "may still be running" in refused.stderr and "--force" in refused.stderr
    assert path.read_bytes() == before
    forced = run_cli("fix", "--close", "--force", str(path))
    assert forced.returncode == 0, forced.stderr
    assert path.read_bytes() != before


def test_words():
    assert clock(12) == "0:12" and clock(725) == "12:05" and clock(3723) == "1:02:03"
    assert ago(40) == "40 s" and ago(1500) == "25 min" and ago(3 * 3600) == "3 h" and ago(12 * 86400) == "12 days"


def test_a_copy_of_an_old_session_is_not_live_however_new_the_file(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(2) + call("a1", "m1", "c1"))  # entries of 2026-03-14, the file written now
    with open_session(path) as session:
        assert live_state(session).activity is Activity.STUCK
        assert [p.kind.value for p in find_problems(session)] == ["dangling_tool_call"]


def test_a_file_whose_entries_record_no_time_is_live_only_once_seen_growing(tmp_path):
    """A chat file says nothing of when it was written: a fresh checkout of
    a crashed one is not an agent at work; the same file seen growing is."""
    system, prompt, call = (
        (SAMPLES / "chat" / "session-crash-torn-tail.jsonl").read_bytes().splitlines(keepends=True)[:3]
    )
    copied = tmp_path / "copied.jsonl"
    copied.write_bytes(system + prompt + call)  # written just now, all at once
    with open_session(copied, "chat") as session:
        assert live_state(session).activity is Activity.STUCK
        assert [p.kind.value for p in find_problems(session)] == ["dangling_tool_call"]
    watched = tmp_path / "watched.jsonl"
    watched.write_bytes(system + prompt)
    with open_session(watched, "chat") as session:
        with open(watched, "ab") as f:
            f.write(call)  # the agent calls a tool while we watch
        session.refresh()
        assert live_state(session).activity is Activity.RUNNING and find_problems(session) == []


def test_a_session_directory_no_path_can_name_is_no_process_s_directory(tmp_path):
    """A hostile session records its directory with a lone surrogate (valid
    JSON, no path at all). While a process of its client runs (as in CI, a
    real client beside the check), asking which directory that process is in
    must say "not this one", not raise: `check` failed with an internal
    UnicodeEncodeError when a client happened to run."""
    from session_tui.model.reading.open_writers import Process, ProcessTable
    from session_tui.model.session.writer_liveness import PROCESS_GONE, _client_liveness

    path = tmp_path / "s.jsonl"
    path.write_bytes(b"{}\n")
    claude = Process(pid=1, cwd=str(tmp_path), names=frozenset({"claude"}), args=("claude",), started=None)
    table = ProcessTable(taken=time.time(), processes=(claude,), writers={})
    found = _client_liveness(str(path), "claude", os.stat(path), table, None, lambda: "/work/\ud83d")
    assert (found.alive, found.how) == (False, PROCESS_GONE)


def test_a_file_whose_inode_a_cached_table_names_is_looked_at_again_even_with_its_mtime_set_back(tmp_path, monkeypatch):
    """The process table is cached a moment; it may name a file deleted since
    whose inode a new file reuses. A file changed after the table was read is
    looked at again: by its ctime, since ``cp -p`` or ``touch -d`` set its mtime
    back (a CI run refused an edit of such a file: "writer open")."""
    from session_tui.model.reading import open_writers
    from session_tui.model.reading.open_writers import Holder, ProcessTable
    from session_tui.model.session.writer_liveness import WRITER_OPEN, file_liveness

    path = tmp_path / "s.jsonl"
    path.write_bytes(b"{}\n")
    old = time.time() - 301
    os.utime(path, (old, old))
    st = os.stat(path)
    stale = ProcessTable(taken=time.time() - 1, processes=(), writers={(st.st_dev, st.st_ino): (Holder(1, "gone"),)})
    monkeypatch.setattr(open_writers, "_table", (time.monotonic(), stale))
    monkeypatch.setattr(open_writers, "can_tell", lambda: True)
    assert file_liveness(str(path), "tree", None).how != WRITER_OPEN
    monkeypatch.setattr(open_writers, "_table", (time.monotonic(), ProcessTable(time.time() + 1, (), stale.writers)))
    assert file_liveness(str(path), "tree", None).how == WRITER_OPEN  # a table read after it: believed


def test_a_file_replaced_under_an_open_session_has_no_entry_time_and_raises_nothing(tmp_path):
    # (the problems screen asks every second, and the file may be replaced before its reload:
    # the last entry's line then holds other bytes, or none)
    path = _crash(tmp_path)
    with open_session(path) as session:
        timed = last_written(session)
        assert timed is not None
        path.write_bytes(b"")  # (shorter: its last entry's line is gone)
        assert last_written(session) is None
        path.write_bytes(b"x" * (session.lines.end + 10))  # (as long, other bytes: not JSON)
        assert last_written(session) is None
