"""Every state and alert of the fleet, per format, from files written as
agents write them (tests/model/fleet/builders.py) and from the samples."""

from __future__ import annotations

import json
import shutil
import time

import pytest

from session_tui.model.fleet.alerts import alerts_of
from session_tui.model.fleet.observe import AgentState, observe
from session_tui.model.session.session import open_session
from session_tui.model.session.writer_liveness import Liveness, cannot_tell
from tests.support import SAMPLES

from .builders import Writer

FORMATS = ["claude", "codex", "pi", "tree", "gemini", "qwen", "copilot"]
#: the formats whose file shows a call while it runs (Gemini CLI writes a call once it is done)
CALLS_SEEN = [fmt for fmt in FORMATS if fmt != "gemini"]
#: the formats of a client that runs on the machine (the process check asks for it)
CLIENTS = ["claude", "codex", "pi", "gemini", "qwen", "copilot"]
STUCK_AFTER = 300.0


def state_of(path, now, process_check=None, idle_after=900.0):
    with open_session(path) as session:
        return observe(session, now, STUCK_AFTER, idle_after, process_check or cannot_tell)


@pytest.fixture
def now():
    return time.time()


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_prompt_just_sent_is_working(tmp_path, now, fmt):
    w = Writer(tmp_path / "s.jsonl", fmt, now).prompt("Run the tests").written(1)
    assert state_of(w.path, now).state is AgentState.WORKING


@pytest.mark.parametrize("fmt", CALLS_SEEN)
def test_a_call_just_made_is_a_tool_running_with_what_it_does(tmp_path, now, fmt):
    w = Writer(tmp_path / "s.jsonl", fmt, now).prompt("Run the tests", ago=5).calls_made("Bash", ago=2).written(2)
    seen = state_of(w.path, now)
    assert (seen.state, seen.tool, seen.state_words()) == (AgentState.TOOL, "Bash", "tool or approval")
    assert seen.doing.startswith("Bash: $") and "pytest -q" in seen.doing


@pytest.mark.parametrize("fmt", CALLS_SEEN)
def test_a_call_quiet_past_stuck_after_is_stuck_and_alerts(tmp_path, now, fmt):
    w = Writer(tmp_path / "s.jsonl", fmt, now).prompt("Run", ago=500).calls_made("Bash", ago=400).written(400)
    seen = state_of(w.path, now)
    assert seen.state is AgentState.STUCK and alerts_of(seen, now) == ["stuck"]


@pytest.mark.parametrize("fmt", [f for f in CLIENTS if f in CALLS_SEEN])
def test_a_call_whose_agent_is_gone_is_crashed_inferred(tmp_path, now, fmt):
    w = Writer(tmp_path / "s.jsonl", fmt, now).prompt("Run", ago=60).calls_made("Bash", ago=30).written(30)
    asked = []

    def no_agent(session, written):
        asked.append((session.format.name, written))
        return Liveness(False, "process gone")

    seen = state_of(w.path, now, process_check=no_agent)
    assert (seen.state, seen.inferred) == (AgentState.CRASHED, "process gone")
    assert seen.state_words() == "crashed (process gone)"  # (as the session view says it)
    assert asked and asked[0][0] == fmt and asked[0][1] == pytest.approx(now - 30, abs=1)
    alive = state_of(w.path, now, process_check=lambda session, written: Liveness(True, "process running"))
    assert (alive.state, alive.inferred) == (AgentState.TOOL, "process running")
    unknown = state_of(w.path, now, process_check=lambda session, written: Liveness(None))  # cannot tell
    assert (unknown.state, unknown.inferred) == (AgentState.TOOL, "time rule")


@pytest.mark.parametrize("fmt", CLIENTS)
def test_a_turn_cut_off_mid_answer_is_crashed_once_its_agent_is_gone(tmp_path, now, fmt):
    w = Writer(tmp_path / "s.jsonl", fmt, now).prompt("Run", ago=3).written(3)  # the model was answering
    assert (
        state_of(w.path, now, process_check=lambda s, t: Liveness(True, "process running")).state is AgentState.WORKING
    )
    seen = state_of(w.path, now, process_check=lambda s, t: Liveness(False, "process gone"))
    assert (seen.state, seen.inferred) == (AgentState.CRASHED, "process gone")


def test_a_gemini_call_is_not_in_its_file_until_done_so_it_reads_as_the_text_before_it(tmp_path, now):
    """Gemini CLI writes a response's calls (with their results) only once they
    are all done, as a second copy of the response: while they run the file
    ends in the response's text, which no rule can tell from an answer (a
    kill then leaves no trace of the call: tests/data/live-2026-12-03/gemini).
    The calls done, the results are a turn the model answers."""
    w = Writer(tmp_path / "s.jsonl", "gemini", now).prompt("Run", ago=60).calls_made("Bash", ago=30).written(30)
    running = state_of(w.path, now, process_check=lambda s, t: Liveness(True, "process running"))
    assert (running.state, running.tool) == (AgentState.WAITING, None)
    assert state_of(w.path, now, process_check=lambda s, t: Liveness(False, "process gone")).state is AgentState.IDLE
    w.result(0, ago=1).written(1)
    done = state_of(w.path, now, process_check=lambda s, t: Liveness(True, "process running"))
    assert (done.state, done.tool) == (AgentState.WORKING, None)


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_answer_then_quiet_is_waiting_then_idle(tmp_path, now, fmt):
    w = Writer(tmp_path / "s.jsonl", fmt, now).prompt("Hi", ago=20).answer("Done.", ago=10).written(10)
    assert state_of(w.path, now).state is AgentState.WAITING
    assert state_of(w.path, now + 1000).state is AgentState.IDLE


@pytest.mark.parametrize("fmt", CALLS_SEEN)
def test_parallel_calls_are_a_tool_until_every_result_is_in(tmp_path, now, fmt):
    w = Writer(tmp_path / "s.jsonl", fmt, now).prompt("Run", ago=9).calls_made("Bash", "Read", ago=8).result(0, ago=2)
    w.written(2)
    seen = state_of(w.path, now)
    assert seen.state is AgentState.TOOL and seen.tool == "Read"
    w.result(1, ago=1).written(1)
    assert state_of(w.path, now).state is AgentState.WORKING


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_torn_tail_is_a_crash_only_after_five_quiet_seconds_and_none_once_completed(tmp_path, now, fmt):
    w = Writer(tmp_path / "s.jsonl", fmt, now).prompt("Run", ago=30).torn().written(1)
    assert state_of(w.path, now).state is not AgentState.CRASHED  # a line being written
    w.written(6)
    assert state_of(w.path, now).state is AgentState.CRASHED
    with open(w.path, "rb") as f:
        data = f.read()
    w.path.write_bytes(data[: data.rindex(b"\n") + 1])  # the writer completes it: a whole answer
    w.answer("Done.", ago=1).written(1)
    assert state_of(w.path, now).state is AgentState.WORKING  # (settles into waiting)


@pytest.mark.parametrize("fmt", CLIENTS)
def test_three_failed_results_in_a_row_raise_an_error_alert(tmp_path, now, fmt):
    w = Writer(tmp_path / "s.jsonl", fmt, now).prompt("Run", ago=20)
    for k in range(3):
        w.calls_made("Bash", ago=10 - k).result(0, ago=9 - k, error=True)
    w.written(1)
    seen = state_of(w.path, now)
    assert seen.failed_in_a_row == 3 and "error" in alerts_of(seen, now)


#: (format, the last response's context, the window): the price table's (Claude Code, pi), the one the
#: client records with each response (Qwen Code's contextWindowSize, Copilot CLI's maxPromptTokens in its
#: usage record) or its own fixed limit (Gemini CLI 0.61's tokenLimit(): the table knows no gemini-2.5-pro)
FULL = [
    ("claude", 190_000, 200_000),
    ("pi", 190_000, 200_000),
    ("qwen", 950_000, 1_000_000),
    ("copilot", 900_000, 922_000),
    ("gemini", 1_000_000, 1_048_576),
]


@pytest.mark.parametrize(("fmt", "used", "window"), FULL)
def test_a_context_over_ninety_percent_full_alerts(tmp_path, now, fmt, used, window):
    w = Writer(tmp_path / "s.jsonl", fmt, now).prompt("Run", ago=20).answer("Done.", ago=10, usage=used).written(10)
    seen = state_of(w.path, now)
    assert (seen.context_tokens, seen.context_window) == (used, window)
    assert "context" in alerts_of(seen, now)
    w = Writer(tmp_path / "t.jsonl", fmt, now).prompt("Run", ago=20).answer("Done.", ago=10, usage=1000).written(10)
    assert "context" not in alerts_of(state_of(w.path, now), now)


def test_an_opencode_context_is_its_last_assistant_messages_tokens(tmp_path, now):
    """opencode keeps a response's tokens on its message row (a quiet record):
    the fill is read there, the window by the model and provider it names."""
    import sqlite3

    sid = "ses_dc486f233ffeZIh7BHTlbpc31f"
    for suffix in ("", "-wal", "-shm"):
        source = SAMPLES / "opencode" / f"opencode.db{suffix}"
        if source.exists():
            shutil.copy(source, tmp_path / source.name)
    name = f"{tmp_path / 'opencode.db'}#{sid}"
    with open_session(name) as session:
        assert observe(session, now, STUCK_AFTER, 900.0, cannot_tell).context_tokens == 2743  # (not null)
    db = sqlite3.connect(tmp_path / "opencode.db")
    for row_id, data in db.execute("select id, data from message where session_id = ?", (sid,)).fetchall():
        found = json.loads(data)
        if found.get("role") == "assistant":
            found["tokens"] = {"input": 190_000, "output": 10, "reasoning": 0, "cache": {"read": 0, "write": 0}}
            found.update(modelID="claude-sonnet-4-5", providerID="anthropic")
            db.execute("update message set data = ? where id = ?", (json.dumps(found), row_id))
    db.commit()
    db.close()
    with open_session(name) as session:
        seen = observe(session, now, STUCK_AFTER, 900.0, cannot_tell)
    assert (seen.context_tokens, seen.context_window) == (190_000, 200_000)
    assert "context" in alerts_of(seen, now)


def test_a_compaction_is_news_for_a_minute():
    path = SAMPLES / "claude" / "d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl"
    with open_session(path) as session:
        compacted = observe(session, time.time(), STUCK_AFTER, 900.0, None).compacted_at
        assert compacted is not None
        at = observe(session, compacted + 10, STUCK_AFTER, 900.0, None)
        later = observe(session, compacted + 120, STUCK_AFTER, 900.0, None)
    assert "compaction" in alerts_of(at, compacted + 10) and "compaction" not in alerts_of(later, compacted + 120)


def test_chat_without_times_is_live_only_once_seen_growing(tmp_path, now):
    w = Writer(tmp_path / "s.jsonl", "chat", now).prompt("Run").calls_made("run_command")
    with open_session(w.path) as session:
        assert observe(session, time.time(), STUCK_AFTER).state is AgentState.STUCK  # a fresh copy: no time to trust
        w.result(0)
        session.refresh()
        assert observe(session, time.time(), STUCK_AFTER).state is AgentState.WORKING


def test_a_sub_agent_transcript_is_nested_under_its_session(tmp_path):
    from session_tui.model.fleet.fleet import Fleet

    source = SAMPLES / "claude" / "5b0c7e21-9d3a-4f6e-8a2b-3c4d5e6f7a80"
    shutil.copytree(source, tmp_path / source.name)
    shutil.copy(source.with_suffix(".jsonl"), tmp_path)
    fleet = Fleet([str(tmp_path)], window=1e10, process_check=None)
    fleet.scan()
    rows = [(depth, a.path.split("/")[-1]) for depth, a in fleet.rows()]
    assert rows[0] == (0, "5b0c7e21-9d3a-4f6e-8a2b-3c4d5e6f7a80.jsonl") and rows[1][0] == 1
    assert rows[1][1].startswith("agent-")


def test_notices_are_at_most_one_per_session_per_minute_and_only_of_new_alerts():
    from session_tui.model.fleet.alerts import NoticeGate

    gate = NoticeGate()
    assert gate.due("a", ["stuck"], 1000.0) == ["stuck"]
    assert gate.due("a", ["stuck"], 1001.0) == []  # nothing new
    assert gate.due("a", ["stuck", "error"], 1030.0) == []  # new, but within the minute
    assert gate.due("b", ["crashed"], 1030.0) == ["crashed"]  # another session
    assert gate.due("a", [], 1100.0) == [] and gate.due("a", ["error"], 1101.0) == ["error"]


def test_a_fresh_copy_of_old_sessions_is_not_in_the_fleet(tmp_path):
    """A clone or a copy makes old files look new: their entries' times say
    they were written long ago, so they are out of the window (no old crash
    drawn as live)."""
    from session_tui.model.fleet.fleet import Fleet

    for sample in (
        "claude/e400ea4e-b13c-4400-a7d6-45a85f4a56c7.jsonl",
        "pi/2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl",
    ):
        shutil.copy(SAMPLES / sample, tmp_path)  # (its file time: now)
    Writer(tmp_path / "live.jsonl", "pi", time.time()).prompt("Run the tests")
    fleet = Fleet([str(tmp_path)], window=7200, process_check=None)
    fleet.scan()
    assert [a.path.rsplit("/", 1)[-1] for _, a in fleet.shown] == ["live.jsonl"]
