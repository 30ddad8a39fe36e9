"""Context at a leaf (docs/formats.md#tree-context) and tool pairing (docs/formats.md#tree-tool-pairing, #chat)."""

from __future__ import annotations

from session_tui.model.session.context import context_at, tool_issues
from session_tui.model.session.problems import find_notes, find_problems
from session_tui.model.session.session import open_session
from tests.builders.tree import call, header, message, result, summary


def write(tmp_path, *lines: bytes, name="s.jsonl"):
    path = tmp_path / name
    path.write_bytes(b"".join(lines))
    return open_session(path)


def contents(s):
    return [m.get("content") for m in context_at(s)]


def test_summary_range_is_replaced_where_from_was(tmp_path):
    s = write(
        tmp_path,
        header(),
        message("sys", None, "system", "S"),
        message("u1", "sys", content="1"),
        message("u2", "u1", content="2"),
        summary("sm", "u2", "SUM", "u1", "u2"),
        message("u3", "sm", content="3"),
    )
    assert contents(s) == ["S", "SUM", "3"]
    assert context_at(s)[1] == {"role": "user", "content": "SUM"}


def test_summary_without_range_replaces_everything_before_it(tmp_path):
    s = write(
        tmp_path,
        header(),
        message("sys", None, "system", "S"),
        message("u1", "sys", content="1"),
        summary("sm", "u1", "SUM"),
        message("u2", "sm", content="2"),
    )
    assert contents(s) == ["SUM", "2"]


def test_summary_out_of_order_is_not_applied_and_noted(tmp_path):
    s = write(
        tmp_path,
        header(),
        message("a", None, content="a"),
        message("b", "a", content="b"),
        summary("sm", "b", "SUM", "b", "a"),
        message("c", "sm", content="c"),
    )
    assert contents(s) == ["a", "b", "c"]
    assert any("not applied" in text for _, text in find_notes(s))


def test_summary_inside_a_later_summary_disappears(tmp_path):
    s = write(
        tmp_path,
        header(),
        message("a", None, content="a"),
        summary("s1", "a", "S1", "a", "a"),
        message("b", "s1", content="b"),
        summary("s2", "b", "S2", "s1", "b"),
        message("c", "s2", content="c"),
    )
    assert contents(s) == ["a", "S2", "c"]


def test_usage_is_stripped(tmp_path):
    s = write(tmp_path, header(), message("a", None, "assistant", "x", usage={"prompt_tokens": 3}))
    assert context_at(s) == [{"role": "assistant", "content": "x"}]


def test_context_from_any_leaf(tmp_path):
    s = write(
        tmp_path,
        header(),
        message("a", None, content="a"),
        message("b", "a", content="b"),
        message("c", "a", content="c"),
    )
    assert [m["content"] for m in context_at(s, s.find("b"))] == ["a", "b"]
    assert [m["content"] for m in context_at(s)] == ["a", "c"]


def test_parallel_calls_partly_answered(tmp_path):
    s = write(tmp_path, header(), message("u", None), call("a", "u", "c1", "c2"), result("r1", "a", "c1"))
    dangling, orphans = tool_issues(s)
    assert [(d.call_id, s.line_of(d.entry)) for d in dangling] == [("c2", 3)] and orphans == []


def test_call_interrupted_by_a_user_message_is_dangling_and_late_result_orphan(tmp_path):
    s = write(
        tmp_path, header(), message("u", None), call("a", "u", "c1"), message("u2", "a"), result("r1", "u2", "c1")
    )
    dangling, orphans = tool_issues(s)
    assert [d.call_id for d in dangling] == ["c1"] and [o.call_id for o in orphans] == ["c1"]
    assert [p.kind.value for p in find_problems(s)] == ["dangling_tool_call", "orphan_tool_result"]


def test_dangling_call_off_the_active_path_is_not_reported(tmp_path):
    s = write(tmp_path, header(), message("u", None), call("a", "u", "c1"), message("b", "u"))
    assert tool_issues(s) == ([], [])


def test_summary_cutting_a_call_from_its_result_leaves_an_orphan(tmp_path):
    s = write(
        tmp_path,
        header(),
        message("u", None),
        call("a", "u", "c1"),
        summary("sm", "a", "S", "u", "a"),
        result("r", "sm", "c1"),
    )
    assert [o.call_id for o in tool_issues(s)[1]] == ["c1"]


def test_chat_pairing(tmp_path):
    s = write(
        tmp_path,
        b'{"role":"user","content":"hi"}\n',
        b'{"role":"assistant","content":null,"tool_calls":[{"id":"k1","type":"function","function":{"name":"f","arguments":"{}"}}]}\n',
        b'{"role":"tool","tool_call_id":"k1","content":"ok"}\n',
        name="c.jsonl",
    )
    assert s.format.name == "chat" and tool_issues(s) == ([], [])


def test_context_and_problems_can_be_stopped(tmp_path):
    import pytest

    from session_tui.model.errors import Cancelled
    from tests.builders.tree import chain

    path = tmp_path / "long.jsonl"
    path.write_bytes(chain(20_000))
    s = open_session(path)
    with pytest.raises(Cancelled):
        find_problems(s, should_stop=lambda: True)
    assert find_problems(s, should_stop=lambda: False) == []
