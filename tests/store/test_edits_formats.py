"""Every format, every crashed sample: `fix --close` leaves nothing dangling;
every sample: a fork at the active leaf re-opens with the same active path
and says where it came from."""

from __future__ import annotations

import os

import pytest

from session_tui.model.session.context import context_at
from session_tui.model.session.session import open_session
from tests.support import ONE_PER_FORMAT, SAMPLES, check_json, run_cli

from .test_edits import sample

CRASHED = [
    "tree/crash-torn.jsonl",
    "tree/crash-dangling.jsonl",
    "chat/session-crash-dangling.jsonl",
    "chat/session-crash-torn-tail.jsonl",
    "pi/2026-03-15T16-40-11-052Z_876adc47-614e-495d-ac53-be28b587216d.jsonl",
    "pi/2026-03-16T08-05-47-300Z_dbdb84be-32de-4686-9dc8-d5ef821477fb.jsonl",
    "claude/e400ea4e-b13c-4400-a7d6-45a85f4a56c7.jsonl",
    "claude/3a2dec82-3264-4fa4-bb60-d92b18d2e064.jsonl",
    "codex/rollout-2026-03-15T18-02-44-019cf2aa-2d31-7f5d-9af7-a08945194059.jsonl",
    "astorlm/5e2ed5fa-83f0-43d9-8687-965f5d9f3315.jsonl",
]
FORKABLE = ONE_PER_FORMAT


def with_sidecar(tmp_path, rel: str):
    path = sample(tmp_path, rel)
    meta = SAMPLES / rel.replace(".jsonl", ".meta.json")
    if meta.exists():
        sample(tmp_path, str(meta.relative_to(SAMPLES)))
    return path


@pytest.mark.parametrize("rel", CRASHED, ids=[r.split("/")[0] + ":" + r.split("/")[1][:12] for r in CRASHED])
def test_fix_close_then_check_finds_nothing_dangling(tmp_path, rel):
    path = with_sidecar(tmp_path, rel)
    (before,) = check_json(path)
    assert before["dangling_tool_calls"]
    result = run_cli("fix", "--close", "--drop-torn", str(path))
    assert result.returncode == 0, result.stderr
    (after,) = check_json(path)
    assert after["format"] == before["format"]
    assert after["dangling_tool_calls"] == [] and after["problems"] == []


@pytest.mark.parametrize("rel", FORKABLE, ids=[r.split("/")[0] for r in FORKABLE])
def test_fork_at_the_active_leaf_reopens_with_the_same_active_path(tmp_path, rel):
    path = with_sidecar(tmp_path, rel)
    before = set(os.listdir(tmp_path))
    with open_session(path) as s:
        leaf = s.active_leaf()
        ref = s.format.entry_id(s.record(leaf)) or str(s.line_of(leaf))
        records = [s.record(e) for e in s.active_path()]
        context = context_at(s)
    result = run_cli("fork", str(path), ref)
    assert result.returncode == 0, result.stderr
    (fork,) = [tmp_path / n for n in set(os.listdir(tmp_path)) - before if n.endswith(".jsonl")]
    with open_session(fork) as f:
        assert f.format.name == rel.split("/")[0]
        assert len(f.active_path()) == len(records)
        assert context_at(f) == context
        for source, copy in zip(records, map(f.record, f.active_path()), strict=True):
            if f.format.name == "claude":  # copies name their source and the new session
                assert copy.pop("forkedFrom") == {"sessionId": source["sessionId"], "messageUuid": source["uuid"]}
                copy["sessionId"] = source["sessionId"]
            assert copy == source
    text = run_cli("check", str(fork)).stdout
    assert "forked from" in text
