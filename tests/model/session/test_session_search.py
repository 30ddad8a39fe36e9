"""Finding entries by text, and a tool call's partner."""

from __future__ import annotations

from session_tui.model.entries.pairing import partner
from session_tui.model.session.search import find_text
from session_tui.model.session.session import open_session
from tests.builders.tree import call, chain, header, message, result
from tests.support import SAMPLES


def test_find_text_forward_backward_and_wrapping():
    s = open_session(SAMPLES / "tree" / "branched-summary.jsonl")
    first = find_text(s, "ROUND_HALF_UP")
    assert s.line_of(first) == 8
    second = find_text(s, "round_half_up", first)
    assert s.line_of(second) == 15
    assert find_text(s, "round_half_up", second, backwards=True) == first
    last = find_text(s, "round_half_up", s.entries - 1)  # wraps to the start
    assert last == first
    assert find_text(s, "no such text anywhere") is None


def test_find_text_skips_non_entry_lines(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        header()
        + b'{"type":"note","text":"needle"}\n'
        + message("a", None, content="hay")
        + message("b", "a", content="needle")
    )
    s = open_session(path)
    assert find_text(s, "needle") == s.find("b")


def test_find_text_across_block_boundaries(tmp_path, monkeypatch):
    from session_tui.model.session import search

    monkeypatch.setattr(search, "BLOCK", 64)
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(50) + message("z", "m49", content="the-needle-is-here"))
    s = open_session(path)
    assert find_text(s, "the-needle-is-here") == s.find("z")
    assert find_text(s, "the-needle-is-here", s.entries - 1, backwards=True) == s.find("z")


def test_partner_of_calls_and_results(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        header()
        + message("u", None)
        + call("a", "u", "c1", "c2")
        + result("r1", "a", "c1")
        + result("r2", "r1", "c2")
        + message("x", "u")
    )
    s = open_session(path)
    assert partner(s, s.find("a")) == s.find("r1")
    assert partner(s, s.find("r2")) == s.find("a")
    assert partner(s, s.find("x")) is None


def test_a_search_polls_should_stop_between_blocks_and_stops(tmp_path):
    """A miss on a big file reads all of it: the UI runs it in a thread and stops it with Esc."""
    import pytest

    from session_tui.model.errors import Cancelled
    from session_tui.model.session.search import find_all
    from session_tui.model.session.session import open_session
    from tests.builders.tree import chain

    path = tmp_path / "big.jsonl"
    path.write_bytes(chain(40_000))  # several MiB: several blocks
    session = open_session(path)
    polls = []

    def stop_after_two() -> bool:
        polls.append(1)
        return len(polls) > 2

    with pytest.raises(Cancelled):
        find_text(session, "no such text", should_stop=stop_after_two)
    assert len(polls) == 3
    assert find_all(session, "message 3999", 5) == [3999, 39990, 39991, 39992, 39993]
