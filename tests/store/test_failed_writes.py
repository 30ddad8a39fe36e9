"""Writes the system refuses (a full disk, a file size limit, a short
write), ownership and permissions: a failed edit leaves the file, and its
folder, byte-identical; a rewrite keeps owner, group and mode. The edits run
as real processes (the CLI, or a forked child for another user)."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from session_tui.model.session.problems import find_problems
from session_tui.model.session.session import open_session
from session_tui.store import Fingerprint, Refused, Store, edits
from tests.builders.tree import call, chain, header, message
from tests.support import REPO


def aged(path: Path) -> None:
    past = time.time() - 60
    os.utime(path, (past, past))


def cli(*args: str, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """session-tui in a process of its own, files no bigger than ``limit`` bytes."""

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "session_tui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        preexec_fn=limited if limit is not None else None,
    )


def folder(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.parent.iterdir()) if not p.name.endswith(".lock")}


def damaged(path: Path) -> None:
    path.write_bytes(chain(30) + b'{"type":"message","id":"broken\n' + call("a1", "m29", "c1"))
    aged(path)


@pytest.mark.parametrize(
    "args",
    [("set-leaf", "{path}", "m3", "--force"), ("fix", "{path}", "--close", "--force")],
    ids=["set-leaf", "fix-close"],
)
def test_an_append_cut_short_by_the_size_limit_leaves_the_file_byte_identical(tmp_path, args):
    path = tmp_path / "s.jsonl"
    damaged(path)
    before = folder(path)
    done = cli(*(a.format(path=path) for a in args), limit=path.stat().st_size + 40)  # 40 bytes fit: a short write
    assert done.returncode == 2, done.stdout + done.stderr
    assert "the file is as it was" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
    assert folder(path) == before


def test_a_rewrite_the_size_limit_stops_leaves_no_temp_backup_or_saved_lines(tmp_path):
    path = tmp_path / "s.jsonl"
    damaged(path)
    before = folder(path)
    done = cli("fix", str(path), "--drop-bad", "--force", limit=path.stat().st_size - 200)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "the file is as it was" in done.stderr and "Traceback" not in done.stderr
    assert folder(path) == before  # no .tmp-, .bak-, .bad- left beside it
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 64 KiB tmpfs, or a skip saying why none can be mounted here."""
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    if not shutil.which("mount") or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def test_a_full_disk_during_an_append_leaves_the_file_byte_identical(small_tmpfs):
    path = small_tmpfs / "s.jsonl"
    body = chain(10)
    pad = 4096 * 3 - len(body) - len(message("m10", "m9", content=""))
    path.write_bytes(body + message("m10", "m9", content="p" * pad))  # whole pages: no slack to write into
    assert path.stat().st_size % 4096 == 0
    filler = small_tmpfs / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:  # full
        pass
    finally:
        os.close(fd)
    aged(path)
    before = path.read_bytes()
    done = cli("set-leaf", str(path), "m3", "--force")
    assert done.returncode == 2 and "No space left" in done.stderr, done.stdout + done.stderr
    assert "the file is as it was" in done.stderr
    assert path.read_bytes() == before


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_rewrite_by_root_keeps_the_owner_group_and_mode_of_the_session(tmp_path):
    path = tmp_path / "s.jsonl"
    damaged(path)
    os.chown(path, 1234, 2345)
    os.chmod(path, 0o640)
    done = cli("fix", str(path), "--drop-bad", "--force")
    assert done.returncode == 0, done.stderr
    for p in [path, *tmp_path.glob("s.jsonl.bak-*"), *tmp_path.glob("s.jsonl.bad-*")]:
        st = p.stat()
        assert (st.st_uid, st.st_gid) == (1234, 2345), p
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert find_problems(open_session(path)) == [] or b"broken" not in path.read_bytes()


def as_user(uid: int, action) -> int:
    """Run ``action`` in a forked child as ``uid``; its exit status: 0 done,
    1 refused, 2 any other error."""
    pid = os.fork()
    if pid == 0:  # the child: never returns to pytest
        code = 2
        try:
            os.setgid(uid)
            os.setuid(uid)
            action()
            code = 0
        except Refused:
            code = 1
        except BaseException as exc:
            print(f"as uid {uid}: {exc!r}", file=sys.stderr)
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def test_a_user_who_may_not_write_the_file_cannot_replace_it_through_its_folder():
    tmp_path = Path(tempfile.mkdtemp(prefix="session-tui-perm-"))  # a folder another user can reach
    path = tmp_path / "s.jsonl"
    damaged(path)
    os.chmod(tmp_path, 0o777)  # the folder lets anyone replace the file
    with open_session(path) as session:
        plan = edits.plan_drop_bad(session)
    before = folder(path)
    if os.geteuid() == 0:
        os.chmod(path, 0o644)  # root's file, others may read it
        assert as_user(1234, lambda: edits.apply(plan, force=True)) == 1
    else:
        os.chmod(path, 0o444)
        with pytest.raises(Refused, match="may not write"):
            edits.apply(plan, force=True)
    assert folder(path) == before
    shutil.rmtree(tmp_path)


HOLD_OPEN = r"""
import json, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
print("open", flush=True)
sys.stdin.readline()
message = {"role": "user", "content": "late"}
late = {"type": "message", "id": "late", "parentId": None, "createdAt": "x", "message": message}
os.write(fd, json.dumps(late, separators=(",", ":")).encode() + b"\n")
os.close(fd)
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="open writers are found through /proc (Linux)")
def test_a_rewrite_is_refused_while_a_writer_keeps_the_file_open_even_forced(tmp_path):
    path = tmp_path / "s.jsonl"
    damaged(path)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_OPEN, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout and holder.stdout.readline().strip() == "open"
        done = cli("fix", str(path), "--drop-bad", "--force")
        assert done.returncode == 1 and "held open for writing by python" in done.stderr, done.stderr
        assert f"pid {holder.pid}" in done.stderr
        assert holder.stdin
        holder.stdin.write("go\n")
        holder.stdin.flush()
        assert holder.wait(timeout=30) == 0
    finally:
        holder.kill()
    assert path.read_bytes().endswith(b'"content":"late"}}\n')  # the writer's line, where it wrote it
    aged(path)
    assert cli("fix", str(path), "--drop-bad").returncode == 0  # once it let go


def test_an_append_through_the_store_is_refused_only_by_a_torn_tail_not_by_an_open_reader(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(header() + message("m0", None))
    aged(path)
    with open(path, "rb"):  # a reader (this process, a viewer) never blocks an edit
        Store(path).append_lines([{"type": "active_leaf", "activeLeafId": "m0", "createdAt": "x"}])
    assert Fingerprint.of(str(path)).size > 0
