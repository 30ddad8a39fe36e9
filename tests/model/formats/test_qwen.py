"""Qwen Code 0.24.4 files (tests/data/live-2026-12-03/qwen, recorded with the
real client): read as Qwen's, not Claude Code's, and Claude Code's still as
Claude's; crashes found where the file shows them; tokens; the repair in the
form Qwen Code accepted on resume (tests/golden); hostile ids refused. The
goldens themselves are checked in test_client_goldens and
test_dry_run_goldens."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from session_tui.model.formats import FORMATS, sniff
from session_tui.model.formats.qwen.client import CLIENT, qwen_project
from session_tui.model.formats.qwen.reader import NOT_RECORDED
from session_tui.model.resume.steps import digest
from session_tui.model.session.context import resume_items
from session_tui.model.session.session import open_session
from session_tui.store.forms.base import SYNTHETIC_RESULT
from tests.support import REPO, SAMPLES, check_json, run_cli

LIVE = REPO / "tests" / "data" / "live-2026-12-03" / "qwen"
WORK = LIVE / "f238aa5c-6258-4c19-aac0-37a76ae839f1.jsonl"
PARALLEL = LIVE / "81b0ca43-4a1a-42e7-89f7-29fc84fa2c9a.jsonl"  # killed with two parallel calls running
SLEEP = LIVE / "6f5a276f-b469-469c-a47e-87712be75179.jsonl"  # killed during `sleep 60`
STREAM = LIVE / "d0622b15-5fcb-4805-9488-76ae13feb87b.jsonl"  # killed mid-stream
RESUMED = LIVE / "resumed-81b0ca43-4a1a-42e7-89f7-29fc84fa2c9a.jsonl"
FORKED = LIVE / "0d111b19-c4c6-4d1e-862f-724bb8daa960.jsonl"  # SLEEP forked by Qwen Code (--fork-session)
QWEN_FILES = sorted(LIVE.glob("*.jsonl")) + sorted((SAMPLES / "qwen").glob("*.jsonl"))
CLAUDE_FILES = sorted(p for p in (REPO / "tests" / "data").rglob("*.jsonl") if p.parent.name == "claude") + sorted(
    (SAMPLES / "claude").glob("*.jsonl")
)


def first_records(path: Path, n: int = 20) -> list[dict]:
    out = []
    for line in path.read_bytes().splitlines()[:n]:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append(record)
    return out


def test_qwen_files_sniff_as_qwen_and_claude_files_as_claude():
    assert len(QWEN_FILES) >= 6 and len(CLAUDE_FILES) >= 10
    assert {sniff(first_records(p), str(p)).name for p in QWEN_FILES} == {"qwen"}
    assert {p.name: sniff(first_records(p), str(p)).name for p in CLAUDE_FILES} == {
        p.name: "claude" for p in CLAUDE_FILES
    }
    # the registry tries qwen first: Claude Code's sniff alone would take Qwen's records too
    names = list(FORMATS)
    assert names.index("qwen") < names.index("claude")
    assert FORMATS["claude"].sniff(first_records(WORK)) and not FORMATS["qwen"].sniff(first_records(CLAUDE_FILES[0]))


def test_check_reads_them_as_qwen_with_the_crashes_where_the_file_shows_them():
    work, parallel, sleep, stream, resumed = check_json(WORK, PARALLEL, SLEEP, STREAM, RESUMED)
    assert {r["format"] for r in (work, parallel, sleep, stream, resumed)} == {"qwen"}
    assert work["problems"] == [] and work["tool_errors"] == 2 and work["leaves"] == 1
    assert [d["call_id"] for d in parallel["dangling_tool_calls"]] == [
        "call__T2S01a_ea59b9344a",
        "call__T2S01b_b455690c0d",
    ]
    assert [(p["kind"], p["line"]) for p in parallel["problems"]] == [("dangling_tool_call", 8)] * 2
    assert "Tool execution result was not recorded" in parallel["problems"][0]["message"]
    assert [d["call_id"] for d in sleep["dangling_tool_calls"]] == ["call__T1S02a_76b343b973"]
    assert stream["dangling_tool_calls"] == []  # a kill mid-stream leaves no trace of the response
    # the resume answered the calls only in its request: in the file they now dangle inside the branch
    assert len(resumed["dangling_tool_calls"]) == 2 and resumed["active_leaf_line"] == 17


def test_qwens_own_fork_keeps_the_uuids_under_its_new_session_id():
    source = [json.loads(line) for line in SLEEP.read_text().splitlines()]
    fork = [json.loads(line) for line in FORKED.read_text().splitlines()]
    assert [r["uuid"] for r in fork[: len(source)]] == [r["uuid"] for r in source]
    assert {r["sessionId"] for r in fork} == {FORKED.stem}
    (report,) = check_json(FORKED)
    assert report["format"] == "qwen" and report["leaves"] == 1 and report["active_leaf_line"] == len(fork)
    assert [d["call_id"] for d in report["dangling_tool_calls"]] == ["call__T1S02a_76b343b973"]
    with open_session(FORKED) as session:
        assert CLIENT.session_id_of(session) == FORKED.stem


def test_a_torn_last_line_is_found(tmp_path):
    data = SLEEP.read_bytes()
    torn = tmp_path / SLEEP.name
    torn.write_bytes(data[: data.rstrip(b"\n").rfind(b"\n") + 40])
    (report,) = check_json(torn)
    assert report["format"] == "qwen"
    assert ("torn_tail", len(data.rstrip(b"\n").splitlines())) in [(p["kind"], p["line"]) for p in report["problems"]]


def test_tokens_are_the_usage_of_every_response():
    prompt = output = responses = 0
    for line in WORK.read_text().splitlines():
        record = json.loads(line)
        if record["type"] == "assistant":
            responses += 1
            prompt += record["usageMetadata"]["promptTokenCount"]
            output += record["usageMetadata"]["candidatesTokenCount"] + record["usageMetadata"]["thoughtsTokenCount"]
    (report,) = check_json(WORK, usage=True)
    assert responses == 28 and prompt > 300_000
    assert (report["usage"]["input"], report["usage"]["output"]) == (prompt, output)
    assert report["usage"]["unpriced_models"] == ["qwen3-coder-plus"]  # the price table has no Alibaba provider
    with open_session(WORK) as session:
        found = session.format.responses(session)
        assert len(found) == 28 and {r.model for r in found} == {"qwen3-coder-plus"}


def test_the_context_is_chat_completions_with_qwens_fill_for_a_dangling_call():
    with open_session(PARALLEL) as session:
        sent = resume_items(session, session.active_leaf())
    tools = [(s.message["tool_call_id"], s.message["content"][0]["text"], s.added_by) for s in sent[-2:]]
    assert tools == [
        ("call__T2S01a_ea59b9344a", NOT_RECORDED, "Qwen Code"),
        ("call__T2S01b_b455690c0d", NOT_RECORDED, "Qwen Code"),
    ]
    assert sent[-3].message["role"] == "assistant" and len(sent[-3].message["tool_calls"]) == 2


def test_fix_close_appends_results_qwen_sent_instead_of_its_own_fill(tmp_path):
    copy = tmp_path / PARALLEL.name
    shutil.copyfile(PARALLEL, copy)
    done = run_cli("fix", str(copy), "--close", "--force")
    assert done.returncode == 0, done.stdout + done.stderr
    added = [json.loads(line) for line in copy.read_text().splitlines()[9:]]
    assert [r["type"] for r in added] == ["tool_result", "tool_result"]
    assert added[0]["parentUuid"] == json.loads(PARALLEL.read_text().splitlines()[-1])["uuid"]
    assert added[1]["parentUuid"] == added[0]["uuid"]
    (report,) = check_json(copy)
    assert report["dangling_tool_calls"] == [] and report["problems"] == []
    # what the real client sent on resume of the repaired file: our results, not its fill, and it was accepted
    golden = json.loads((REPO / "tests" / "golden" / f"qwen-{PARALLEL.stem}-fixed.json").read_text())
    dry = json.loads((REPO / "tests" / "golden" / "dry-run" / f"qwen-fixed-{PARALLEL.stem}.json").read_text())
    assert golden["accepted"] and dry["accepted"] and dry["agrees"]
    assert [s[1] for s in golden["steps"][-2:]] == [digest(SYNTHETIC_RESULT)] * 2
    original = json.loads((REPO / "tests" / "golden" / f"qwen-{PARALLEL.stem}-orig.json").read_text())
    assert [s[1] for s in original["steps"][-2:]] == [digest(NOT_RECORDED)] * 2


def test_a_call_dangling_inside_the_branch_is_closed_in_a_fork(tmp_path):
    copy = tmp_path / RESUMED.name
    shutil.copyfile(RESUMED, copy)
    done = run_cli("fix", str(copy), "--close", "--force")
    assert done.returncode == 0 and "this file is not changed" in done.stdout, done.stdout + done.stderr
    assert copy.read_bytes() == RESUMED.read_bytes()
    (fork,) = [p for p in tmp_path.glob("*.jsonl") if p != copy]
    records = [json.loads(line) for line in fork.read_text().splitlines()]
    assert (
        {r["sessionId"] for r in records}
        == {fork.stem}
        != {json.loads(RESUMED.read_text().splitlines()[0])["sessionId"]}
    )
    (report,) = check_json(fork)
    assert report["dangling_tool_calls"] == [] and report["format"] == "qwen"


def test_the_client_resumes_by_session_id_in_its_project_folder(tmp_path):
    with open_session(PARALLEL) as session:
        sid = CLIENT.session_id_of(session)
        assert sid == PARALLEL.stem
        assert CLIENT.argv(sid, str(PARALLEL)) == ["qwen", "--resume", sid]
        assert CLIENT.recorded_cwd(session, session.active_leaf()) == "/tmp/qrec/crash-parallel/home/work"
    env = {"HOME": str(tmp_path)}
    folder = CLIENT.sessions_folder("/work/my proj", env)
    assert folder == str(tmp_path / ".qwen" / "projects" / "-work-my-proj" / "chats") and qwen_project("/a.b") == "-a-b"
    assert CLIENT.found_in_place(os.path.join(folder, f"{sid}.jsonl"), sid, "/work/my proj", env)
    assert not CLIENT.found_in_place(str(PARALLEL), sid, "/work/my proj", env)


BAD_IDS = ["../../../.qwen/projects/x/81b0ca43-4a1a-42e7-89f7-29fc84fa2c9a", "--yolo", "81b0ca43\nrm -rf ~", "a\x00b"]


@pytest.mark.parametrize("bad", BAD_IDS, ids=["traversal", "flag", "newline", "nul"])
def test_a_session_id_that_is_no_uuid_is_refused_in_one_line(tmp_path, bad):
    lines = []
    for line in PARALLEL.read_text().splitlines():
        record = json.loads(line)
        record["sessionId"] = bad
        lines.append(json.dumps(record))
    hostile = tmp_path / "copy.jsonl"
    hostile.write_text("\n".join(lines) + "\n")
    env = {k: v for k, v in os.environ.items() if k != "SESSION_TUI_DEBUG"}
    env["HOME"] = str(tmp_path)
    for extra in ([], ["--dry-run"]):
        done = subprocess.run(
            [sys.executable, "-m", "session_tui", "resume", str(hostile), *extra],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        )
        assert done.returncode == 2, done.stdout + done.stderr
        assert len(done.stderr.splitlines()) == 1 and "refused" in done.stderr and "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.jsonl"]  # nothing written
