"""`session-tui resume` against hostile session files, in real subprocesses
with stand-in clients that record their argv: ids that would climb out of
the client's folders or read as flags are refused in one line; a symlinked
folder escaping its root is refused; nothing is written unasked; the dry
run's client is killed with its whole process group and, where the kernel
allows, cannot reach anything but loopback; a planted dry-runs.json is no
verdict."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from session_tui.actions.sealed_run import SEALED, seal_prefix
from session_tui.model.cache_dir import CACHE_ENV
from session_tui.model.formats.claude.client import claude_project
from session_tui.model.resume.verdicts import NAME, remember, verdict_on
from tests.support import SAMPLES

from .stand_ins import PI, stand_in
from .test_resume_cli import CLAUDE, CLAUDE_CWD, CODEX, CRASHED_CLAUDE, RECORDED, resume, stand_in_claude

VICTIM = "8463c716-a2ea-4c14-9efa-87158ebd9f20"


def with_session_id(source: Path, folder: Path, session_id: str, name: str = "copy.jsonl") -> Path:
    """A copy of the Claude Code sample whose records all carry ``session_id``
    (under a name that is no UUID, so the records' id is the one taken)."""
    lines = []
    for line in source.read_text().splitlines():
        record = json.loads(line)
        if "sessionId" in record:
            record["sessionId"] = session_id
        lines.append(json.dumps(record))
    path = folder / name
    path.write_text("\n".join(lines) + "\n")
    return path


def with_header_id(source: Path, folder: Path, new_id: str, name: str) -> Path:
    lines = source.read_text().splitlines()
    header = json.loads(lines[0])
    (header["payload"] if "payload" in header else header)["id"] = new_id
    path = folder / name
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    return path


def one_line_refusal(done) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "refused" in done.stderr


BAD_IDS = [
    f"../../../.claude/projects/-work-proj/{VICTIM}",
    f"/tmp/x/{VICTIM}",
    f"{VICTIM}\nrm -rf ~",
    f"{VICTIM}\x00",
    "--dangerously-skip-permissions",
    VICTIM.upper() + "/..",
]


@pytest.mark.parametrize("bad", BAD_IDS, ids=["traversal", "absolute", "newline", "nul", "flag", "dotdot"])
def test_a_claude_session_id_that_is_no_uuid_is_refused_by_resume_and_the_dry_run(tmp_path, bad):
    home = tmp_path / "home"
    victim = home / ".claude" / "projects" / "-work-proj" / f"{VICTIM}.jsonl"
    victim.parent.mkdir(parents=True)
    victim.write_text("the user's own session\n")
    source = with_session_id(CRASHED_CLAUDE, tmp_path, bad)
    script, record = stand_in_claude(tmp_path, RECORDED)
    dry = resume(str(source), "--dry-run", "--client-bin", str(script), home=home)
    one_line_refusal(dry)
    assert not record.exists()  # the client never ran
    folder = home / ".claude" / "projects" / claude_project(CLAUDE_CWD)
    folder.mkdir(parents=True)
    in_place = shutil.copy(source, folder)
    for args in ([str(source), "--write"], [in_place, "--exec"]):
        one_line_refusal(resume(*args, home=home, path=f"{script.parent}:{os.environ['PATH']}"))
    assert victim.read_text() == "the user's own session\n" and not record.exists()
    assert sorted(p.name for p in folder.iterdir()) == ["copy.jsonl"]  # no fork written


@pytest.mark.parametrize("bad", ["-x", "../../etc/passwd", "019cebe5-7fec-77d8-9548-5cabe223553b\n"])
def test_a_codex_thread_id_that_is_no_uuid_is_refused(tmp_path, bad):
    source = with_header_id(CODEX, tmp_path, bad, CODEX.name)
    codex_home = tmp_path / ".codex" / "sessions" / "2026" / "03" / "14"
    codex_home.mkdir(parents=True)
    placed = shutil.copy(source, codex_home)
    one_line_refusal(resume(placed, home=tmp_path))
    one_line_refusal(resume(str(source), "--write", home=tmp_path))


def test_codex_runs_with_its_id_after_double_dash_and_exec_prints_the_argv(tmp_path):
    day = tmp_path / ".codex" / "sessions" / "2026" / "03" / "14"
    day.mkdir(parents=True)
    lines = CODEX.read_text().splitlines()
    header = json.loads(lines[0])
    header["payload"]["cwd"] = str(tmp_path)
    placed = day / CODEX.name
    placed.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    record = tmp_path / "ran.json"
    bin_dir = tmp_path / "bin"
    stand_in(bin_dir, "codex", f"json.dump(sys.argv[1:], open({str(record)!r}, 'w'))")
    done = resume(str(placed), "--exec", home=tmp_path, path=f"{bin_dir}:{os.environ['PATH']}")
    assert done.returncode == 0, done.stderr
    assert json.loads(record.read_text()) == ["resume", "--", "019cebe5-7fec-77d8-9548-5cabe223553b"]
    assert f"running: {bin_dir / 'codex'} resume -- 019cebe5-7fec-77d8-9548-5cabe223553b" in done.stderr


def test_a_pi_file_named_like_a_flag_goes_to_pi_as_an_absolute_path(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    lines = PI.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["cwd"] = str(project)
    (tmp_path / "--help.jsonl").write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    record = tmp_path / "ran.json"
    bin_dir = tmp_path / "bin"
    stand_in(bin_dir, "pi", f"json.dump(sys.argv[1:], open({str(record)!r}, 'w'))")
    done = resume("--exec", "--", "--help.jsonl", home=tmp_path, path=f"{bin_dir}:{os.environ['PATH']}")
    assert done.returncode == 0, done.stderr
    argv = json.loads(record.read_text())
    assert argv == ["--session", str(tmp_path / "--help.jsonl")] and not any(a.startswith("-") for a in argv[1:])


def test_a_symlinked_project_folder_escaping_claudes_root_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    projects = tmp_path / ".claude" / "projects"
    projects.mkdir(parents=True)
    (projects / claude_project(CLAUDE_CWD)).symlink_to(outside)
    source = shutil.copy(CLAUDE, tmp_path)
    done = resume(source, "--write", home=tmp_path)
    one_line_refusal(done)
    assert "outside" in done.stderr and list(outside.iterdir()) == []


def test_resume_writes_nothing_unasked_and_says_where_it_wrote(tmp_path):
    source = shutil.copy(CLAUDE, tmp_path)
    said = resume(source, home=tmp_path)
    assert said.returncode == 0 and "would write:" in said.stdout and not (tmp_path / ".claude").exists()
    wrote = resume(source, "--write", home=tmp_path)
    assert wrote.returncode == 0, wrote.stderr
    where = next(line for line in wrote.stdout.splitlines() if line.startswith("wrote into: "))
    assert Path(where.removeprefix("wrote into: ")).is_file()
    assert Path(where.removeprefix("wrote into: ")).parent == tmp_path / ".claude" / "projects" / claude_project(
        CLAUDE_CWD
    )


# -- the dry run, sealed ----------------------------------------------------------------

HANGS_WITH_A_CHILD = """
import subprocess, time
if "--version" in sys.argv:
    print("2.1.328 (Claude Code)")
    sys.exit(0)
child = subprocess.Popen(["sleep", "300"])
open({pids!r}, "w").write(str(child.pid))
time.sleep(300)
"""


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1].startswith("Z")  # (a zombie is gone, only not yet reaped)
    except FileNotFoundError:
        return True


def test_a_hanging_client_is_killed_with_its_children_at_the_timeout(tmp_path):
    pids = tmp_path / "child.pid"
    script = stand_in(tmp_path / "bin", "claude", HANGS_WITH_A_CHILD.format(pids=str(pids)))
    done = resume(str(CRASHED_CLAUDE), "--dry-run", "--timeout", "3", "--client-bin", str(script), home=tmp_path)
    assert done.returncode == 2 and "did not finish within 3 s" in done.stderr, done.stderr
    child = int(pids.read_text())
    deadline = time.monotonic() + 10
    while not gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(child), f"the client's child {child} outlived the dry run"


REACHES_OUT = """
import errno, socket, urllib.request
if "--version" in sys.argv:
    print("2.1.328 (Claude Code)")
    sys.exit(0)
tried = {}
for host in ("192.0.2.1", "1.1.1.1"):
    s = socket.socket()
    s.settimeout(5)
    tried[host] = s.connect_ex((host, 443))
    s.close()
json.dump(tried, open(TRIED, "w"))
sent = json.load(open(REQUEST))
body = json.dumps({"model": sent["model"], "messages": sent["messages"], "max_tokens": 100}).encode()
call = urllib.request.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", body)
print(urllib.request.urlopen(call).read().decode())
"""


def test_inside_the_namespace_only_loopback_is_reachable(tmp_path):
    if seal_prefix() is None:
        pytest.skip("no network namespace here (unshare -n / -rn not allowed): the dry run is unsealed")
    tried = tmp_path / "tried.json"
    names = f"TRIED = {str(tried)!r}\nREQUEST = {str(RECORDED)!r}\n"
    script = stand_in(tmp_path / "bin", "claude", names + REACHES_OUT)
    done = resume(str(CRASHED_CLAUDE), "--dry-run", "--json", "--client-bin", str(script), home=tmp_path)
    assert done.returncode == 0, done.stderr + done.stdout
    out = json.loads(done.stdout)
    assert out["sealed"] == SEALED and out["accepted"] is True  # the fake API on loopback was reached
    assert set(json.loads(tried.read_text()).values()) <= {errno.ENETUNREACH, errno.EHOSTUNREACH}


# -- the verdicts kept ------------------------------------------------------------------


def planted(cache: Path, path: Path, entry: dict, mode: int = 0o600) -> None:
    cache.mkdir(exist_ok=True)
    store = cache / NAME
    store.write_text(json.dumps({str(path.resolve()): entry}))
    store.chmod(mode)


def good_entry(path: Path) -> dict:
    st = path.stat()
    return {
        "client": "Claude Code",
        "version": "2.1.328",
        "accepted": True,
        "message": "",
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "at": 1.0,
    }


def test_only_the_users_own_dry_runs_file_gives_a_verdict(tmp_path):
    session = Path(shutil.copy(CRASHED_CLAUDE, tmp_path))
    cache = tmp_path / "cache"
    planted(cache, session, good_entry(session))
    assert verdict_on(str(session), str(cache)) is not None  # the user's own, 0600
    planted(cache, session, good_entry(session), mode=0o644)
    assert verdict_on(str(session), str(cache)) is None  # writable or readable by others: not kept as ours
    if os.geteuid() == 0:
        planted(cache, session, good_entry(session))
        os.chown(cache / NAME, 4242, 4242)
        assert verdict_on(str(session), str(cache)) is None  # another user's
    (cache / NAME).unlink()
    (cache / NAME).symlink_to(tmp_path / "elsewhere.json")
    (tmp_path / "elsewhere.json").write_text(json.dumps({str(session.resolve()): good_entry(session)}))
    (tmp_path / "elsewhere.json").chmod(0o600)
    assert verdict_on(str(session), str(cache)) is None  # a link is not followed


@pytest.mark.parametrize(
    "change",
    [
        {"accepted": "yes"},
        {"size": "12"},
        {"size": True},
        {"mtime_ns": 1.5},
        {"message": None},
        {"extra": 1},
        {"client": ["Claude Code"]},
    ],
)
def test_an_entry_of_the_wrong_shape_is_no_verdict(tmp_path, change):
    session = Path(shutil.copy(CRASHED_CLAUDE, tmp_path))
    cache = tmp_path / "cache"
    planted(cache, session, {**good_entry(session), **change})
    assert verdict_on(str(session), str(cache)) is None


def test_a_bad_dry_runs_file_is_replaced_by_the_users_own_verdict(tmp_path):
    session = Path(shutil.copy(CRASHED_CLAUDE, tmp_path))
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / NAME).write_text("[1, 2")
    assert verdict_on(str(session), str(cache)) is None
    remember(str(session), "Claude Code", "2.1.328", False, "no", str(cache))
    found = verdict_on(str(session), str(cache))
    assert found is not None and not found.accepted and (cache / NAME).stat().st_mode & 0o077 == 0


def test_check_does_not_take_a_planted_verdict(tmp_path):
    session = Path(shutil.copy(SAMPLES / "claude" / CRASHED_CLAUDE.name, tmp_path))
    cache = tmp_path / "cache"
    planted(cache, session, good_entry(session), mode=0o666)
    env = {**os.environ, CACHE_ENV: str(cache)}
    done = subprocess.run(
        [sys.executable, "-m", "session_tui", "check", str(session)], capture_output=True, text=True, env=env
    )
    assert "accepts the file as it is (dry run)" not in done.stdout + done.stderr


# -- the real clients under strace ------------------------------------------------------

REAL = {
    "claude": CRASHED_CLAUDE,
    "codex": CODEX,
    "pi": SAMPLES / "pi" / "2026-03-16T08-05-47-300Z_dbdb84be-32de-4686-9dc8-d5ef821477fb.jsonl",
}
#: a socket call to an address: connect / sendto / sendmsg naming an AF_INET(6) address
ADDRESSED = re.compile(
    r"\b(connect|sendto|sendmsg)\(.*?sa_family=AF_INET6?\b.*?(?:inet_addr|inet_pton)\([^)]*\"([^\"]+)\""
)
LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}


def real_client(name: str) -> str | None:
    found = shutil.which(name)
    clients = Path(os.environ.get("ORACLE_CLIENTS_DIR", "/tmp/clients")) / "node_modules" / ".bin" / name
    return found or (str(clients) if os.access(clients, os.X_OK) else None)


@pytest.mark.clients
@pytest.mark.parametrize("name", sorted(REAL))
def test_a_real_clients_dry_run_reaches_nothing_but_loopback_under_strace(tmp_path, name):
    program = real_client(name)
    if program is None:
        pytest.skip(f"{name} is not installed (/work/shared/oracle/install_clients.sh)")
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (apt-get install strace)")
    if seal_prefix() is None:
        pytest.skip("no network namespace here: the dry run is unsealed, update checks off by environment only")
    log = tmp_path / "strace.log"
    done = subprocess.run(
        [strace, "-f", "-qq", "-e", "trace=network", "-o", str(log), sys.executable, "-m", "session_tui", "resume"]
        + ["--dry-run", "--json", "--timeout", "120", "--client-bin", program, str(REAL[name])],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["sealed"] == SEALED
    reached = []
    for line in log.read_text().splitlines():
        found = ADDRESSED.search(line)
        if found and found.group(2) not in LOOPBACK and " = -1 " not in line:
            reached.append(line)
    assert reached == [], f"{name} reached outside loopback: {reached[:3]}"


def test_without_a_namespace_the_dry_run_says_it_is_unsealed(tmp_path):
    script, _ = stand_in_claude(tmp_path, RECORDED)
    done = resume(  # (no unshare on this PATH)
        str(CRASHED_CLAUDE), "--dry-run", "--json", "--client-bin", str(script), home=tmp_path, path=str(script.parent)
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["sealed"].startswith("unsealed: update checks and telemetry turned off by environment")
    assert out["accepted"] is True
