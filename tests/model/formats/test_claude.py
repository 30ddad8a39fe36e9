"""The Claude Code adapter (docs/formats.md#claude; values from the samples' README)."""

from __future__ import annotations

import shutil

import orjson
import pytest

from session_tui.model.session.context import context_at, context_items, resume_items, tool_issues
from session_tui.model.session.other_records import other_records
from session_tui.model.session.problems import find_notes, find_problems
from session_tui.model.session.session import Session, open_session
from session_tui.model.usage.totals import session_usage
from tests.support import SAMPLES, check_json, run_cli

CLAUDE = SAMPLES / "claude"
BRANCHED = CLAUDE / "d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl"
DANGLING = CLAUDE / "e400ea4e-b13c-4400-a7d6-45a85f4a56c7.jsonl"
TORN = CLAUDE / "3a2dec82-3264-4fa4-bb60-d92b18d2e064.jsonl"
SUBAGENT = CLAUDE / "5b0c7e21-9d3a-4f6e-8a2b-3c4d5e6f7a80.jsonl"


def test_branched_compacted_session():
    (rep,) = check_json(BRANCHED)
    assert rep["format"] == "claude" and rep["problems"] == [] and rep["dangling_tool_calls"] == []
    assert rep["active_leaf"] == "014c2f60-60fb-4c78-a24d-89ad3e889cbb"
    assert rep["branch_points"] == 1 and rep["summaries"] == 1
    with open_session(BRANCHED) as s:
        fork = s.find("35a47c5e-e860-4640-99ae-912a78536e74")
        kids = [s.record(c)["uuid"][:8] for c in s.tree.children(fork)]
        assert kids == ["8b66bd06", "5c5590f9"]  # rewind: the abandoned prompt first, the active one later
        leaves = {s.record(e)["uuid"][:8] for e in s.tree.leaf_list()}
        # 6a69c507 is a leaf on disk; here the compaction hangs under it (logicalParentUuid)
        assert leaves == {"55de26f4", "014c2f60"}
        boundary = s.find("cd3462a8-a512-4c7a-bde7-ed8a3c71fc4f")
        assert s.record(s.tree.parent[boundary])["uuid"].startswith("6a69c507")
        view = s.format.view(s.record(boundary))
        assert view.kind == "summary" and view.tokens_before is not None
        # the model's context starts after the boundary, with the compact summary
        context = context_items(s)
        assert s.record(context[0][0]).get("isCompactSummary") is True
        assert all(e > boundary for e, _ in context)
        assert len(s.active_path()) > len(context)
        assert s.title() == "Fix invoice rounding test failures"


def test_one_response_over_several_lines_is_one_step():
    with open_session(BRANCHED) as s:
        steps = [s.format.view(s.record(e)).step for e in range(s.entries)]
        first = steps.index("msg_010e4fb45b98c15a79b05e81")
        assert steps[first : first + 3] == ["msg_010e4fb45b98c15a79b05e81"] * 3
        # each split line carries the response's usage: the session counts it once
        total = session_usage(s)
        naive = sum(
            s.format.view(s.record(e)).tokens.get("output_tokens", 0)
            for e in range(s.entries)
            if s.format.view(s.record(e)).tokens
        )
        assert 0 < total.output < naive


def test_parallel_calls_split_over_lines_are_paired(tmp_path):
    """tool_use A and tool_use B on two lines of one response, then both results: nothing dangles."""
    env = {"sessionId": "s", "isSidechain": False, "timestamp": "2026-01-01T00:00:00Z"}
    lines = [
        {**env, "type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "go"}},
        {
            **env,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
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
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "B", "name": "R", "input": {}}],
            },
        },
        {
            **env,
            "type": "user",
            "uuid": "r1",
            "parentUuid": "a2",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "A", "content": "a"}]},
        },
        {
            **env,
            "type": "user",
            "uuid": "r2",
            "parentUuid": "r1",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "B", "content": "b"}]},
        },
    ]
    path = tmp_path / "p.jsonl"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    with open_session(path) as s:
        assert s.format.name == "claude" and tool_issues(s) == ([], [])
    # a second response (new message.id) closes the first: its unanswered call dangles
    lines[2]["message"]["id"] = "m2"
    lines[4]["parentUuid"] = "a2"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines[:3]) + orjson.dumps(lines[4]) + b"\n")
    with open_session(path) as s:
        assert [d.call_id for d in tool_issues(s)[0]] == ["A"]


def test_crashed_sessions():
    (rep,) = check_json(DANGLING)
    assert rep["active_leaf"] == "1ae83c67-7a27-419e-b847-a2fc0e407c92"
    assert [d["call_id"] for d in rep["dangling_tool_calls"]] == ["toolu_01WbA4dK2qJre7Fb1Lk8Ye6P"]
    (rep,) = check_json(TORN)
    assert rep["active_leaf"] == "46b09d91-1572-465c-b92e-92f7743653cb"
    assert [d["call_id"] for d in rep["dangling_tool_calls"]] == ["toolu_01YdC7fM5sKtg1Hd4Nm2Af9R"]
    assert [p["line"] for p in rep["problems"] if p["kind"] == "torn_tail"] == [3]


def test_summary_for_another_file_is_a_note_not_the_title():
    with open_session(DANGLING) as s:
        assert s.title() is None
        assert any("014c2f60" in text and "not in this file" in text for _, text in find_notes(s))
        assert other_records(s, 10)[0][0] == 1  # the summary line is listed as a metadata record
    result = run_cli("check", str(DANGLING))
    assert "not in this file" in result.stdout


def test_active_leaf_is_newest_non_sidechain_leaf(tmp_path):
    def rec(uid, parent, ts, typ="user", **kw):
        return {
            "type": typ,
            "uuid": uid,
            "parentUuid": parent,
            "sessionId": "s",
            "timestamp": ts,
            "isSidechain": False,
            "message": {"role": typ, "content": uid},
            **kw,
        }

    lines = [
        rec("r", None, "2026-01-01T00:00:00Z"),
        rec("late", "r", "2026-01-01T00:05:00Z", "assistant"),
        rec("early", "r", "2026-01-01T00:01:00Z", "assistant"),  # last in the file, but older
        rec("side", "r", "2026-01-01T00:09:00Z", isSidechain=True),  # newer, but a sidechain
        {
            "type": "system",
            "uuid": "sys",
            "parentUuid": "r",
            "sessionId": "s",
            "timestamp": "2026-01-01T00:10:00Z",
            "subtype": "informational",
            "content": "x",
        },
    ]
    path = tmp_path / "l.jsonl"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    with Session(path) as s:
        s.refresh()
        assert s.record(s.active_leaf())["uuid"] == "late"
        # an append under "late" moves the leaf to it (the leaf cache follows the file)
        with open(path, "ab") as f:
            f.write(orjson.dumps(rec("next", "late", "2026-01-01T00:06:00Z")) + b"\n")
        s.refresh()
        assert s.record(s.active_leaf())["uuid"] == "next"


def test_copied_prefix_is_deduplicated_quietly():
    (rep,) = check_json(SUBAGENT)
    assert rep["problems"] == [] and rep["entries"] == 7
    with open_session(SUBAGENT) as s:
        assert any("copied prefix" in text for _, text in find_notes(s))
        assert s.title() == "Where is currency rounded?"  # custom-title


def test_subagent_attached_under_the_task_call(tmp_path):
    with open_session(SUBAGENT) as s:
        found = s.format.subagents(s)
        ((call, path),) = found.items()
        assert [c.name for c in s.format.view(s.record(call)).tool_calls] == ["Task"]
        assert path.endswith("subagents/agent-a1b2c3d4e5f6a7b8c.jsonl")
    with open_session(path) as sub:
        assert sub.format.name == "claude" and sub.entries == 4
    # without the folder beside it, nothing is attached
    alone = tmp_path / SUBAGENT.name
    shutil.copy(SUBAGENT, alone)
    with open_session(alone) as s:
        assert s.format.subagents(s) == {}


def test_metadata_records_are_kept_and_listed():
    with open_session(BRANCHED) as s:
        kinds = [text.split(":")[0] for _, text in other_records(s, 10)]
        assert kinds == ["file-history-snapshot", "ai-title"]
        meta_lines = {line for line, _ in other_records(s, 10)}
        assert not meta_lines & {s.line_of(e) for e in range(s.entries)}  # not entries of the tree


def test_compaction_whose_earlier_part_is_gone_is_not_a_problem(tmp_path):
    lines = [
        {
            "type": "system",
            "subtype": "compact_boundary",
            "uuid": "b",
            "parentUuid": None,
            "logicalParentUuid": "gone",
            "sessionId": "s",
            "timestamp": "2026-01-01T00:00:00Z",
            "content": "Conversation compacted",
            "compactMetadata": {"trigger": "auto", "preTokens": 150000},
        },
        {
            "type": "user",
            "uuid": "u",
            "parentUuid": "b",
            "sessionId": "s",
            "timestamp": "2026-01-01T00:00:01Z",
            "isCompactSummary": True,
            "message": {"role": "user", "content": "Summary: …"},
        },
    ]
    path = tmp_path / "c.jsonl"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    with open_session(path) as s:
        assert find_problems(s) == []
        assert any("gone" in text for _, text in find_notes(s))
        assert s.format.view(s.record(0)).tokens_before == 150000
        assert [m["content"] for m in context_at(s)] == ["Summary: …"]


def test_subagents_follow_appends_and_new_transcripts(tmp_path):
    shutil.copytree(CLAUDE, tmp_path / "p")
    path = tmp_path / "p" / SUBAGENT.name
    folder = tmp_path / "p" / SUBAGENT.stem / "subagents"
    with Session(path) as s:
        s.refresh()
        assert len(s.format.subagents(s)) == 1
        last = s.record(s.active_leaf())
        env = {k: last[k] for k in ("sessionId", "cwd", "version", "isSidechain", "userType")}
        call = {
            **env,
            "type": "assistant",
            "uuid": "c2",
            "parentUuid": last["uuid"],
            "timestamp": "2026-03-17T09:01:00Z",
            "message": {
                "id": "m9",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_2", "name": "Agent", "input": {"prompt": "again"}}],
            },
        }
        result = {
            **env,
            "type": "user",
            "uuid": "r2",
            "parentUuid": "c2",
            "timestamp": "2026-03-17T09:02:00Z",
            "toolUseResult": {"agentId": "b2"},
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "done"}],
            },
        }
        with open(path, "ab") as f:
            f.write(orjson.dumps(call) + b"\n" + orjson.dumps(result) + b"\n")
        s.refresh()
        assert len(s.format.subagents(s)) == 1  # no transcript for b2 yet
        (folder / "agent-b2.jsonl").write_bytes((folder / "agent-a1b2c3d4e5f6a7b8c.jsonl").read_bytes())
        found = s.format.subagents(s)
        assert found[s.find("c2")].endswith("agent-b2.jsonl") and len(found) == 2


def test_a_branch_ending_in_records_the_model_never_sees_still_resumes(tmp_path):
    """turn_duration after the last answer, progress after a killed call:
    the leaf is the last user/assistant record of that branch."""

    def rec(uid, parent, ts, typ="user", **kw):
        return {
            "type": typ,
            "uuid": uid,
            "parentUuid": parent,
            "sessionId": "s",
            "timestamp": ts,
            "isSidechain": False,
            **kw,
        }

    lines = [
        rec("r", None, "2026-01-01T10:00:00Z", message={"role": "user", "content": "go"}),
        rec("old", "r", "2026-01-01T10:01:00Z", "assistant", message={"role": "assistant", "content": "a"}),
        rec("new", "r", "2026-01-01T10:05:00Z", "user", message={"role": "user", "content": "again"}),
        rec(
            "call",
            "new",
            "2026-01-01T10:06:00Z",
            "assistant",
            message={
                "id": "m",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "T", "name": "Bash", "input": {}}],
            },
        ),
        rec("p1", "call", "2026-01-01T10:06:05Z", "progress", data={"type": "bash_progress"}),
        rec("p2", "p1", "2026-01-01T10:06:09Z", "progress", data={"type": "bash_progress"}),
    ]
    path = tmp_path / "killed.jsonl"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    with open_session(path) as s:
        assert s.record(s.active_leaf())["uuid"] == "call"
        assert [d.call_id for d in tool_issues(s)[0]] == ["T"]


def test_context_merges_the_lines_of_one_response():
    with open_session(BRANCHED) as s:
        leaf = s.find(
            "55de26f4-"
            + next(s.record(e)["uuid"][9:] for e in s.tree.leaf_list() if s.record(e)["uuid"].startswith("55de26f4"))
        )
        context = context_at(s, s.active_leaf())
        ids = [m.get("id") for m in context if m.get("role") == "assistant"]
        assert len(ids) == len(set(ids))  # one message per response
        sent = [item.message for item in resume_items(s, leaf)]
        merged = next(m for m in sent if m.get("id") == "msg_010e4fb45b98c15a79b05e81")
        # resumed with the session's own model, Claude Code 2.1.328 sends the thinking of its responses
        assert [b["type"] for b in merged["content"]] == ["thinking", "text", "tool_use"]
        s.resume_model = "claude-opus-4-6"  # another model: their thinking is left out (the oracle's finding)
        s.refresh()
        sent = [item.message for item in resume_items(s, leaf)]
        merged = next(m for m in sent if m.get("id") == "msg_010e4fb45b98c15a79b05e81")
        assert [b["type"] for b in merged["content"]] == ["text", "tool_use"]


def test_progress_records_are_asides_not_forks():
    (rep,) = check_json(SUBAGENT)
    assert rep["branch_points"] == 0 and rep["leaves"] == 1  # the progress record beside the Task call
    with open_session(SUBAGENT) as s:
        call = next(iter(s.format.subagents(s)))
        assert len(s.tree.children(call)) == 2 and s.tree.child_count(call) == 1
    (rep,) = check_json(BRANCHED)
    assert rep["branch_points"] == 1 and rep["leaves"] == 2  # the rewind is a real fork


def _attachment_session(path, upto=None, model="claude-opus-5-5"):
    """A prompt with attachments (a date the client promotes, an attribution
    it keeps as user text), a call, its result and a reminder after it."""

    def rec(uid, parent, typ="user", **kw):
        return {"type": typ, "uuid": uid, "parentUuid": parent, "sessionId": "s", "isSidechain": False, **kw}

    call = [{"type": "tool_use", "id": "T", "name": "Bash", "input": {}}]
    lines = [
        rec("p", None, message={"role": "user", "content": "go"}),
        rec("d", "p", "attachment", attachment={"type": "date", "date": "2026-12-02"}, renderedRole="system"),
        rec(
            "a",
            "d",
            "attachment",
            attachment={"type": "remote_session_change", "commit": "C", "pr": "P"},
            renderedRole="user",
        ),
        rec("c", "a", "assistant", message={"id": "m", "role": "assistant", "model": model, "content": call}),
        rec(
            "r",
            "c",
            message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "T", "content": "ok"}]},
        ),
        rec("s", "r", "attachment", attachment={"type": "silent_turn_reminder", "text": "Say something."}),
    ]
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines[:upto]))
    return path


def test_system_turns_follow_the_model_claude_code_resumes_with():
    from session_tui.model.formats.claude.resume import system_turns, wraps_system_turns

    # (checked with dry runs of the pinned Claude Code 2.1.328, tests/golden/dry-run/claude-50a4beee-*)
    for model in ("claude-opus-4-7", "claude-haiku-4-5", "claude-sonnet-4-5-20250929", "claude-sonnet-4-20250514"):
        assert not system_turns(model), model
    for model in ("claude-3-7-sonnet-20250219", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-opus-4-6[1m]"):
        assert not system_turns(model), model
    for model in ("claude-opus-4-8", "claude-opus-5-5", "claude-sonnet-5", "claude-opus-4-20250514", "claude-foo-9"):
        assert system_turns(model), model
    assert system_turns(None)  # (no model known: the client's own, its current Opus)
    assert wraps_system_turns("claude-sonnet-5") and not wraps_system_turns("claude-opus-5-5")


def test_attachments_go_as_system_messages_to_the_models_that_take_them(tmp_path):
    path = _attachment_session(tmp_path / "s.jsonl")
    attribution = "- End git commit messages with:\nC\n- End pull request descriptions with:\nP\n</system-reminder>\n"
    with open_session(path) as s:  # resumed with the session's own model, claude-opus-5-5
        sent = [(m["role"], m["content"]) for m in (item.message for item in resume_items(s))]
        assert [role for role, _ in sent] == ["user", "system", "assistant", "user", "system", "assistant"]
        assert sent[0][1][0]["text"].endswith(attribution) and sent[0][1][1] == {"type": "text", "text": "go"}
        assert sent[1][1] == "Today's date is 2026-12-02."
        assert sent[3][1] == [{"type": "tool_result", "tool_use_id": "T", "content": "ok"}]
        assert sent[4][1] == "Say something."
        assert sent[5][1][0]["text"] == "No response requested."  # (after the system message)
        s.resume_model = "claude-sonnet-5"  # each reminder wrapped, in a system message
        assert [m["content"] for m in context_at(s) if m["role"] == "system"] == [
            "<system-reminder>\nToday's date is 2026-12-02.\n</system-reminder>",
            "<system-reminder>\nSay something.\n</system-reminder>",
        ]
        s.resume_model = "claude-sonnet-4-5"  # user text: before the prompt, after the result's output
        context = context_at(s)
        assert [m["role"] for m in context] == ["user", "assistant", "user"]
        assert context[0]["content"][0]["text"] == "<system-reminder>\nToday's date is 2026-12-02.\n</system-reminder>"
        assert context[2]["content"][0]["content"] == "ok\n\n<system-reminder>\nSay something.\n</system-reminder>"


@pytest.mark.parametrize(("upto", "model"), [(5, "claude-opus-5-5"), (4, "claude-opus-5-5"), (4, "claude-sonnet-4-5")])
def test_a_context_extended_by_appended_attachments_is_the_one_built_afresh(tmp_path, upto, model):
    path = _attachment_session(tmp_path / "s.jsonl", upto, model)
    with open_session(path) as s:
        context_at(s)  # (kept, then extended by what is appended)
        _attachment_session(path, model=model)
        s.refresh()
        extended = context_at(s)
    with open_session(path) as s:
        assert extended == context_at(s)
        assert (extended[-1] == {"role": "system", "content": "Say something."}) is (model == "claude-opus-5-5")
