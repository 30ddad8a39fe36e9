"""The astorLM adapter on its samples (docs/formats.md#astorlm): read-only for now."""

from __future__ import annotations

import shutil

from session_tui.model.session.session import open_session
from tests.support import SAMPLES, check_json

ASTOR = SAMPLES / "astorlm"
ROOT = ASTOR / "3fc3f7d7-a9cc-4b2a-8f1b-80ee252c7110.jsonl"
FORK = ASTOR / "a793b487-7fbf-4011-aa80-4f783b905993.jsonl"
CRASH = ASTOR / "5e2ed5fa-83f0-43d9-8687-965f5d9f3315.jsonl"


def test_root_and_fork_share_a_prefix_and_name_their_parent():
    (root,), (fork,) = check_json(ROOT), check_json(FORK)
    assert root["format"] == fork["format"] == "astorlm"
    assert root["problems"] == [] and fork["problems"] == []
    with open_session(ROOT) as a, open_session(FORK) as b:
        assert [a.record(i)["id"] for i in range(6)] == [b.record(i)["id"] for i in range(6)]
        assert b.sidecar()[1]["parentId"] == "3fc3f7d7-a9cc-4b2a-8f1b-80ee252c7110"
        assert "truncated to save context" in a.format.view(a.record(2)).text


def test_crash_with_two_dangling_calls_and_a_torn_result():
    (rep,) = check_json(CRASH)
    assert sorted(d["call_id"] for d in rep["dangling_tool_calls"]) == sorted(
        ["toolu_01Zd8Pt5Gy2Ns6Vl9Rf4Qx1K", "toolu_01Bf1Rv8Ja5Qu9Xn2Th7Sz4M"]
    )
    assert [p["line"] for p in rep["problems"] if p["kind"] == "torn_tail"] == [5]


def test_without_its_sidecar_the_file_reads_as_chat(tmp_path):
    """docs/formats.md#telling-the-formats-apart: astorlm only when the sidecar has astorLM's shape."""
    shutil.copy(ROOT, tmp_path / "x.jsonl")
    (rep,) = check_json(tmp_path / "x.jsonl")
    assert rep["format"] == "chat" and rep["entries"] == 10
