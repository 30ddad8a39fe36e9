"""The resume plan per client (model): where each client looks, when a
fork or a leaf move is needed, the refusals; the APIs' pairing rules."""

from __future__ import annotations

import shutil

import pytest

from session_tui.model.formats.claude.client import claude_project
from session_tui.model.resume.api_rules import anthropic_violations, responses_violations
from session_tui.model.resume.plan import FORK, SET_LEAF, ResumeRefused, plan_resume
from session_tui.model.session.session import open_session
from tests.support import SAMPLES

CLAUDE = SAMPLES / "claude" / "d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl"  # two leaves
CODEX = SAMPLES / "codex" / "rollout-2026-03-14T10-30-12-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl"
PI = SAMPLES / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"  # two leaves
CLAUDE_CWD = "/home/dev/src/invoice-tools"


def other_leaf(session) -> int:
    return next(leaf for leaf in session.tree.leaf_list() if leaf != session.active_leaf())


def test_a_claude_file_in_its_project_folder_resumes_in_place_at_its_own_leaf(tmp_path):
    folder = tmp_path / ".claude" / "projects" / claude_project(CLAUDE_CWD)
    folder.mkdir(parents=True)
    path = shutil.copy(CLAUDE, folder)
    with open_session(path) as session:
        plan = plan_resume(session, None, {"HOME": str(tmp_path)})
        assert (plan.write, plan.session_id, plan.cwd, plan.reasons) == (None, CLAUDE.stem, CLAUDE_CWD, [])
        assert plan.client.argv(plan.session_id, path) == ["claude", "--resume", CLAUDE.stem]
        elsewhere = plan_resume(session, other_leaf(session), {"HOME": str(tmp_path)})
        assert elsewhere.write == FORK and elsewhere.folder == str(folder)
        assert "continues at its newest leaf" in elsewhere.reasons[0]


def test_a_copy_outside_the_clients_folder_is_forked_into_it(tmp_path):
    with open_session(CLAUDE) as session:
        plan = plan_resume(session, None, {"HOME": str(tmp_path)})
    assert plan.write == FORK and plan.folder == str(tmp_path / ".claude" / "projects" / claude_project(CLAUDE_CWD))
    assert "would not find this file by its id" in plan.reasons[0]
    with open_session(CODEX) as session:
        plan = plan_resume(session, None, {"HOME": str(tmp_path), "CODEX_HOME": str(tmp_path / "cx")})
    assert plan.write == FORK and plan.folder.startswith(str(tmp_path / "cx" / "sessions"))
    assert plan.session_id == "019cebe5-7fec-77d8-9548-5cabe223553b"


def test_codex_under_its_sessions_folder_and_pi_anywhere_resume_in_place(tmp_path):
    day = tmp_path / "cx" / "sessions" / "2026" / "03" / "14"
    day.mkdir(parents=True)
    path = shutil.copy(CODEX, day)
    with open_session(path) as session:
        assert plan_resume(session, None, {"CODEX_HOME": str(tmp_path / "cx")}).write is None
    with open_session(PI) as session:
        plan = plan_resume(session, None, {"HOME": str(tmp_path)})
        assert plan.write is None and plan.client.argv("x", str(PI)) == ["pi", "--session", str(PI)]
        moved = plan_resume(session, other_leaf(session), {"HOME": str(tmp_path)})
        assert moved.write == SET_LEAF and "its last entry or leaf pointer" in moved.reasons[0]


@pytest.mark.parametrize(
    "rel",
    [
        "tree/branched-summary.jsonl",
        "chat/session-fix-rounding.jsonl",
        "astorlm/3fc3f7d7-a9cc-4b2a-8f1b-80ee252c7110.jsonl",
    ],
)
def test_formats_without_a_client_are_refused_in_one_line(rel):
    with open_session(SAMPLES / rel) as session, pytest.raises(ResumeRefused) as refused:
        plan_resume(session, None, {})
    assert "sessions have no client that resumes them" in str(refused.value) and "\n" not in str(refused.value)


def test_a_sub_agent_transcript_is_refused():
    transcript = next((SAMPLES / "claude" / "5b0c7e21-9d3a-4f6e-8a2b-3c4d5e6f7a80").rglob("*.jsonl"))
    with open_session(transcript) as session, pytest.raises(ResumeRefused, match="sub-agent transcript"):
        plan_resume(session, None, {})


def test_the_anthropic_rules_reject_a_call_without_its_result_in_the_next_message():
    call = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}]}
    answer = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}
    assert anthropic_violations({"messages": [{"role": "user", "content": "hi"}, call, answer]}) == []
    found = anthropic_violations(
        {"messages": [{"role": "user", "content": "hi"}, call, {"role": "user", "content": "go"}]}
    )
    assert [v.kind for v in found] == ["tool_use_without_result"] and "`tool_use` ids were found" in found[0].message
    orphan = anthropic_violations({"messages": [{"role": "user", "content": "hi"}, answer]})
    assert [v.kind for v in orphan] == ["tool_result_without_use"]
    twice = anthropic_violations({"messages": [call, answer, call, answer]})
    assert [v.kind for v in twice] == ["duplicate_tool_use_id"]


def test_the_responses_rules_pair_calls_and_outputs_anywhere():
    call = {"type": "function_call", "call_id": "c1", "name": "x", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "ok"}
    assert responses_violations({"input": [call, {"type": "message", "role": "user", "content": "x"}, output]}) == []
    assert [v.message for v in responses_violations({"input": [call]})] == [
        "No tool output found for function call c1."
    ]
    assert [v.kind for v in responses_violations({"input": [output]})] == ["output_without_call"]
