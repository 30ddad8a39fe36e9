"""Edits end to end: plans on the samples, the CLI, refusals, crash safety."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time

import pytest

from session_tui.model.session.context import context_at
from session_tui.model.session.session import open_session
from session_tui.store import edits
from tests.support import SAMPLES, KillPace, check_json, run_cli, run_killed

from .test_store import HOLD_LOCK, old


def sample(tmp_path, rel: str):
    dest = tmp_path / os.path.basename(rel)
    shutil.copy(SAMPLES / rel, dest)
    os.chmod(dest, 0o644)
    old(dest)
    return dest


def test_fix_close_with_drop_torn_on_the_torn_tree_sample(tmp_path):
    path = sample(tmp_path, "tree/crash-torn.jsonl")
    original = path.read_bytes()
    fragment = original[original.rfind(b"\n") + 1 :]
    r = run_cli("fix", str(path), "--close", "--drop-torn")
    assert r.returncode == 0, r.stderr
    data = path.read_bytes()
    assert data.startswith(original[: -len(fragment)])
    added = data[len(original) - len(fragment) :]
    assert added.count(b"\n") == 1
    record = json.loads(added)
    assert record["parentId"] == "2b719790-4b57-4bb9-866b-2de67a574189"
    assert record["message"] == {"role": "tool", "tool_call_id": "call_j9Y1rP3nO8", "content": edits.SYNTHETIC_RESULT}
    (saved,) = [p for p in tmp_path.iterdir() if ".torn-" in p.name]
    assert saved.read_bytes() == fragment
    (rep,) = check_json(path)
    assert rep["problems"] == [] and rep["dangling_tool_calls"] == []


def test_fix_refuses_a_torn_file_without_drop_torn(tmp_path):
    path = sample(tmp_path, "tree/crash-torn.jsonl")
    before = path.read_bytes()
    r = run_cli("fix", str(path))
    assert r.returncode == 1 and "--drop-torn" in r.stderr and path.read_bytes() == before


def test_drop_torn_alone(tmp_path):
    path = sample(tmp_path, "chat/session-crash-torn-tail.jsonl")
    original = path.read_bytes()
    assert run_cli("fix", str(path), "--drop-torn").returncode in (0,)
    assert path.read_bytes() == original[: original.rfind(b"\n") + 1] or "tool" in path.read_text()
    (rep,) = check_json(path)
    assert not [p for p in rep["problems"] if p["kind"] == "torn_tail"]


def test_fix_cut_tree_moves_the_leaf_back(tmp_path):
    path = sample(tmp_path, "tree/crash-dangling.jsonl")
    original = path.read_bytes()
    assert run_cli("fix", str(path), "--cut").returncode == 0
    data = path.read_bytes()
    assert data.startswith(original)
    pointer = json.loads(data[len(original) :])
    assert pointer["type"] == "active_leaf" and pointer["activeLeafId"] == "d3000000-0000-4000-8000-000000000002"
    (rep,) = check_json(path)
    assert rep["problems"] == [] and rep["active_leaf_line"] == 3


def test_fix_cut_chat_rewrites_with_a_backup(tmp_path):
    path = sample(tmp_path, "chat/session-crash-dangling.jsonl")
    original = path.read_bytes()
    assert run_cli("fix", str(path), "--cut").returncode == 0
    lines = original.split(b"\n")
    assert path.read_bytes() == b"\n".join(lines[:4]) + b"\n"
    (backup,) = [p for p in tmp_path.iterdir() if ".bak-" in p.name]
    assert backup.read_bytes() == original
    (rep,) = check_json(path)
    assert rep["problems"] == []


def test_fix_close_chat_appends_tool_results(tmp_path):
    path = sample(tmp_path, "chat/session-crash-dangling.jsonl")
    original = path.read_bytes()
    assert run_cli("fix", str(path)).returncode == 0
    added = path.read_bytes()[len(original) :]
    assert json.loads(added) == {
        "role": "tool",
        "tool_call_id": "call_V1kZ7bF5hC9xY3qP6tN2dM8w",
        "content": edits.SYNTHETIC_RESULT,
    }
    (rep,) = check_json(path)
    assert rep["problems"] == []
    again = run_cli("fix", str(path))  # nothing left to do: said, and no error
    assert again.returncode == 0 and "nothing to do" in again.stdout and path.read_bytes() == original + added


def test_set_leaf_tree_and_chat(tmp_path):
    path = sample(tmp_path, "tree/branched-summary.jsonl")
    target = "9df23958-e553-464f-b762-0b083037af6e"
    r = run_cli("set-leaf", str(path), target, "--dry-run")
    assert r.returncode == 0 and "active_leaf" in r.stdout and target not in path.read_text().split("\n")[-2]
    assert run_cli("set-leaf", str(path), target).returncode == 0
    (rep,) = check_json(path)
    assert rep["active_leaf"] == target
    chat = sample(tmp_path, "chat/session-fix-rounding.jsonl")
    r = run_cli("set-leaf", str(chat), "3")
    assert r.returncode == 1 and "fork" in r.stderr


def test_fork_at_the_active_leaf_equals_the_source(tmp_path):
    path = sample(tmp_path, "tree/branched-summary.jsonl")
    assert run_cli("fork", str(path), "0fe3c303-096b-49f1-837b-e65ac554698a").returncode == 0
    fork = tmp_path / "branched-summary.fork-1.jsonl"
    with open_session(path) as a, open_session(fork) as b:
        assert a.record(a.active_leaf()) == b.record(b.active_leaf())
        assert context_at(a) == context_at(b)
        assert b.header["parentSession"]["entryId"] == "0fe3c303-096b-49f1-837b-e65ac554698a"
    assert run_cli("fork", str(path), "72e56246-ca7d-4f8d-9c5e-a5363f156a81").returncode == 0
    assert (tmp_path / "branched-summary.fork-2.jsonl").exists()
    r = run_cli("fork", str(path), "72e56246-ca7d-4f8d-9c5e-a5363f156a81", "-o", str(fork))
    assert r.returncode == 1 and "already exists" in r.stderr
    chat = sample(tmp_path, "chat/session-fix-rounding.jsonl")
    assert run_cli("fork", str(chat), "5").returncode == 0
    meta = json.loads((tmp_path / "session-fix-rounding.fork-1.meta.json").read_text())
    assert meta["parentId"] == "session-fix-rounding"
    assert (tmp_path / "session-fix-rounding.fork-1.jsonl").read_bytes().count(b"\n") == 5


def test_edits_refused_while_a_writer_is_live_or_holds_the_lock(tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")  # (the CLI run below inherits it)
    path = sample(tmp_path, "tree/crash-dangling.jsonl")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(path), "10"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        r = run_cli("fix", str(path), "--force")
        assert r.returncode == 1 and "lock held" in r.stderr
    finally:
        holder.kill()
        holder.wait()
    appender = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import sys, time\n"
                "f = open(sys.argv[1], 'a')\n"  # (held open while it writes, as Codex does: its writer lives)
                "for i in range(100):\n"
                '    f.write(\'{"type":"active_leaf","activeLeafId":"x","createdAt":"t"}\\n\')\n'
                "    f.flush()\n"
                "    time.sleep(0.05)\n"
            ),
            str(path),
        ]
    )
    try:
        size = path.stat().st_size
        deadline = time.monotonic() + 10
        while path.stat().st_size < size + 2 * 60 and time.monotonic() < deadline:  # two appends made: it writes
            time.sleep(0.01)
        r = run_cli("fix", str(path))
        assert r.returncode == 1 and "live agent" in r.stderr
    finally:
        appender.kill()
        appender.wait()


@pytest.mark.parametrize(
    "rel, args, trials",
    [
        ("chat/session-crash-dangling.jsonl", ["--cut"], 25),
        ("chat/session-crash-torn-tail.jsonl", ["--drop-torn"], 25),
    ],
)
def test_killed_rewrites_leave_the_old_or_the_new_file(tmp_path, rel, args, trials):
    rng = random.Random(7)
    base = sample(tmp_path, rel)
    original = base.read_bytes()
    work = tmp_path / "work"
    work.mkdir()
    done = work / "done.jsonl"  # the result of an uninterrupted run
    shutil.copy(base, done)
    old(done)
    assert run_cli("fix", str(done), *args).returncode == 0
    expected_new = done.read_bytes()
    timing = work / "timing.jsonl"  # how long a whole run takes here and now: the kills land around its end
    timing.write_bytes(original)
    old(timing)
    started = time.monotonic()
    assert run_cli("fix", str(timing), *args).returncode == 0
    whole = time.monotonic() - started
    outcomes: set[bool] = set()
    pace = KillPace(whole, rng, low=0.1)  # (a time relative to the run's own: under load too)
    while pace.more(False in outcomes, True in outcomes, trials, 3 * trials):
        trial = pace.trials
        path = work / f"t{trial}.jsonl"
        path.write_bytes(original)
        old(path)
        run_killed("fix", str(path), *args, after=pace.delay())
        data = path.read_bytes()
        assert data in (original, expected_new), f"trial {trial}: a torn or mixed file"
        outcomes.add(data == expected_new)
        if data == expected_new:
            saved = [
                p
                for p in work.iterdir()
                if p.name.startswith(path.name + ".") and (".bak-" in p.name or ".torn-" in p.name)
            ]
            assert saved, f"trial {trial}: changed but nothing saved aside"
        pace.saw(False in outcomes, True in outcomes)
    assert outcomes == {True, False}, "the kills should land both before and after the edit"


PI = "pi/2026-03-15T16-40-11-052Z_876adc47-614e-495d-ac53-be28b587216d.jsonl"
PI_BRANCHED = "pi/2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"


def test_pi_close_appends_an_error_tool_result(tmp_path):
    path = sample(tmp_path, PI)
    original = path.read_bytes()
    assert run_cli("fix", str(path)).returncode == 0
    record = json.loads(path.read_bytes()[len(original) :])
    assert record["type"] == "message" and record["parentId"] == "b5e784e5" and len(record["id"]) == 8
    message = record["message"]
    assert message["role"] == "toolResult" and message["toolCallId"] == "toolu_01Pr2Jx7Lc4Gw9Hm6Ts3Kd8N"
    assert message["isError"] is True and message["toolName"]
    (rep,) = check_json(path)
    assert rep["problems"] == [] and rep["active_leaf"] == record["id"]


def test_pi_leaf_moves_by_a_custom_entry_and_forks_name_their_source(tmp_path):
    path = sample(tmp_path, PI_BRANCHED)
    assert run_cli("set-leaf", str(path), "388b8151").returncode == 0
    record = json.loads(path.read_bytes().splitlines()[-1])
    assert record["type"] == "custom" and record["customType"] == "session-tui/leaf"
    assert record["parentId"] == "388b8151"
    with open_session(path) as s:
        assert s.record(s.tree.parent[s.active_leaf()])["id"] == "388b8151"
        assert all(m.get("customType") != "session-tui/leaf" for m in context_at(s))
    assert run_cli("fork", str(path), "21151c1c").returncode == 0
    (fork,) = [p for p in tmp_path.iterdir() if ".fork-1." in p.name]
    with open_session(fork) as f:
        assert f.format.name == "pi" and f.header["parentSession"] == str(path)
        assert f.record(f.active_leaf())["id"] == "21151c1c"


@pytest.mark.parametrize(
    "rel, make",
    [
        ("tree/branched-summary.jsonl", lambda s: edits.plan_set_leaf(s, 1)),  # an append
        ("chat/session-crash-dangling.jsonl", lambda s: edits.plan_cut(s)),  # a backed-up rewrite
        ("tree/crash-torn.jsonl", lambda s: edits.plan_close(s, drop_torn=True)),  # a cut fragment + an append
    ],
)
def test_undo_restores_the_exact_bytes(tmp_path, rel, make):
    path = sample(tmp_path, rel)
    original = path.read_bytes()
    with open_session(path) as s:
        done = edits.apply(make(s))
    assert path.read_bytes() != original
    edits.apply(edits.plan_undo(done), force=True)
    assert path.read_bytes() == original
