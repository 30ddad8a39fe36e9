"""The picker's first rows: the cache's head, or a forked child's walk of the
folders, taken by the parent with the same checks as a head read from the cache."""

from __future__ import annotations

import os
import threading
import time

import pytest

from session_tui.model import forked
from session_tui.model.catalog import first_rows
from session_tui.model.catalog.cache import Catalog
from session_tui.model.catalog.first_rows import start
from tests.model.catalog.test_head import FILES, remembered_folder, written_folder


@pytest.fixture(autouse=True)
def alone(monkeypatch):
    """As ``session-tui DIR`` forks, with no thread beside it (the suite's
    workers have theirs: the child here touches none of their locks)."""
    monkeypatch.setattr(forked, "alone", lambda: True)


def fresh_folder(tmp_path, files: int = 120) -> str:
    """``files`` sessions never seen by a cache, the i-th last written i seconds after START."""
    return written_folder(tmp_path / "fresh", files, folders=5)


def reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_a_child_walks_a_folder_no_cache_knows_and_reads_the_newest_heads(tmp_path):
    root = fresh_folder(tmp_path)
    cache = str(tmp_path / "cache")
    first = start([root], cache_dir=cache, page=50)
    assert first is not None and first.walking and first.remembered is None
    pid = first.child.pid
    found = first.take(timeout=30)
    assert found is not None and not first.walking and reaped(pid)
    rows, count = found
    assert count == 120
    assert [os.path.basename(info.path) for info in rows[:3]] == ["run-0119.jsonl", "run-0118.jsonl", "run-0117.jsonl"]
    read = [info for info in rows if info.known]
    assert len(read) == 50 and read == rows[:50]  # a page read, newest first
    here = Catalog(str(tmp_path / "other-cache"))  # the same facts as this process reads them
    assert read == [here.read(info.path) for info in read]
    assert not os.path.exists(os.path.join(cache, "catalog.json"))  # the child saves nothing: the walk will


def test_a_remembered_head_is_taken_as_it_is_and_no_child_is_forked(tmp_path, monkeypatch):
    cache = str(tmp_path / "cache")
    root = remembered_folder(tmp_path, cache)
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked with a head remembered"))
    first = start([root], cache_dir=cache)
    assert first is not None and not first.walking
    assert first.remembered == Catalog(cache).head([root])
    assert first.remembered is not None and first.remembered[1] == FILES
    assert first.take(timeout=0) is None  # (nothing to take: the head is there)


def test_a_child_killed_or_sending_what_is_not_a_head_gives_nothing(tmp_path, monkeypatch):
    root = fresh_folder(tmp_path, files=3)
    monkeypatch.setattr(first_rows, "_first_rows", lambda *args: b'{"version": 1, "heads": [["/etc"], 1, {"/etc/x"')
    first = start([root], cache_dir=str(tmp_path / "cache"))
    assert first is not None and first.take(timeout=30) is None  # (not a head: the picker walks itself)
    monkeypatch.setattr(first_rows, "_first_rows", lambda *args: (time.sleep(60), b"")[1])
    first = start([root], cache_dir=str(tmp_path / "cache"))
    assert first is not None
    pid = first.child.pid
    assert first.take(timeout=0.05) is None and first.walking  # not done in time: still walking
    os.kill(pid, 9)
    assert first.take(timeout=30) is None and not first.walking and reaped(pid)


def test_a_take_waiting_in_a_thread_ends_when_the_picker_stops_the_child(tmp_path, monkeypatch):
    root = fresh_folder(tmp_path, files=3)
    monkeypatch.setattr(first_rows, "_first_rows", lambda *args: (time.sleep(60), b"")[1])
    first = start([root], cache_dir=str(tmp_path / "cache"))
    assert first is not None
    pid, taken = first.child.pid, []
    taker = threading.Thread(target=lambda: taken.append(first.take()))
    taker.start()
    first.close()  # (from another thread while one takes: it only stops the child)
    taker.join(30)
    assert not taker.is_alive() and taken == [None] and reaped(pid)
    first.close()  # (again: nothing left to do)


def test_no_child_for_a_remote_folder_nor_beside_another_thread(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked"))
    assert start(["s3://bucket/sessions"], cache_dir=str(tmp_path / "cache")) is None
    monkeypatch.undo()
    root, running = fresh_folder(tmp_path, files=3), threading.Event()
    other = threading.Thread(target=running.wait)
    other.start()
    try:
        monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked beside another thread"))
        assert start([root], cache_dir=str(tmp_path / "cache")) is None  # (the picker walks in its thread)
    finally:
        running.set()
        other.join()
