"""The store: lock, liveness, appends, backed-up rewrites. Real files, real
subprocesses for the lock and for concurrent writers."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time

import orjson
import pytest

from session_tui.model.session.context import context_at
from session_tui.model.session.problems import find_problems
from session_tui.model.session.session import open_session
from session_tui.store import Fingerprint, Refused, Store, TreeSessionStore
from session_tui.store.safe_files import create_exclusive
from tests.builders.tree import chain, fresh, message
from tests.support import REPO

HOLD_LOCK = r"""
import fcntl, os, sys, time
fd = os.open(sys.argv[1] + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
"""


def old(path) -> None:
    """Make the file look untouched for a while (no live writer)."""
    past = time.time() - 60
    os.utime(path, (past, past))


def test_append_is_whole_lines_after_a_newline(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(2)[:-1])  # a complete last record lacking only its newline
    old(path)
    Store(path).append_lines([orjson.loads(message("x", "m1")), orjson.loads(message("y", "x"))])
    data = path.read_bytes()
    assert data.endswith(b"\n") and data.count(b"\n") == 5
    s = open_session(path)
    assert find_problems(s) == [] and s.entries == 4


def test_append_refuses_onto_a_torn_tail(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(2) + b'{"type":"mess')
    old(path)
    before = path.read_bytes()
    with pytest.raises(Refused, match="torn line"):
        Store(path).append_lines([{"type": "active_leaf", "activeLeafId": "m0", "createdAt": "x"}])
    assert path.read_bytes() == before


def test_refuses_while_another_process_holds_the_lock(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(2))
    old(path)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(path), "5"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(Refused, match="lock held"):
            Store(path, force=True).append_lines([{"type": "x"}])
    finally:
        holder.kill()
        holder.wait()
    Store(path).append_lines([{"type": "x"}])  # free again


def test_refuses_a_file_written_within_stuck_after_unless_forced(tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")
    path = tmp_path / "s.jsonl"
    path.write_bytes(fresh(chain(2)))  # (entries stamped now: an agent wrote them; a copy of old ones is not live)
    with pytest.raises(Refused, match="live agent"):
        Store(path).append_lines([{"type": "x"}])
    Store(path, force=True).append_lines([{"type": "x"}])


def test_a_plan_is_refused_when_the_file_changed_since(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(2))
    old(path)
    plan = Fingerprint.of(path)
    with open(path, "ab") as f:
        f.write(message("m2", "m1"))
    old(path)
    with pytest.raises(Refused, match="changed since"):
        Store(path).append_lines([{"type": "x"}], expected=plan)


def test_rewrite_backs_up_keeps_mode_and_replaces_atomically(tmp_path):
    path = tmp_path / "s.jsonl"
    original = chain(3)
    path.write_bytes(original)
    os.chmod(path, 0o640)
    old(path)
    inode = path.stat().st_ino
    backup = Store(path).rewrite(chain(1), expected=Fingerprint.of(str(path))).backup
    assert path.read_bytes() == chain(1)
    assert open(backup, "rb").read() == original
    assert stat.S_IMODE(path.stat().st_mode) == 0o640 and stat.S_IMODE(os.stat(backup).st_mode) == 0o640
    assert path.stat().st_ino != inode  # a new file took its place
    assert not [p for p in os.listdir(tmp_path) if ".tmp-" in p]


def test_never_rewrites_through_a_symlink_or_over_an_existing_file(tmp_path):
    target = tmp_path / "real.jsonl"
    target.write_bytes(chain(1))
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    old(target)
    with pytest.raises(Refused, match="is a symbolic link"):
        Store(link).rewrite(b"", expected=Fingerprint.of(str(link)))
    with pytest.raises(Refused, match="already exists"):
        create_exclusive(str(target), b"x")
    with pytest.raises(Refused, match="already exists"):
        create_exclusive(str(link), b"x")
    assert target.read_bytes() == chain(1)
    create_exclusive(str(tmp_path / "new.jsonl"), b"{}\n")
    assert stat.S_IMODE((tmp_path / "new.jsonl").stat().st_mode) == 0o600


def test_session_store_api(tmp_path):
    path = tmp_path / "agent.jsonl"
    store = TreeSessionStore.create(path, cwd="/work", model="m")
    system = store.append_message({"role": "system", "content": "S"})
    user = store.append_message({"role": "user", "content": "hi"})
    store.append_message({"role": "assistant", "content": "first try"})
    store.set_active_leaf(user)
    second = store.append_message({"role": "assistant", "content": "second try"})
    assert [m["content"] for m in store.messages_for_active_branch()] == ["S", "hi", "second try"]
    store.append_summary("SUM", from_id=system, to_id=user, tokens_before=1234)
    assert [m["content"] for m in store.messages_for_active_branch()] == ["SUM", "second try"]
    s = open_session(path)
    assert s.tree.branch_points == 1 and s.tree.summaries == 1 and find_problems(s) == []
    fork = store.fork(second, tmp_path / "fork.jsonl")
    assert fork.session.header["parentSession"]["entryId"] == second
    assert [m["content"] for m in fork.messages_for_active_branch()] == ["S", "hi", "second try"]
    with pytest.raises(Refused, match="already exists"):
        store.fork(second, tmp_path / "fork.jsonl")
    with pytest.raises(Refused):
        store.set_active_leaf("no-such-entry")
    with pytest.raises(Refused):
        TreeSessionStore.create(path)


CONCURRENT_WRITER = r"""
import sys, time
sys.path.insert(0, sys.argv[3])
from session_tui.store import Refused, TreeSessionStore
store = TreeSessionStore.open(sys.argv[1])
done = 0
while done < int(sys.argv[2]):
    try:
        store.append_message({"role": "user", "content": f"writer {sys.argv[4]} #{done}"}, parent=None)
        done += 1
    except Refused:
        time.sleep(0.001)
"""


def test_concurrent_writers_never_tear_or_fuse_a_line(tmp_path):
    path = tmp_path / "shared.jsonl"
    TreeSessionStore.create(path)
    writers = [
        subprocess.Popen([sys.executable, "-c", CONCURRENT_WRITER, str(path), "60", str(REPO), str(n)])
        for n in range(3)
    ]
    for w in writers:
        assert w.wait(timeout=120) == 0
    s = open_session(path)
    assert s.entries == 180 and find_problems(s) == []
    assert path.read_bytes().count(b"\n") == 181


AGENT = r"""
import os, sys, time
sys.path.insert(0, sys.argv[3])
from session_tui.model.session.session import open_session
from session_tui.store import TreeSessionStore, edits
from session_tui.model.session.context import tool_issues
path, turns = sys.argv[1], int(sys.argv[2])
if not os.path.exists(path):
    TreeSessionStore.create(path, model="scripted")
with open_session(path, "tree") as session:  # resume: repair what a crash left
    if session.lines.torn:
        edits.apply(edits.plan_drop_torn(session), force=True)
with open_session(path, "tree") as session:
    if tool_issues(session)[0]:
        edits.apply(edits.plan_close(session), force=True)
store = TreeSessionStore.open(path)
for turn in range(turns):
    store.append_message({"role": "user", "content": f"turn {turn}"})
    call = f"call_{os.getpid()}_{turn}"
    store.append_message({"role": "assistant", "content": None, "tool_calls": [
        {"id": call, "type": "function", "function": {"name": "run", "arguments": "{}"}}]})
    time.sleep(0.002)
    store.append_message({"role": "tool", "tool_call_id": call, "content": "ok"})
    store.append_message({"role": "assistant", "content": f"done {turn}"})
print("finished", flush=True)
"""


def test_an_agent_killed_mid_run_continues_and_checks_clean(tmp_path):
    path = tmp_path / "agent.jsonl"
    first = subprocess.Popen([sys.executable, "-c", AGENT, str(path), "100000", str(REPO)])
    deadline = time.time() + 30
    while time.time() < deadline and (not path.exists() or path.stat().st_size < 20_000):
        time.sleep(0.02)
    first.send_signal(9)
    first.wait()
    second = subprocess.run(
        [sys.executable, "-c", AGENT, str(path), "5", str(REPO)], capture_output=True, text=True, timeout=60
    )
    assert second.returncode == 0 and "finished" in second.stdout, second.stderr
    s = open_session(path)
    assert find_problems(s) == [] and s.entries > 40
    assert context_at(s)[-1] == {"role": "assistant", "content": "done 4"}


def test_a_file_swapped_for_a_symlink_after_planning_is_refused_before_any_write(tmp_path):
    from session_tui.store import edits

    path, moved = tmp_path / "s.jsonl", tmp_path / "moved.jsonl"
    path.write_bytes(chain(2) + b'{"type":"mess')
    old(path)
    with open_session(path) as session:
        plans = [edits.plan_set_leaf(session, 0), edits.plan_drop_torn(session)]
    os.rename(path, moved)
    path.symlink_to(moved)  # the same file (inode, size, mtime) behind a symlink
    for plan in plans:
        for force in (False, True):
            with pytest.raises(Refused, match="s.jsonl: is a symbolic link; not followed"):
                edits.apply(plan, force=force)
    path.unlink()
    path.symlink_to(path.name)  # a loop
    with pytest.raises(Refused, match="is a symbolic link"):
        edits.apply(plans[0])
    path.unlink()  # gone
    with pytest.raises(Refused, match=r"changed since the edit was planned \(No such file"):
        edits.apply(plans[0])
    assert moved.read_bytes() == chain(2) + b'{"type":"mess'
    assert sorted(os.listdir(tmp_path)) == ["moved.jsonl", "s.jsonl.lock"]  # no fragment saved aside


def test_appends_and_locks_never_go_through_a_symlink(tmp_path):
    target = tmp_path / "real.jsonl"
    target.write_bytes(chain(1))
    old(target)
    (tmp_path / "s.jsonl").symlink_to(target)
    with pytest.raises(Refused, match="s.jsonl: is a symbolic link"):
        Store(tmp_path / "s.jsonl").append_lines([{"type": "x"}])
    (tmp_path / "t.jsonl").write_bytes(chain(1))
    old(tmp_path / "t.jsonl")
    (tmp_path / "t.jsonl.lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(Refused, match="t.jsonl.lock: is a symbolic link"):
        Store(tmp_path / "t.jsonl").append_lines([{"type": "x"}])
    assert target.read_bytes() == chain(1) and not (tmp_path / "elsewhere").exists()


def test_a_file_quiet_for_longer_than_stuck_after_is_written(tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "300")
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(2))
    old = time.time() - 301
    os.utime(path, (old, old))
    Store(path).append_lines([{"type": "x"}])
