"""The row layout of the entry view (model/session/rows.py)."""

from __future__ import annotations

from session_tui.model.session.rows import RowFlag, RowLayout
from session_tui.model.session.session import open_session
from tests.builders.tree import chain, header, message, pointer
from tests.support import SAMPLES


def layout_of(tmp_path, *lines: bytes):
    path = tmp_path / "s.jsonl"
    path.write_bytes(header() + b"".join(lines))
    session = open_session(path)
    return session, RowLayout(session)


def ids(session, layout):
    out = []
    for r in range(len(layout)):
        row = layout.at(r)
        out.append((session.record(row.entry)["id"], row.depth, row.flags))
    return out


def test_active_branch_is_the_spine_and_alternatives_fold(tmp_path):
    s, rows = layout_of(
        tmp_path,
        message("a", None),
        message("b", "a"),
        message("b2", "b"),
        pointer("a"),
        message("c", "a"),
        message("d", "c"),
    )
    A, H, F = RowFlag.ACTIVE, RowFlag.ALT_HEAD, RowFlag.FOLDED
    assert ids(s, rows) == [("a", 0, A), ("b", 1, H | F), ("c", 0, A), ("d", 0, A)]
    assert rows.row_of(s.find("b2")) is None
    assert rows.toggle(s.find("b"))
    assert ids(s, rows) == [("a", 0, A), ("b", 1, H), ("b2", 1, 0), ("c", 0, A), ("d", 0, A)]
    assert rows.toggle(s.find("b"))  # fold again
    assert len(rows) == 4
    assert rows.toggle(s.find("a"))  # at the fork: unfold all its alternatives
    assert len(rows) == 5


def test_reveal_unfolds_what_hides_an_entry(tmp_path):
    s, rows = layout_of(
        tmp_path, message("a", None), message("x", "a"), message("x1", "x"), message("x2", "x1"), message("b", "a")
    )
    row = rows.reveal(s.find("x2"))
    assert row is not None and rows.at(row).entry == s.find("x2")


def test_extra_roots_follow_the_main_tree_folded(tmp_path):
    s, rows = layout_of(
        tmp_path, message("orphan", "ghost"), message("o2", "orphan"), message("a", None), message("b", "a")
    )
    assert [(i, d) for i, d, _ in ids(s, rows)] == [("a", 0), ("b", 0), ("orphan", 0)]
    assert rows.at(2).flags & RowFlag.FOLDED


def test_pending_row_for_a_torn_tail():
    s = open_session(SAMPLES / "tree" / "crash-torn.jsonl")
    rows = RowLayout(s)
    assert len(rows) == 7 and rows.at(6).flags & RowFlag.PENDING and rows.at(6).entry == -1


def test_a_long_chain_is_one_run(tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_bytes(chain(200_000))
    s = open_session(path, parallel_ok=False)
    rows = RowLayout(s)
    assert len(rows) == 200_000 and len(rows.heads) == 1
    assert rows.at(123_456).entry == 123_456 and rows.row_of(199_999) == 199_999


def test_rows_match_a_naive_walk_on_the_sample():
    s = open_session(SAMPLES / "tree" / "branched-summary.jsonl")
    rows = RowLayout(s)
    rows.toggle(s.find("f1eb590f-3a97-4d6f-b4c2-d0369c51504e"))  # unfold everything
    shown = [rows.at(r).entry for r in range(len(rows))]
    assert sorted(shown) == list(range(s.entries))  # every entry exactly once
    for r in range(1, len(rows)):  # each row's parent is shown above it
        parent = s.tree.parent[shown[r]]
        assert parent == -1 or shown.index(parent) < r


def test_toggling_equals_a_fresh_layout(tmp_path):
    """Folding and unfolding splice runs in place; the result must be the
    layout a full build gives for the same unfolded set."""
    lines = [message("r", None)]
    for i in range(6):  # nested forks: each alternative forks again
        lines += [
            message(f"a{i}", "r" if i == 0 else f"a{i - 1}"),
            message(f"b{i}", f"a{i}"),
            message(f"c{i}", f"a{i}"),
            message(f"d{i}", f"c{i}"),
        ]
    s, rows = layout_of(tmp_path, *lines)

    def snapshot(layout):
        return [(layout.at(r).entry, layout.at(r).depth, layout.at(r).flags) for r in range(len(layout))]

    order = [e for e in range(s.entries) if s.tree.child_count(e) >= 2] + list(range(s.entries))
    for step, entry in enumerate(order * 2):
        rows.toggle(entry)
        fresh = RowLayout(s, set(rows.expanded))
        assert snapshot(rows) == snapshot(fresh), f"step {step}: toggled {entry}"
