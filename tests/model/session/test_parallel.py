"""The two-process initial index gives exactly the sequential result."""

from __future__ import annotations

import threading

import pytest

from session_tui.model.session import parallel
from session_tui.model.session.problems import find_notes
from session_tui.model.session.session import Session
from tests.builders.tree import chain, message, pointer
from tests.model.session.test_properties import snapshot


@pytest.fixture
def parallel_always(monkeypatch):
    if not parallel.available():
        pytest.skip("needs two cores and fork")
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)


def both_ways(path) -> tuple[dict, dict, int]:
    with Session(path, parallel_ok=False) as one:
        one.refresh()
        sequential = snapshot(one)
    with Session(path) as two:
        change = two.refresh()
        return sequential, snapshot(two), change.bytes_read


def test_plain_chain(tmp_path, parallel_always):
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(5000) + message("x", "m10") + pointer("m20") + b"{bad\n" + message("y", "m4999"))
    sequential, split, read = both_ways(path)
    assert split == sequential and read == path.stat().st_size


@pytest.mark.parametrize(
    "second_half",
    [
        message("m3", "m2"),  # a duplicate of an id in the first half
        message("late-parent", None),  # the first half waits for it (forward reference)
    ],
)
def test_across_the_halves_falls_back_to_a_local_scan(tmp_path, parallel_always, second_half):
    path = tmp_path / "s.jsonl"
    first = chain(3000) + message("waiting", "late-parent")
    path.write_bytes(first + chain(3000, prefix="n")[len(chain(0)) :] + second_half + b'{"type":"mess')
    sequential, split, _ = both_ways(path)
    assert split == sequential


def test_from_a_thread_the_far_part_is_scanned_by_a_new_interpreter_not_a_fork(tmp_path, parallel_always):
    """The app indexes in a thread: a fork would copy the other threads'
    locks into the child, so the far part goes to a new interpreter."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(5000) + message("x", "m10") + pointer("m20") + b"{bad\n" + message("y", "m4999"))
    assert parallel.child_kind() == "fork"
    found: dict = {}

    def index() -> None:
        found["kind"] = parallel.child_kind()
        found["far"] = parallel.FarScan("tree", str(path), 0, path.stat().st_size).result()
        found["result"] = both_ways(path)

    worker = threading.Thread(target=index)
    worker.start()
    worker.join(timeout=60)
    sequential, split, read = found["result"]
    assert found["kind"] == "interpreter" and split == sequential and read == path.stat().st_size
    assert found["far"] is not None and len(found["far"].ids) == 5002  # the child's segment, with its ids


@pytest.fixture
def unsettled_always(monkeypatch, parallel_always):
    """The far scan's keys merged without joining the id set (``SessionTree._extend_unsettled``) at any size."""
    from session_tui.model.entries import tree

    monkeypatch.setattr(tree, "UNSETTLED_MIN", 0)
    monkeypatch.setattr(parallel, "KEYS_TOLD_BYTES", 0)
    taken = []
    merge = tree.SessionTree._extend_unsettled

    def counted(self, seg):
        took = merge(self, seg)
        taken.append(took)
        return took

    monkeypatch.setattr(tree.SessionTree, "_extend_unsettled", counted)
    return taken


def second_half_file(tmp_path, second_half: bytes) -> object:
    """6,000 entries in one chain (the far scan takes the second half), then ``second_half``, then a torn line."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(3000) + chain(3000, prefix="n")[len(chain(0)) :] + second_half + b'{"type":"mess')
    return path


@pytest.mark.parametrize(
    "second_half, unsettled",
    [
        (message("x", "m10") + pointer("n2999") + message("y", "x"), True),  # a pointer into the unsettled half
        (message("n5", "n4"), False),  # a duplicate within the far half: its keys are not unique
        (message("m3", "m2"), False),  # a duplicate of the first half's: not disjoint
        (message("far-back", "m1") + message("z", "far-back") + pointer("z"), True),  # beyond the recent windows
        (message("orphan", "nowhere") + message("w", "orphan"), False),  # a missing parent: the batch decides
        (pointer("m5") + pointer("gone") + message("v", "n2999"), True),  # pointers far back, and to nothing
    ],
    ids=["pointer", "duplicate-inside", "duplicate-across", "far-back", "missing-parent", "pointers"],
)
def test_the_far_halfs_keys_may_wait_to_join_the_id_set(tmp_path, unsettled_always, second_half, unsettled):
    """Whether the far half's keys join the id set at once or when a lookup
    needs them, the session is the sequential scan's, entry for entry (its
    problems and notes too)."""
    path = second_half_file(tmp_path, second_half)
    sequential, split, read = both_ways(path)
    assert split == sequential and read == path.stat().st_size
    assert any(unsettled_always) == unsettled, unsettled_always
    with Session(path, parallel_ok=False) as one, Session(path) as two:
        one.refresh()
        two.refresh()
        assert find_notes(two) == find_notes(one)


def test_a_lookup_after_an_unsettled_merge_finds_every_entry(tmp_path, unsettled_always):
    path = second_half_file(tmp_path, b"")
    with Session(path) as session:
        session.refresh()
        assert any(unsettled_always)
        tree = session.tree
        assert tree._unsettled is not None  # (nothing asked yet)
        assert tree.has("n2990", near=tree.count) and tree._unsettled is not None  # (found near: still unsettled)
        assert session.find("n2999") == tree.count - 1 and session.find("n0") == 3000
        assert session.find("m0") == 0 and session.find("nowhere") is None
        assert tree.has("n17") and not tree.has("n3000") and tree._unsettled is None
