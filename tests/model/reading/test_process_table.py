"""The process table read ahead in a forked child (``open_writers.prefetch``)
is the table this process reads itself: the same processes, the same
session files held open for writing, this process and the child left out."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from session_tui.model import forked
from session_tui.model.reading import open_writers

pytestmark = pytest.mark.skipif(not open_writers.can_tell(), reason="the process table is read from /proc (Linux)")

HOLDER = "import sys, time; f = open(sys.argv[1], 'a'); print('open', flush=True); time.sleep(60)"


@pytest.fixture
def fresh(monkeypatch):
    """No table read yet in this process; forks allowed (the suite's workers have their threads)."""
    monkeypatch.setattr(open_writers, "_table", None)
    monkeypatch.setattr(open_writers, "_reading", None)
    monkeypatch.setattr(forked, "alone", lambda: True)


def test_the_table_a_child_reads_ahead_is_the_one_read_here(tmp_path, fresh):
    session = tmp_path / "s.jsonl"
    session.write_bytes(b"{}\n")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(session)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        open_writers.prefetch()
        reading = open_writers._reading
        assert reading is not None
        child = reading.pid
        table = open_writers.process_table()
        assert table is not None and open_writers._reading is None and reading.ended
        here = open_writers._read_table()
        pids = {p.pid for p in table.processes}
        assert holder.pid in pids and os.getpid() not in pids and child not in pids
        # (others change between the two reads: a server's process title, a process ending)
        assert [p for p in table.processes if p.pid == holder.pid] == [p for p in here.processes if p.pid == holder.pid]
        st = os.stat(session)
        assert table.writers[(st.st_dev, st.st_ino)] == here.writers[(st.st_dev, st.st_ino)]
        assert [h.pid for h in table.writers[(st.st_dev, st.st_ino)]] == [holder.pid]
    finally:
        holder.kill()
        holder.wait()


def test_a_child_that_sends_nothing_leaves_the_table_to_be_read_here(fresh, monkeypatch):
    monkeypatch.setattr(open_writers, "_sent", lambda parent: os._exit(3))
    open_writers.prefetch()
    assert open_writers._reading is not None
    table = open_writers.process_table()
    assert table is not None and os.getpid() not in {p.pid for p in table.processes}
    assert open_writers._reading is None


def test_a_process_that_ends_while_the_table_is_read_is_not_in_it(monkeypatch):
    # (its command line read, then gone: kept with no directory, a stand-in client that ended under
    # another test's look made the liveness "cannot tell" and a crashed session "working" by the time rule)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        readlink = os.readlink
        gone = os.path.join(open_writers.PROC, str(other.pid), "cwd")
        unreadable = os.path.join(open_writers.PROC, "1", "cwd")

        def ended_between_reads(path, *args, **kwargs):
            if path == gone:
                raise FileNotFoundError(path)
            if path == unreadable:
                raise PermissionError(path)
            return readlink(path, *args, **kwargs)

        monkeypatch.setattr(os, "readlink", ended_between_reads)
        table = open_writers._read_table()
        assert other.pid not in {p.pid for p in table.processes}
        assert [p.cwd for p in table.processes if p.pid == 1] in ([None], [])  # (another user's: kept, no directory)
    finally:
        other.kill()
        other.wait()
