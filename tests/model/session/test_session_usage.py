"""Token totals and step timing."""

from __future__ import annotations

import json

from session_tui.model.entries.view import parse_time
from session_tui.model.session.session import open_session
from session_tui.model.session.usage import entry_tokens, step_seconds
from session_tui.model.usage.totals import session_usage, usage_text
from session_tui.model.words import human_tokens
from tests.support import SAMPLES

PI = SAMPLES / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"


def test_pi_token_totals_match_the_file():
    expected_in = expected_out = expected_cached = 0
    for line in PI.read_text().splitlines():
        usage = json.loads(line).get("message", {}).get("usage") if line.strip() else None
        if usage:
            expected_in += usage.get("input", 0)
            expected_out += usage.get("output", 0)
            expected_cached += usage.get("cacheRead", 0)
    with open_session(PI) as s:
        total = session_usage(s)
        counts = total.counts
        assert (counts.input, counts.output, counts.cache_read) == (expected_in, expected_out, expected_cached)
        assert (total.sent, total.output) == (expected_in + expected_cached, expected_out) > (0, 0)
        assert usage_text(total).startswith(f"tokens in {human_tokens(expected_in)} · out {human_tokens(expected_out)}")


def test_model_latency_and_tool_time_from_timestamps():
    with open_session(SAMPLES / "tree" / "branched-summary.jsonl") as s:
        call = s.find("c29dea36-11bf-4fdc-a296-d588a8fa3c57")
        kind, seconds = step_seconds(s, call)
        parent_time = parse_time(s.record(s.tree.parent[call])["createdAt"])
        assert kind == "model" and seconds == parse_time(s.record(call)["createdAt"]) - parent_time
        result = s.tree.children(call)[0]
        kind, seconds = step_seconds(s, result)
        assert kind == "tool" and seconds > 0
        total = session_usage(s)
        assert total.seconds == parse_time("2026-03-14T11:08:33.000Z") - parse_time("2026-03-14T11:05:00.000Z")


def test_times_in_both_shapes():
    assert parse_time("2026-03-14T11:05:00.000Z") == parse_time(1773486300000)
    assert parse_time("not a time") is None and parse_time(None) is None


def test_codex_totals_are_its_last_cumulative_token_count():
    rollout = SAMPLES / "codex" / "rollout-2026-03-14T10-30-12-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl"
    totals = [
        json.loads(line)["payload"]["info"]["total_token_usage"]
        for line in rollout.read_text().splitlines()
        if '"token_count"' in line
    ]
    assert len(totals) > 1  # summing them would count the first turns several times
    with open_session(rollout) as s:
        total = session_usage(s)
        assert (total.sent, total.output) == (totals[-1]["input_tokens"], totals[-1]["output_tokens"])
        uncached = totals[-1]["input_tokens"] - totals[-1]["cached_input_tokens"]  # (Codex's input holds its cache)
        assert f"tokens in {human_tokens(uncached)} · out" in usage_text(total)
        answer = s.tree.entry_line.index(14)  # line 15: the assistant message before the first token_count
        assert entry_tokens(s, answer)["output_tokens"] == 610
        user = s.tree.entry_line.index(4)
        assert entry_tokens(s, user) is None


def test_entry_tokens_are_the_view_s_where_the_format_has_no_other_source():
    with open_session(PI) as s:
        for entry in range(s.entries):
            assert entry_tokens(s, entry) == s.format.view(s.record(entry)).tokens


def test_numeric_times_in_seconds_or_milliseconds_and_absurd_ones_ignored():
    assert parse_time(1773486300) == parse_time(1773486300000) == parse_time(1773486300.0)
    assert parse_time(1e20) is None and parse_time(-5) is None and parse_time(True) is None


def test_negative_or_non_integer_counts_and_absurd_times_are_left_out_of_the_totals(tmp_path):
    def record(eid, parent, created, usage=None):
        message = {"role": "assistant" if usage else "user", "content": "hi", **({"usage": usage} if usage else {})}
        return (
            json.dumps({"type": "message", "id": eid, "parentId": parent, "createdAt": created, "message": message})
            + "\n"
        )

    path = tmp_path / "odd.jsonl"
    path.write_text(
        json.dumps({"type": "session", "version": 1, "id": "s", "createdAt": "2026-03-14T11:05:00Z"})
        + "\n"
        + record("u1", None, "2026-03-14T11:05:00.000Z")
        + record("a1", "u1", 1773486360000, {"prompt_tokens": -1000, "completion_tokens": 5})
        + record("a2", "a1", 1e20, {"prompt_tokens": 7.5, "input_tokens": 3, "completion_tokens": "9"})
        + record("a3", "a2", 1773486420, {"prompt_tokens": 10, "completion_tokens": 1})
    )
    with open_session(path) as s:
        total = session_usage(s)
    assert (total.sent, total.output) == (13, 6)
    assert total.seconds == 120  # 11:05:00 to 11:07:00; the time 1e20 is no time
    assert usage_text(total) == "tokens in 13 · out 6 · span 2.0 min"


def test_totals_kept_while_indexing_equal_those_read_from_the_records(tmp_path):
    """The native format tallies tokens and times in the index; reading every
    record again (the other formats' way) gives the same totals."""
    import shutil

    from session_tui.model.session.session import open_session
    from session_tui.model.usage.totals import session_usage
    from tests.builders.tree import chain, message
    from tests.support import SAMPLES

    live = tmp_path / "mixed.jsonl"
    live.write_bytes(
        chain(5)
        + message("u1", "m4", role="assistant", content="x", usage={"prompt_tokens": 120, "completion_tokens": 7})
        + message("u2", "u1", role="assistant", content="y", usage={"input_tokens": 3, "output_tokens": -4})
    )
    shutil.copy(SAMPLES / "tree" / "branched-summary.jsonl", tmp_path / "branched.jsonl")
    for path, tokens in ((live, (123, 7)), (tmp_path / "branched.jsonl", None)):
        session = open_session(path)
        assert session.scan_tally.exact
        kept = session_usage(session)
        session.scan_tally.exact = False  # the records' way
        assert session_usage(session) == kept and kept.seconds is not None
        if tokens:
            assert (kept.sent, kept.output) == tokens
    odd = tmp_path / "odd.jsonl"  # a time in another form: read from the records
    odd.write_bytes(
        chain(2) + b'{"type":"message","id":"n","parentId":"m1","createdAt":1700000000,'
        b'"message":{"role":"user","content":"hi"}}\n'
    )
    session = open_session(odd)
    assert not session.scan_tally.exact and session_usage(session).first == 1700000000
