"""Branches and their compare, checked against what the test works out on
its own from the files' parent links; `session-tui diff` end to end."""

from __future__ import annotations

import json
import sys

import pytest

from session_tui.model.session import branches
from session_tui.model.session.session import open_session
from tests.support import REPO, SAMPLES, run_cli

sys.path.insert(0, str(REPO / "bench"))
from gen_tree import generate  # noqa: E402

LINKED = {  # format: (sample, id field, parent field)
    "tree": ("tree/branched-summary.jsonl", "id", "parentId"),
    "pi": ("pi/2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl", "id", "parentId"),
}


def links(path, id_key: str, parent_key: str) -> tuple[dict, dict, list]:
    """(id -> parent id, id -> 1-based line, ids in file order) of the records with an id."""
    parent, line, order = {}, {}, []
    for number, raw in enumerate(path.read_bytes().splitlines(), 1):
        record = json.loads(raw)
        if record.get(id_key) and record.get("type") != "session":
            parent[record[id_key]] = record.get(parent_key)
            line[record[id_key]] = number
            order.append(record[id_key])
    return parent, line, order


def walk(parent: dict, leaf: str) -> list[str]:
    path = [leaf]
    while parent.get(path[-1]) is not None:
        path.append(parent[path[-1]])
    return path[::-1]


@pytest.mark.parametrize("fmt", sorted(LINKED))
def test_diff_json_is_the_fork_point_and_the_two_paths_after_it(fmt):
    rel, id_key, parent_key = LINKED[fmt]
    path = SAMPLES / rel
    parent, line, order = links(path, id_key, parent_key)
    children = {p for p in parent.values() if p is not None}
    leaves = [i for i in order if i not in children]
    with open_session(path) as s:
        active = s.format.entry_id(s.record(s.active_leaf()))
    other = max((leaf for leaf in leaves if leaf != active), key=line.__getitem__)  # the newest other
    a, b = walk(parent, active), walk(parent, other)
    common = next(k for k in range(min(len(a), len(b)) + 1) if k == min(len(a), len(b)) or a[k] != b[k])
    r = run_cli("diff", str(path), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["fork_point"] == {"id": a[common - 1], "line": line[a[common - 1]]}
    got = data["branches"]
    assert [side["leaf"] for side in got] == [active, other] and got[0]["active"] and not got[1]["active"]
    for side, expected in zip(got, (a[common:], b[common:]), strict=True):
        assert [e["id"] for e in side["entries"]] == expected
        assert [e["line"] for e in side["entries"]] == [line[i] for i in expected]
        assert side["ends"] == "answer" and side["tokens"].keys() == {"in", "out", "cache_read", "cache_write"}
    # the same two given explicitly, in the other order
    again = json.loads(run_cli("diff", str(path), other, active, "--json").stdout)
    assert [side["leaf"] for side in again["branches"]] == [other, active]
    text = run_cli("diff", str(path)).stdout
    assert all(len(row) <= 100 for row in text.splitlines()) and f"fork point: line {line[a[common - 1]]}" in text


def test_a_codex_rollback_is_a_branch_that_ended():
    path = SAMPLES / "codex/rollout-2026-03-14T10-30-12-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl"
    with open_session(path) as s:
        undone = sorted(s.format.off_branch(s))
        found = branches.branches(s)
        assert [b.active for b in found] == [True, False]
        ended = found[1]
        assert (ended.first, ended.leaf) == (undone[0], undone[-1]) and ended.fork == undone[0] - 1
        result = branches.compare(s, found[0], ended)
        assert result.fork == ended.fork and [st.entry for st in result.b.steps] == undone
        assert not set(undone) & {st.entry for st in result.a.steps}
    data = json.loads(run_cli("diff", str(path), "--json").stdout)
    assert data["branches"][1]["leaf"] == s.line_of(undone[-1])  # no ids in Codex: lines


def test_one_branch_only_is_said_and_exits_1():
    r = run_cli("diff", str(SAMPLES / "chat/session-fix-rounding.jsonl"))
    assert r.returncode == 1 and "one branch only" in r.stderr and r.stdout == ""
    bad = run_cli("diff", str(SAMPLES / "tree/branched-summary.jsonl"), "no-such-entry")
    assert bad.returncode == 2 and "no entry" in bad.stderr and "Traceback" not in bad.stderr


def test_every_leaf_of_a_generated_session_with_its_fork_point(tmp_path):
    path = tmp_path / "big.jsonl"
    generate(str(path), 3 << 20)
    with open_session(path) as s:
        tree = s.tree
        found = branches.branches(s)
        leaves = set(tree.conversation_leaves())
        assert {b.leaf for b in found} == leaves | {s.active_leaf()} and len(found) > 20
        lines = [s.line_of(b.leaf) for b in found]
        assert lines == sorted(lines, reverse=True)  # the most recently written first
        for branch in found:  # the nearest entry above with two children, walked one parent at a time
            node, below = tree.parent[branch.leaf], branch.leaf
            while node >= 0 and tree.child_count(node) < 2:
                node, below = tree.parent[node], node
            assert (branch.fork, branch.first) == (node, below if node >= 0 else below)
            own = branches.own_entries(s, branch)
            assert own[0] == branch.first and own[-1] == branch.leaf
            assert own == list(tree.path_to(branch.leaf))[-len(own) :]


@pytest.mark.parametrize("name", ["8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl", "subagent.jsonl", "short.jsonl"])
def test_a_healthy_real_transcript_is_one_branch(name):
    """Records the model never sees after the last answer (turn durations)
    end no branch of their own: no fork nobody made."""
    path = REPO / "tests" / "data" / "real" / "claude" / name
    with open_session(path) as s:
        found = branches.branches(s)
        assert [(b.leaf, b.active) for b in found] == [(s.active_leaf(), True)]
    r = run_cli("diff", str(path))
    assert r.returncode == 1 and "one branch only" in r.stderr


def test_the_tree_can_be_read_in_a_thread_while_the_tail_adds_forks(tmp_path):
    """The branch list and the checks read the tree's forks in threads while
    the live tail adds to them: no "dictionary changed size"."""
    import threading

    from tests.builders.tree import chain, message

    path = tmp_path / "live.jsonl"
    path.write_bytes(chain(2))
    errors, stop = [], threading.Event()
    with open_session(path) as s:

        def read() -> None:
            while not stop.is_set():
                try:
                    s.tree.run_breaks(), s.tree.leaf_list(), s.tree.branch_point_entries(), s.tree.leaves
                except RuntimeError as exc:
                    errors.append(exc)

        reader = threading.Thread(target=read)
        interval = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)  # switch threads as often as can be: inside the reads too
        reader.start()
        try:
            for i in range(400):  # each a new child of m0 or m1: a fork every time
                with open(path, "ab") as f:
                    f.write(message(f"x{i}", f"m{i % 2}"))
                s.refresh()
        finally:
            stop.set()
            reader.join()
            sys.setswitchinterval(interval)
    assert errors == [] and s.tree.leaves == 400
