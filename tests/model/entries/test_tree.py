"""The entry tree: links, roots, leaves, branch points, odd input."""

from __future__ import annotations

from session_tui.model.session.context import context_at
from session_tui.model.session.problems import find_notes, find_problems
from session_tui.model.session.session import open_session
from tests.builders.tree import chain, header, message, pointer, summary


def write(tmp_path, *lines: bytes):
    path = tmp_path / "s.jsonl"
    path.write_bytes(header() + b"".join(lines))
    return open_session(path)


def ids(s, entries):
    return [s.record(e)["id"] for e in entries]


def test_branches_leaves_and_active_leaf_rule(tmp_path):
    s = write(
        tmp_path,
        message("a", None),
        message("b", "a"),
        message("c", "b"),
        pointer("a"),
        message("d", "a"),
        message("e", "d"),
    )
    assert s.tree.leaves == 2 and s.tree.branch_points == 1
    assert ids(s, s.tree.children(0)) == ["b", "d"]
    assert ids(s, s.active_path()) == ["a", "d", "e"]  # last entry is later than the pointer


def test_pointer_later_than_last_entry_wins_and_bad_pointers_are_ignored(tmp_path):
    s = write(tmp_path, message("a", None), message("b", "a"), pointer("a"), pointer("nowhere"))
    assert ids(s, [s.active_leaf()]) == ["a"]
    assert any("nowhere" in text for _, text in find_notes(s))


def test_forward_reference_is_linked_when_the_parent_appears(tmp_path):
    s = write(tmp_path, message("child", "late"), message("late", None))
    assert s.tree.parent[0] == 1 and s.tree.roots == {1} and find_problems(s) == []


def test_missing_parent_becomes_a_root(tmp_path):
    s = write(tmp_path, message("a", None), message("b", "ghost"))
    assert s.tree.roots == {0, 1}
    assert [(p.kind.value, p.line) for p in find_problems(s)] == [("missing_parent", 3)]


def test_cycles_are_broken_deterministically(tmp_path):
    s = write(tmp_path, message("x", "y"), message("y", "x"), message("self", "self"))
    kinds = [(p.kind.value, p.line) for p in find_problems(s)]
    assert kinds == [("cycle", 2), ("cycle", 4)]
    assert s.tree.parent[1] == 0 and s.tree.parent[0] == -1 and s.tree.parent[2] == -1


def test_duplicate_ids_first_one_wins(tmp_path):
    s = write(tmp_path, message("a", None, content="first"), message("a", None, content="second"), message("b", "a"))
    assert s.entries == 2 and s.record(0)["message"]["content"] == "first"
    assert [(p.kind.value, p.line) for p in find_problems(s)] == [("duplicate_id", 3)]
    assert s.tree.parent[1] == 0


def test_a_200000_deep_chain(tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_bytes(chain(200_000))
    s = open_session(path, parallel_ok=False)
    assert s.entries == 200_000 and s.tree.leaves == 1 and s.tree.branch_points == 0
    assert len(s.active_path()) == 200_000
    assert len(context_at(s)) == 200_000
    assert s.tree.roots == {0}


def test_summary_counted(tmp_path):
    s = write(tmp_path, message("a", None), summary("s", "a"))
    assert s.tree.summaries == 1


def test_path_to_takes_linear_runs_whole_and_equals_the_walk_up_the_parents():
    from session_tui.model.session.session import open_session
    from tests.support import REPO, SAMPLES

    files = sorted(SAMPLES.rglob("*.jsonl")) + sorted((REPO / "tests" / "data" / "real").rglob("*.jsonl"))
    for path in files:
        with open_session(path) as session:
            tree = session.tree
            for entry in range(0, tree.count, max(1, tree.count // 200)):
                walk, node = [], entry
                while node >= 0:
                    walk.append(node)
                    node = tree.parent[node]
                assert list(tree.path_to(entry)) == walk[::-1], (path.name, entry)
