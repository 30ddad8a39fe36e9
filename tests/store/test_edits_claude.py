"""claude edits: error ``tool_result`` records with the calling record's
envelope, forks with ``forkedFrom``, refusals for leaf moves and cuts. Real
copies of the samples, the CLI as a subprocess."""

from __future__ import annotations

import json
import shutil

import orjson
import pytest

from session_tui.model.session.context import context_items, tool_issues
from session_tui.model.session.problems import find_problems
from session_tui.model.session.session import open_session
from session_tui.store import Refused, edits
from session_tui.store.forms.base import SYNTHETIC_RESULT
from session_tui.store.forms.claude import TOOL_USE_RESULT
from tests.support import REPO, SAMPLES, check_json, run_cli

from .test_edits import sample
from .test_store import old

DANGLING = "claude/e400ea4e-b13c-4400-a7d6-45a85f4a56c7.jsonl"
TORN = "claude/3a2dec82-3264-4fa4-bb60-d92b18d2e064.jsonl"
BRANCHED = "claude/d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl"
ENVELOPE = ("sessionId", "cwd", "version", "gitBranch", "userType", "isSidechain")


def appended(path, before: bytes) -> list[dict]:
    data = path.read_bytes()
    assert data.startswith(before)
    return [json.loads(line) for line in data[len(before) :].splitlines()]


@pytest.mark.parametrize(
    "rel, call_id", [(DANGLING, "toolu_01WbA4dK2qJre7Fb1Lk8Ye6P"), (TORN, "toolu_01YdC7fM5sKtg1Hd4Nm2Af9R")]
)
def test_fix_close_writes_what_claude_code_expects(tmp_path, rel, call_id):
    path = sample(tmp_path, rel)
    with open_session(path) as s:
        caller = s.record(s.active_leaf())
    result = run_cli("fix", "--close", "--drop-torn", str(path))
    assert result.returncode == 0, result.stderr
    (rep,) = check_json(path)
    assert rep["dangling_tool_calls"] == [] and rep["problems"] == []
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    (record,) = [r for r in lines if r.get("toolUseResult") == TOOL_USE_RESULT]
    assert record["type"] == "user" and record["parentUuid"] == caller["uuid"]
    assert record["sourceToolAssistantUUID"] == caller["uuid"]
    assert record["message"] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": call_id, "content": SYNTHETIC_RESULT, "is_error": True}],
    }
    assert {k: record[k] for k in ENVELOPE} == {k: caller[k] for k in ENVELOPE}
    assert "requestId" not in record and record["uuid"] != caller["uuid"]
    assert rep["active_leaf"] == record["uuid"]  # the newest leaf: where Claude Code resumes


def test_close_two_calls_of_one_response_over_two_lines(tmp_path):
    env = {"sessionId": "s", "cwd": "/w", "version": "2.1.30", "isSidechain": False, "userType": "external"}
    records = [
        {
            **env,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "go"},
        },
        {
            **env,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": "2026-01-01T00:00:01Z",
            "requestId": "r",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "A", "name": "R", "input": {}}],
            },
        },
        {
            **env,
            "type": "assistant",
            "uuid": "a2",
            "parentUuid": "a1",
            "timestamp": "2026-01-01T00:00:02Z",
            "requestId": "r",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "B", "name": "R", "input": {}}],
            },
        },
    ]
    path = tmp_path / "two.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    old(path)
    before = path.read_bytes()
    with open_session(path) as s:
        edits.apply(edits.plan_close(s))
    first, second = appended(path, before)
    assert [first["parentUuid"], second["parentUuid"]] == ["a2", first["uuid"]]  # results chain after the response
    assert [first["sourceToolAssistantUUID"], second["sourceToolAssistantUUID"]] == ["a1", "a2"]
    with open_session(path) as s:
        assert tool_issues(s) == ([], [])


def test_fork_reopens_with_the_same_active_path(tmp_path):
    path = sample(tmp_path, BRANCHED)
    with open_session(path) as s:
        leaf = s.active_leaf()
        source_path = [s.record(e) for e in s.active_path()]
        plan = edits.plan_fork(s, leaf)
    done = edits.apply(plan)
    (fork,) = done.created
    assert fork.endswith(".jsonl") and fork != str(path)
    with open_session(fork) as f:
        assert f.format.name == "claude" and find_problems(f) == []
        forked = [f.record(e) for e in f.active_path()]
        new_id = forked[0]["sessionId"]
        assert fork.endswith(f"/{new_id}.jsonl")
        for a, b in zip(source_path, forked, strict=True):
            assert b["forkedFrom"] == {"sessionId": a["sessionId"], "messageUuid": a["uuid"]}
            assert {k: v for k, v in b.items() if k not in ("forkedFrom", "sessionId")} == {
                k: v for k, v in a.items() if k != "sessionId"
            }
        assert f.origin() == f"session {source_path[0]['sessionId']} at {source_path[-1]['uuid']}"
        assert [m for _, m in context_items(f)] == [m for _, m in s_context(path)]


def s_context(path):
    with open_session(path) as s:
        return context_items(s)


def test_leaf_move_and_cut_are_refused_with_the_reason(tmp_path):
    path = sample(tmp_path, DANGLING)
    with open_session(path) as s:
        with pytest.raises(Refused, match="no leaf.*fork"):
            edits.plan_set_leaf(s, 2)
        with pytest.raises(Refused, match="fork"):
            edits.plan_cut(s)
    result = run_cli("set-leaf", str(path), "b87cec1f-5341-4262-8830-dc2aaf84d6e6")
    assert result.returncode == 1 and "fork" in result.stderr and "Traceback" not in result.stderr


def test_undo_of_close_restores_the_bytes(tmp_path):
    path = sample(tmp_path, DANGLING)
    before = path.read_bytes()
    with open_session(path) as s:
        done = edits.apply(edits.plan_close(s))
    assert path.read_bytes() != before
    edits.apply(edits.plan_undo(done), force=True)
    assert path.read_bytes() == before


def test_cli_fork_of_a_claude_file(tmp_path):
    path = sample(tmp_path, BRANCHED)
    shutil.copy(path, tmp_path / "copy.jsonl")
    result = run_cli("fork", str(path), "8b66bd06-4f12-479c-9856-f4f4e5f2bc6c")
    assert result.returncode == 0, result.stderr
    forks = [p for p in tmp_path.glob("*.jsonl") if p.name not in (path.name, "copy.jsonl")]
    (fork,) = forks
    (rep,) = check_json(fork)
    assert rep["active_leaf"] == "8b66bd06-4f12-479c-9856-f4f4e5f2bc6c" and rep["problems"] == []


def test_fork_of_a_subagent_transcript_is_refused(tmp_path):
    shutil.copytree(SAMPLES / "claude", tmp_path / "c")
    sub = next((tmp_path / "c").glob("*/subagents/agent-*.jsonl"))
    with open_session(sub) as s:
        with pytest.raises(Refused, match="sub-agent"):
            edits.plan_fork(s, s.active_leaf())


def test_origin_names_the_record_forked_at(tmp_path):
    path = sample(tmp_path, BRANCHED)
    with open_session(path) as s:
        plan = edits.plan_fork(
            s,
            s.find(
                "55de26f4-"
                + next(
                    s.record(e)["uuid"][9:] for e in s.tree.leaf_list() if s.record(e)["uuid"].startswith("55de26f4")
                )
            ),
        )
    (fork,) = edits.apply(plan).created
    with open_session(fork) as f:
        assert f.origin().endswith(" at " + f.record(f.tree.count - 1)["uuid"])
        assert f.record(f.tree.count - 1)["uuid"].startswith("55de26f4")


def test_a_closing_result_is_what_claude_code_writes_for_one_dated_at_its_call(tmp_path):
    from session_tui.model.session.usage import step_seconds
    from session_tui.model.usage.totals import session_usage
    from session_tui.store.forms.claude import ENVELOPE

    live = REPO / "tests" / "data" / "live-runs" / "claude"
    source = live / "f754b62a-7bdd-4e42-bceb-db6fb1e1377f.jsonl"  # the one-prompt run
    lines = source.read_bytes().splitlines(keepends=True)
    calls = [n for n, raw in enumerate(lines) if b'"type":"tool_use"' in raw and b'"type":"assistant"' in raw]
    cut = calls[len(calls) // 2]  # killed mid-tool: the call written, its result never
    path = tmp_path / source.name
    path.write_bytes(b"".join(lines[: cut + 1]))
    caller = json.loads(lines[cut])
    with open_session(path) as session:
        span = session_usage(session).seconds
    done = run_cli("fix", str(path), "--close", "--force")
    assert done.returncode == 0, done.stderr
    added = json.loads(path.read_bytes().splitlines()[-1])
    assert added["timestamp"] == caller["timestamp"] and added["addedBy"] == "session-tui"
    assert isinstance(added.get("promptId"), str)
    assert not {"madeBy", "requestId", "requestRef", "apiBlockIndex", "requestedModel"} & set(added)
    assert {key for key in ENVELOPE if key in caller} <= set(added)
    with open_session(path) as session:
        assert find_problems(session) == []
        assert session_usage(session).seconds == span  # the session did not grow longer
        assert step_seconds(session, session.active_leaf()) == ("tool", 0.0)
