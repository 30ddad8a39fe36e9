"""The Codex adapter on its samples (docs/formats.md#codex): read-only for now."""

from __future__ import annotations

import json

from session_tui.model.entries.tokens import TokenCounts
from session_tui.model.session.context import context_items
from session_tui.model.session.session import open_session
from session_tui.model.session.usage import session_tokens
from tests.builders.codex import rollout, token_count
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
        before_compaction = context_items(s, s.tree.entry_line.index(41))  # the assistant of turn 3 (line 42)
        shown = lines_of(s, before_compaction)
        assert 9 in shown and 37 in shown  # turn 1 and turn 3 are there
        assert not set(range(19, 30)) & set(shown)  # turn 2 was rolled back
        final = context_items(s)
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


def token_counts(path) -> list[tuple[int, dict | None]]:
    """(1-based line, info) of every token_count event in ``path``."""
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        obj = json.loads(line) if line.strip() else {}
        if obj.get("type") == "event_msg" and obj["payload"].get("type") == "token_count":
            out.append((n, obj["payload"].get("info")))
    return out


USER = ("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]})
ANSWER = (
    "response_item",
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]},
)
CALL = ("response_item", {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"})
OUTPUT = ("response_item", {"type": "function_call_output", "call_id": "c1", "output": "ok"})


def test_session_tokens_agree_with_the_last_cumulative_count():
    counts = token_counts(ROLLBACK)
    assert len(counts) == 5
    last = counts[-1][1]["total_token_usage"]
    with open_session(ROLLBACK) as s:
        said = session_tokens(s)
    # the responses' own counts, each once, add up to what Codex says it spent in all
    assert (said.input + said.cache_read, said.output) == (last["input_tokens"], last["output_tokens"])
    assert said.cache_read == last["cached_input_tokens"]
    with open_session(TORN) as s:
        assert session_tokens(s) == TokenCounts(0, 0, 0, 0)  # no token_count at all


def test_a_null_info_does_not_hide_the_count_before_it(tmp_path):
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(
        rollout(
            USER,
            ANSWER,
            ("event_msg", token_count(100, 20, 100, 20)),
            USER,
            ("event_msg", {"type": "token_count", "info": None, "rate_limits": None}),
            ("event_msg", {"type": "agent_message", "message": "token_count"}),
        )
    )
    with open_session(path) as s:
        assert (session_tokens(s).input, session_tokens(s).output) == (100, 20)


def test_the_assistant_entry_before_a_token_count_carries_its_last_usage(tmp_path):
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(
        rollout(
            USER,
            CALL,
            ("event_msg", token_count(100, 20, 100, 20)),
            OUTPUT,
            ANSWER,
            ("event_msg", {"type": "agent_message", "message": "done"}),
            ("event_msg", token_count(250, 50, 150, 30)),
            USER,
            ANSWER,
        )
    )
    with open_session(path) as s:
        tokens = [s.format.entry_tokens(s, e) for e in range(s.entries)]
    assert [t and (t["input_tokens"], t["output_tokens"]) for t in tokens] == [
        None,
        (100, 20),
        None,
        (150, 30),
        None,
        None,
    ]
    with open_session(ROLLBACK) as s:
        answer = s.tree.entry_line.index(14)  # line 15, the assistant message before line 17's token_count
        assert s.format.entry_tokens(s, answer) == token_counts(ROLLBACK)[0][1]["last_token_usage"]
        assert s.format.entry_tokens(s, answer - 1) is None  # the tool output before it
