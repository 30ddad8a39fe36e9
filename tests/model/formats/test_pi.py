"""The pi adapter on its samples (docs/formats.md#pi; values from the samples' README)."""

from __future__ import annotations

from session_tui.model.session.context import context_at, context_items, resume_items
from session_tui.model.session.problems import find_problems
from session_tui.model.session.rows import RowLayout
from session_tui.model.session.session import open_session
from tests.support import SAMPLES, check_json

PI = SAMPLES / "pi"
BRANCHED = PI / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"
DANGLING = PI / "2026-03-15T16-40-11-052Z_876adc47-614e-495d-ac53-be28b587216d.jsonl"
TORN = PI / "2026-03-16T08-05-47-300Z_dbdb84be-32de-4686-9dc8-d5ef821477fb.jsonl"


def test_branched_pi_session():
    (rep,) = check_json(BRANCHED)
    assert rep["format"] == "pi" and rep["active_leaf"] == "9b2cfffd" and rep["problems"] == []
    with open_session(BRANCHED) as s:
        assert len(s.active_path()) == 31
        fork = s.find("21151c1c")
        assert [s.record(c)["id"] for c in s.tree.children(fork)] == ["7708d15f", "597bebe5"]
        assert s.record(s.find("597bebe5"))["type"] == "branch_summary"
        compaction = s.record(s.find("7f35d398"))
        assert compaction["type"] == "compaction" and compaction["firstKeptEntryId"] == "c290e885"
        context = context_items(s)
        assert context[0][1]["summary"] == compaction["summary"]  # the summary opens the context
        sent = resume_items(s)[0].message["content"][0]["text"]  # as pi wraps it
        assert sent.startswith("The conversation history before this point") and compaction["summary"] in sent
        assert context[1][0] == s.find("c290e885")  # then the kept messages
        views = [s.format.view(s.record(e)) for e in range(s.entries)]
        assert any(v.role == "model_change" for v in views) and any(v.role == "label" for v in views)
        rows = RowLayout(s)
        assert rows.at(rows.row_of(s.find("7708d15f"))).depth == 1  # the abandoned branch is indented


def test_pi_dangling_and_torn():
    (rep,) = check_json(DANGLING)
    assert rep["active_leaf"] == "b5e784e5"
    assert [d["call_id"] for d in rep["dangling_tool_calls"]] == ["toolu_01Pr2Jx7Lc4Gw9Hm6Ts3Kd8N"]
    (rep,) = check_json(TORN)
    assert rep["active_leaf"] == "092eb425"
    assert [d["call_id"] for d in rep["dangling_tool_calls"]] == ["call_4Kd8Ws1Fh6Vn3Qx9Tb2Lm7Rc|fc_1b2c3d4e5f60"]
    assert [p["line"] for p in rep["problems"] if p["kind"] == "torn_tail"] == [8]


def test_aborted_assistant_calls_are_not_dangling(tmp_path):
    import orjson

    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"},
        {
            "type": "message",
            "id": "a1",
            "parentId": None,
            "timestamp": "t",
            "message": {"role": "user", "content": "go"},
        },
        {
            "type": "message",
            "id": "a2",
            "parentId": "a1",
            "timestamp": "t",
            "message": {
                "role": "assistant",
                "stopReason": "aborted",
                "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}}],
            },
        },
    ]
    path = tmp_path / "p.jsonl"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    with open_session(path) as s:
        assert s.format.name == "pi" and find_problems(s) == []
        assert [m["role"] for m in context_at(s)] == ["user"]  # pi does not replay it
