"""A record of a type the format does not know (a bookmark, a label) is a
node of its branch in `diff` and the branch list, as in the tree; the
records that only mark something (a leaf pointer) are not (issue 36)."""

from __future__ import annotations

import json
import os
import shutil

from session_tui.model.session import branches
from session_tui.model.session.session import open_session
from tests.support import SAMPLES, run_cli

FORK = "f1eb590f-3a97-4d6f-b4c2-d0369c51504e"  # (branched-summary: the fork point, line 8)
PI = SAMPLES / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"


def with_bookmark(tmp_path, parent: str):
    path = tmp_path / "s.jsonl"
    shutil.copy(SAMPLES / "tree" / "branched-summary.jsonl", path)
    mark = {"type": "bookmark", "id": "b0b0", "parentId": parent, "label": "here", "createdAt": "2026-03-14T11:09:09Z"}
    with open(path, "a") as f:
        f.write(json.dumps(mark) + "\n")
    return path


def test_a_branch_that_is_only_a_bookmark_is_listed_and_diffed_with_it(tmp_path):
    path = with_bookmark(tmp_path, FORK)
    with open_session(path) as session:
        listed = branches.branches(session)
        mark = session.find("b0b0")
        assert [b.leaf for b in listed].count(mark) == 1 and len(listed) == 3
        (own,) = [b for b in listed if b.leaf == mark]
        assert branches.details(session, own).steps == 1 and branches.details(session, own).ends == "bookmark"
    result = run_cli("diff", "--json", str(path), "b0b0")
    assert result.returncode == 0, result.stderr
    side = json.loads(result.stdout)["branches"][0]
    assert side["leaf"] == "b0b0" and [e["id"] for e in side["entries"]] == ["b0b0"] and side["ends"] == "bookmark"


def test_a_bookmark_at_the_end_of_a_branch_is_its_last_step(tmp_path):
    path = with_bookmark(tmp_path, "9df23958-e553-464f-b762-0b083037af6e")  # the other branch's leaf
    result = run_cli("diff", "--json", str(path))
    assert result.returncode == 0, result.stderr
    sides = {side["leaf"]: side for side in json.loads(result.stdout)["branches"]}
    assert "9df23958-e553-464f-b762-0b083037af6e" not in sides  # the bookmark ends it now
    assert sides["b0b0"]["entries"][-1]["id"] == "b0b0" and len(sides["b0b0"]["entries"]) == 5


def test_session_tui_s_own_leaf_pointer_stays_no_step(tmp_path):
    path = tmp_path / "pi.jsonl"
    shutil.copy(PI, path)
    os.utime(path, (1e9, 1e9))
    moved = run_cli("set-leaf", str(path), "e863a48b")
    assert moved.returncode == 0, moved.stderr
    with open_session(path) as session:
        pointer = session.tree.count - 1
        assert session.format.is_leaf_pointer(session.record(pointer))
        assert not branches.is_step(session, pointer)
        active = next(b for b in branches.branches(session) if b.active)
        nodes = [e for e in branches.branch_path(session, active) if branches.is_step(session, e)]
        assert nodes[-1] == session.find("e863a48b") and branches.details(session, active).ends == "user message"
