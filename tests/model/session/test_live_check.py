"""A file that grows: the context, the problems and the totals after each
append equal those of the whole file read afresh, while the context is
extended (not rebuilt) and the tool pairing reads only the new messages."""

from __future__ import annotations

import pytest

from session_tui.model.session.context import KeptContext, context_items, tool_issues
from session_tui.model.session.live_state import live_state
from session_tui.model.session.problems import find_notes, find_problems
from session_tui.model.session.session import open_session
from session_tui.model.session.writer_liveness import cannot_tell
from session_tui.model.usage.totals import session_usage
from tests.support import REPO, SAMPLES

FILES = sorted(SAMPLES.rglob("*.jsonl")) + sorted((REPO / "tests" / "data" / "real").rglob("*.jsonl"))


def state(session):
    leaf = session.active_leaf()
    return (
        leaf,
        context_items(session, leaf) if leaf >= 0 else [],
        # the time rule only: a real client another test runs on the same sample (its id on the command
        # line) would make a call "running" in one look and not in the next
        find_problems(session, live=live_state(session, probe=cannot_tell, stuck_after=0)),
        session.format.off_branch(session),
        session_usage(session),
    )


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:40])
def test_appending_line_by_line_matches_reading_the_whole_file(tmp_path, path):
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    live = tmp_path / path.name
    for sidecar in path.parent.glob(path.name.removesuffix(".jsonl") + ".meta.json"):
        (tmp_path / sidecar.name).write_bytes(sidecar.read_bytes())
    cut = max(1, len(lines) // 3)
    live.write_bytes(b"".join(lines[:cut]))
    whole = open_session(path)
    fmt = whole.format.name
    whole.close()
    session = open_session(live, fmt)
    state(session)
    step = max(1, (len(lines) - cut) // 25)  # ~25 appends, the last ones one line at a time
    done = cut
    while done < len(lines):
        n = step if done + step < len(lines) - 5 else 1
        with open(live, "ab") as f:
            f.write(b"".join(lines[done : done + n]))
        done += n
        session.refresh()
        fresh = open_session(live, fmt)
        assert state(session) == state(fresh), f"after line {done}"
        fresh.close()
    session.close()


def test_an_append_extends_the_context_and_pairs_only_new_messages(tmp_path):
    source = SAMPLES / "tree" / "crash-dangling.jsonl"
    lines = source.read_bytes().splitlines(keepends=True)
    live = tmp_path / "live.jsonl"
    live.write_bytes(b"".join(lines[:-1]))
    session = open_session(live)
    before = context_items(session)
    find_problems(session)
    pairing = session.memo.of(KeptContext).pairing
    with open(live, "ab") as f:
        f.write(lines[-1])
    session.refresh()
    after = context_items(session)
    assert after[: len(before)] == before and all(a is b for a, b in zip(after, before, strict=False))
    find_problems(session)
    assert session.memo.of(KeptContext).pairing is pairing and pairing.consumed == len(after)


@pytest.mark.parametrize("path", [p for p in FILES if p.parent.name == "tree"], ids=lambda p: p.name)
def test_a_light_check_finds_what_the_full_context_finds(path):
    """check reads only the records that call or answer a tool: the same problems."""
    light = open_session(path)
    found = find_problems(light, light=True), tool_issues(light, light=True), find_notes(light)
    full = open_session(path)
    assert found == (find_problems(full), tool_issues(full), find_notes(full))


def test_a_light_check_on_a_generated_session_with_branches_summaries_and_parallel_calls(tmp_path):
    """The bench's generator: forks every 25 turns, a summary every 40 (some
    with fromId..toId ranges), parallel calls; a crash appended at the end."""
    import sys

    sys.path.insert(0, str(REPO / "bench"))
    from gen_tree import generate

    path = tmp_path / "gen.jsonl"
    generate(str(path), 3 << 20)
    light = open_session(path)
    found = find_problems(light, light=True), tool_issues(light, light=True), find_notes(light)
    full = open_session(path)
    assert light.tree.summaries and light.tree.branch_points
    assert found == (find_problems(full), tool_issues(full), find_notes(full))
