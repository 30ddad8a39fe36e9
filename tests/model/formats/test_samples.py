"""Every sample's expected values (sample_sessions/; the tree and chat ones
are the project's shared samples, with the values they were published with)."""

from __future__ import annotations

import pytest

from session_tui.model.session.context import context_at, context_items, tool_issues
from session_tui.model.session.session import open_session
from tests.support import SAMPLES, check_json

TREE = SAMPLES / "tree"
CHAT = SAMPLES / "chat"


def test_branched_summary():
    (rep,) = check_json(TREE / "branched-summary.jsonl")
    assert rep == {
        "path": str(TREE / "branched-summary.jsonl"),
        "format": "tree",
        "entries": 22,
        "leaves": 2,
        "branch_points": 1,
        "summaries": 1,
        "active_leaf": "0fe3c303-096b-49f1-837b-e65ac554698a",
        "active_leaf_line": 24,
        "dangling_tool_calls": [],
        "problems": [],
        "tool_errors": 0,
    }


def test_branched_summary_model():
    with open_session(TREE / "branched-summary.jsonl") as s:
        assert len(s.active_path()) == 18
        fork = s.find("f1eb590f-3a97-4d6f-b4c2-d0369c51504e")
        kids = [s.record(c)["id"][:8] for c in s.tree.children(fork)]
        assert kids == ["f1f33892", "04872c9f"]
        assert s.tree.branch_point_entries() == [fork]
        # line 13 is the pointer back to the diagnosis message; the last entry is later
        assert s.lines.line_kinds[12] == 3 and s.pointers[0][1].startswith("f1eb590f")
        ctx = context_items(s)
        ids = [s.record(e)["id"][:8] for e, _ in ctx]
        assert ids == ["72e56246", "79c7d2b4", "e7588db2", "cf853001", "f63b96e7", "b43529e7", "0fe3c303"]
        summary_msg = ctx[1][1]
        assert summary_msg["role"] == "user" and summary_msg["content"].startswith("## Goal")
        summary_entry = s.find("79c7d2b4-" + s.record(ctx[1][0])["id"][9:])
        assert s.record(summary_entry)["tokensBefore"] == 18420
        # abandoned branch ends at 9df23958
        leaves = [s.record(e)["id"][:8] for e in s.tree.leaf_list()]
        assert leaves == ["9df23958", "0fe3c303"]


def test_crash_torn():
    (rep,) = check_json(TREE / "crash-torn.jsonl")
    assert rep["active_leaf"] == "2b719790-4b57-4bb9-866b-2de67a574189"
    assert rep["entries"] == 6 and rep["active_leaf_line"] == 7
    assert rep["dangling_tool_calls"] == [{"call_id": "call_j9Y1rP3nO8", "line": 6}]
    kinds = [(p["kind"], p["line"]) for p in rep["problems"]]
    assert kinds == [("dangling_tool_call", 6), ("torn_tail", 8)]
    with open_session(TREE / "crash-torn.jsonl") as s:
        assert len(s.active_path()) == 6


@pytest.mark.parametrize(
    "name, entries, dangling, torn_line",
    [
        ("session-fix-rounding.jsonl", 12, [], None),
        ("session-crash-dangling.jsonl", 6, ["call_V1kZ7bF5hC9xY3qP6tN2dM8w"], None),
        ("session-crash-torn-tail.jsonl", 3, ["call_X5mB9dG3jF7zC1rQ4vP8tN2y"], 4),
    ],
)
def test_chat_samples(name, entries, dangling, torn_line):
    (rep,) = check_json(CHAT / name)
    assert rep["format"] == "chat" and rep["entries"] == entries
    assert rep["active_leaf"] is None and rep["active_leaf_line"] == entries
    assert rep["leaves"] == 1 and rep["branch_points"] == 0 and rep["summaries"] == 0
    assert [d["call_id"] for d in rep["dangling_tool_calls"]] == dangling
    torn = [p["line"] for p in rep["problems"] if p["kind"] == "torn_tail"]
    assert torn == ([torn_line] if torn_line else [])


def test_chat_parallel_calls_paired():
    with open_session(CHAT / "session-fix-rounding.jsonl") as s:
        assert tool_issues(s) == ([], [])
        assert len(context_at(s)) == 12


def test_chat_sidecar_is_shown_not_required():
    with open_session(CHAT / "with-sidecar.jsonl") as s:
        path, meta = s.sidecar()
        assert path.endswith("with-sidecar.meta.json") and meta["title"] == "Rounding question"
    with open_session(CHAT / "session-fix-rounding.jsonl") as s:
        assert s.sidecar() is None


def test_bad_lines_sample():
    (rep,) = check_json(TREE / "bad-lines.jsonl")
    bad = [(p["line"], p["message"]) for p in rep["problems"] if p["kind"] == "bad_line"]
    assert [line for line, _ in bad] == [4, 6, 7, 8]
    assert "NUL" in bad[0][1] and "fused" in bad[1][1] and "not an object" in bad[2][1] and "UTF-8" in bad[3][1]
    # loading went on past them: the last entry is there, parented on the lost (fused) record
    assert rep["active_leaf_line"] == 10 and rep["entries"] == 4
    assert ("missing_parent", 10) in [(p["kind"], p["line"]) for p in rep["problems"]]
    with open_session(TREE / "bad-lines.jsonl") as s:
        assert s.lines.line_kinds[8] == 5  # line 9: unknown record type, kept as such


def test_damaged_links_sample():
    (rep,) = check_json(TREE / "damaged-links.jsonl")
    kinds = [(p["kind"], p["line"]) for p in rep["problems"]]
    assert kinds == [("duplicate_id", 4), ("missing_parent", 5), ("cycle", 6), ("orphan_tool_result", 9)]
    assert rep["entries"] == 7 and rep["leaves"] == 3 and rep["active_leaf_line"] == 10


def test_crash_dangling_sample():
    (rep,) = check_json(TREE / "crash-dangling.jsonl")
    assert rep["dangling_tool_calls"] == [{"call_id": "call_dng2", "line": 4}]


def test_huge_output_sample():
    (rep,) = check_json(TREE / "huge-output.jsonl")
    assert rep["problems"] == [] and rep["entries"] == 5
    with open_session(TREE / "huge-output.jsonl") as s:
        assert len(s.record(3)["message"]["content"]) > 800_000


def test_directory_means_every_session_file():
    reps = check_json(SAMPLES)
    names = sorted(r["path"].rsplit("/", 1)[1] for r in reps)
    assert len(reps) == 28 and "with-sidecar.jsonl" in names and "opencode.db#ses_dc486f233ffeZIh7BHTlbpc31f" in names
    assert not any(n.endswith(".meta.json") for n in names)
