"""The two-process initial index gives exactly the sequential result."""

from __future__ import annotations

import threading

import pytest

from session_tui.model.session import parallel
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
