"""A picker row's badge and problems, from one judgement of the live state's
rule, say what ``running``, ``live``, ``crashed`` and ``problems`` say each
on its own (the rule asked once per row, not four times)."""

from __future__ import annotations

import os
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from session_tui.model.catalog.session_info import SessionInfo

NOW = time.time()


def expected_badge(info: SessionInfo, now: float, stuck: float | None) -> str:
    if info.running(now, stuck):
        return "running"
    if info.live(now, stuck):
        return "live"
    if info.known and info.format and info.crashed(now, stuck):
        return "crashed"
    return ""


@settings(max_examples=300, deadline=None)
@given(
    known=st.booleans(),
    fmt=st.sampled_from([None, "tree", "claude"]),
    entries=st.integers(0, 3),
    exact=st.booleans(),
    torn=st.booleans(),
    dangling=st.booleans(),
    answered=st.booleans(),
    bad_lines=st.integers(0, 2),
    error=st.sampled_from([None, "not a session"]),
    mtime_ago=st.sampled_from([0.5, 3.0, 30.0, 400.0, 90_000.0]),
    last_ago=st.sampled_from([None, 0.5, 30.0, 90_000.0]),
    stuck=st.sampled_from([None, 10.0, 600.0]),
)
def test_one_judgement_gives_the_badge_and_problems_each_rule_gives(
    tmp_path_factory, known, fmt, entries, exact, torn, dangling, answered, bad_lines, error, mtime_ago, last_ago, stuck
):
    path = tmp_path_factory.mktemp("row") / "s.jsonl"
    path.write_bytes(b"{}\n")
    mtime = NOW - mtime_ago
    os.utime(path, (mtime, mtime))
    info = SessionInfo(
        str(path),
        3,
        int(mtime * 1e9),
        known=known,
        format=fmt,
        entries=entries,
        exact=exact,
        torn=torn,
        dangling=dangling,
        answered=answered,
        bad_lines=bad_lines,
        error=error,
        last_time=0.0 if last_ago is None else NOW - last_ago,
    )
    badge = expected_badge(info, NOW, stuck)
    assert info.badge(NOW, stuck) == badge
    assert info.row(NOW, stuck) == (info.problems(NOW, stuck), badge)
