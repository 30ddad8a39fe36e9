"""Moving the active leaf: once, and the pointer is no step of the conversation."""

from __future__ import annotations

import os
import shutil
import time

from session_tui.model.reading.segment import Shape
from session_tui.model.session.branches import branches, details
from session_tui.model.session.session import open_session
from tests.support import SAMPLES, run_cli

PI = SAMPLES / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"


def aged(path) -> None:
    past = time.time() - 60
    os.utime(path, (past, past))


def test_the_active_leaf_again_is_nothing_to_do(tmp_path):
    path = tmp_path / "s.jsonl"
    shutil.copyfile(SAMPLES / "tree" / "branched-summary.jsonl", path)
    aged(path)
    before = path.read_bytes()
    with open_session(path) as session:
        leaf = session.record(session.active_leaf())["id"]
    done = run_cli("set-leaf", str(path), leaf)
    assert done.returncode == 0 and "already the active leaf: nothing to do" in done.stdout, done.stderr
    assert path.read_bytes() == before


def test_pis_leaf_pointer_is_no_step_of_its_branch(tmp_path):
    path = tmp_path / PI.name
    shutil.copyfile(PI, path)
    aged(path)
    with open_session(path) as session:
        path_before = list(session.active_path())
        target = next(
            e for e in reversed(path_before[:-4]) if session.tree.shape[e] & Shape.ROLE_MASK == Shape.ASSISTANT
        )
        target_id = session.record(target)["id"]
    assert run_cli("set-leaf", str(path), target_id).returncode == 0
    with open_session(path) as session:
        pointer = session.active_leaf()
        assert session.tree.shape[pointer] & Shape.QUIET  # session-tui's own record
        (moved,) = [b for b in branches(session) if b.active]
        assert moved.leaf == target  # the branch ends at the entry it points at: listed once
        shown = details(session, moved)
        assert shown.ends == "answer"  # not "custom"
        unmoved = [b for b in branches(session) if not b.active]
        assert all(details(session, b).steps for b in unmoved)
