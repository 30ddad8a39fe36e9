"""The Codex adapter on its samples (formats.md §6): read-only for now."""

from __future__ import annotations

from session_tui.model import open_session
from tests.support import SAMPLES, check_json

CODEX = SAMPLES / "codex"
ROLLBACK = CODEX / "rollout-2026-03-14T10-30-12-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl"
TORN = CODEX / "rollout-2026-03-15T18-02-44-019cf2aa-2d31-7f5d-9af7-a08945194059.jsonl"
ABORTED = CODEX / "rollout-2026-03-16T08-20-10-019cf5bb-2c70-734a-8f4d-7f8b69651b42.jsonl"


def lines_of(session, items):
    return [session.line_of(e) for e, _ in items]


def test_rollback_and_compaction_rebuild_the_history():
    (rep,) = check_json(ROLLBACK)
    assert rep["format"] == "codex" and rep["problems"] == [] and rep["summaries"] == 1
    with open_session(ROLLBACK) as s:
        before_compaction = s.context_items(s.tree.entry_line.index(41))  # the assistant of turn 3 (line 42)
        shown = lines_of(s, before_compaction)
        assert 9 in shown and 37 in shown  # turn 1 and turn 3 are there
        assert not set(range(19, 30)) & set(shown)  # turn 2 was rolled back
        final = s.context_items()
        compacted = s.tree.entry_line.index(47)  # line 48
        base = [item for entry, item in final if entry == compacted]
        assert base and len(final) == len(base) + 4  # replacement history, then turn 5 (lines 54-58)
        assert lines_of(s, final)[-4:] == [54, 56, 57, 58]


def test_dangling_calls_at_the_end_and_mid_file():
    (rep,) = check_json(TORN)
    assert [d["call_id"] for d in rep["dangling_tool_calls"]] == ["call_1e6bcb708fd557c39876c1ac"]
    assert [p["line"] for p in rep["problems"] if p["kind"] == "torn_tail"] == [15]
    (rep,) = check_json(ABORTED)
    assert rep["dangling_tool_calls"] == [{"call_id": "call_da3adab61c2c5339a59150d2", "line": 9}]


def test_event_copies_are_not_rows_but_rollbacks_are():
    with open_session(ROLLBACK) as s:
        views = [s.format.view(s.record(e)) for e in range(s.entries)]
        assert any(v.text == "rolled back 1 turn(s)" for v in views)
        assert sum(1 for v in views if v.role == "user") == 5  # no event_msg user_message copies


def test_rolled_back_turns_are_off_the_branch():
    with open_session(ROLLBACK) as s:
        off = {s.line_of(e) for e in s.format.off_branch(s)}
        assert off == {21, 23, 24, 26}  # turn 2's items (its turn_context row stays)
