"""The dry run and the resume of an opencode 1.18.33 session (a session of
an SQLite database, ``…/opencode.db#ses_…``), with no real client: the
throwaway home holds a copy of the database's files whose session row runs
in the run's directory, the config points opencode at the fake API, the
original's files keep their bytes and times (no -wal or -shm made beside
them); hostile ids are refused; a stand-in opencode that behaves like the
real one (it hangs unless run in the session's directory, it reads its own
copy) posts what opencode 1.18.33 sent, and the verdict agrees."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest

from session_tui.actions.dry_run import DryRunFailed, _setup, main_request
from session_tui.actions.fake_api import FakeAPI
from session_tui.model.checked_paths import ResumeRefused
from session_tui.model.formats.opencode.client import CLIENT, MODEL, PROVIDER
from session_tui.model.session.session import open_session
from tests.support import REPO

from .stand_ins import stand_in

LIVE = REPO / "tests" / "data" / "live-2026-12-03" / "opencode"
CRASH = LIVE / "crash"  # killed mid-call: everything still in the -wal
CRASH_ID = "ses_dc486f233ffeZIh7BHTlbpc31f"
PARALLEL = LIVE / "parallel"  # killed mid parallel call: one file, no -wal
PARALLEL_ID = "ses_dc486d27bffeU947Fr5Hg3CkBH"
RECORDED_DIRECTORY = "/tmp/oc38/par/home/work"  # PARALLEL's session.directory
SENT = REPO / "tests" / "data" / "dry-run" / "opencode-parallel.json"  # what opencode 1.18.33 sent for PARALLEL
URL = "http://127.0.0.1:9"


def copy_of(folder: Path, into: Path) -> Path:
    """A copy of a recorded database's folder (its db, -wal, -shm as recorded); its db."""
    shutil.copytree(folder, into)
    return into / "opencode.db"


def files_of(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file in ``folder``: its bytes and mtime (ns)."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def rows(db: Path, session_id: str) -> tuple[str, int, int]:
    """(directory, messages, parts) of a session in a database that is ours to open (a copy)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        (directory,) = conn.execute("select directory from session where id = ?", (session_id,)).fetchone()
        (messages,) = conn.execute("select count(*) from message where session_id = ?", (session_id,)).fetchone()
        (parts,) = conn.execute("select count(*) from part where session_id = ?", (session_id,)).fetchone()
    finally:
        conn.close()
    return directory, messages, parts


def test_the_home_holds_a_copy_whose_session_runs_in_the_work_directory(tmp_path):
    db = copy_of(CRASH, tmp_path / "user")
    assert {"opencode.db", "opencode.db-wal"} <= {p.name for p in db.parent.iterdir()}  # (a -shm once it was read)
    run, work = tmp_path / "run", tmp_path / "run" / "work"
    work.mkdir(parents=True)
    with open_session(f"{db}#{CRASH_ID}") as session:
        entries = session.tree.count
        before = files_of(db.parent)  # (after the reader's own read: what the dry run's set-up does is checked)
        home = _setup(CLIENT, session, run, work, URL, None)
    assert files_of(db.parent) == before  # bytes and times of db, -wal and -shm untouched, nothing new beside them
    data = run / ".local" / "share" / "opencode"
    assert home.copy == f"{data / 'opencode.db'}#{CRASH_ID}"
    assert (data / "opencode.db").is_file()
    assert rows(data / "opencode.db", CRASH_ID)[0] == str(work)  # the row rewritten, in the copy only
    with open_session(home.copy) as copied:  # the whole session there, the -wal's rows included
        assert copied.tree.count == entries > 10  # (the db alone holds none: 4 kB, all in the -wal)
        assert copied.header["directory"] == str(work)
    assert home.notes == ["the session's directory is the run's directory in the copy (opencode run ends only there)"]
    config = json.loads((run / ".config" / "opencode" / "opencode.json").read_text())
    provider = config["provider"][PROVIDER]
    assert provider["npm"] == "@ai-sdk/openai-compatible" and provider["options"]["baseURL"] == URL + "/v1"
    assert config["model"] == config["small_model"] == f"{PROVIDER}/{MODEL}" and MODEL in provider["models"]
    assert home.env["OPENCODE_DISABLE_MODELS_FETCH"] == "1" and home.env["OPENCODE_DISABLE_AUTOUPDATE"] == "1"
    assert home.env["npm_config_offline"] == "true" and home.env["npm_config_registry"].startswith(URL + "/")


def test_a_database_without_wal_gets_none_beside_it_and_a_given_model(tmp_path):
    db = copy_of(PARALLEL, tmp_path / "user")
    before = files_of(db.parent)  # (before the session is even opened)
    run, work = tmp_path / "run", tmp_path / "run" / "work"
    work.mkdir(parents=True)
    with open_session(f"{db}#{PARALLEL_ID}") as session:
        home = _setup(CLIENT, session, run, work, URL, "some-model")
    assert files_of(db.parent) == before and list(db.parent.iterdir()) == [db]  # no -wal, no -shm made beside it
    copy = run / ".local" / "share" / "opencode" / "opencode.db"
    assert rows(copy, PARALLEL_ID) == (str(work), *rows(PARALLEL / "opencode.db", PARALLEL_ID)[1:])
    config = json.loads((run / ".config" / "opencode" / "opencode.json").read_text())
    assert config["model"] == f"{PROVIDER}/some-model"
    assert list(config["provider"][PROVIDER]["models"]) == ["some-model"]
    assert home.copy.endswith(f"#{PARALLEL_ID}")


def test_the_update_is_made_in_a_copy_only_and_must_change_one_row(tmp_path):
    db = copy_of(PARALLEL, tmp_path / "user")
    before = files_of(db.parent)
    run, work = tmp_path / "run", tmp_path / "run" / "work"
    work.mkdir(parents=True)
    with open_session(f"{db}#{PARALLEL_ID}") as session:
        home = CLIENT.dry_run_home(session, str(run), str(work), URL, None)
        home.updates = [(str(db), *home.updates[0][1:])]  # aimed at the original: refused
        with pytest.raises(DryRunFailed, match="not a copy"):
            _setup_from(home, run)
    assert files_of(db.parent) == before
    with open_session(f"{db}#{PARALLEL_ID}") as session:
        home = CLIENT.dry_run_home(session, str(run / "again"), str(work), URL, None)
        home.updates = [(home.updates[0][0], home.updates[0][1], (str(work), "ses_notInThisDatabase000"))]
        with pytest.raises(DryRunFailed, match="no row to update"):
            _setup_from(home, run / "again")


def _setup_from(home, run: Path):
    """``_setup`` with a home already made (a client that answers it)."""
    client = SimpleNamespace(dry_run_home=lambda *_: home)
    return _setup(client, None, run, run / "work", URL, None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "hostile", ["ses_../../etc", "-rf", "ses_dc486d27bffeU947Fr5Hg3CkBH --yolo", "", "ses_a/b", "ses_x\nrun"]
)
def test_hostile_ids_are_refused(hostile, tmp_path):
    with pytest.raises(ResumeRefused):
        CLIENT.argv(hostile, "opencode.db")
    fake = SimpleNamespace(path=f"{tmp_path}/opencode.db#{hostile}", header={"directory": "/x"})
    with pytest.raises(ResumeRefused):
        CLIENT.dry_run_home(fake, str(tmp_path / "run"), str(tmp_path / "work"), URL, None)  # type: ignore[arg-type]
    assert not (tmp_path / "run").exists()


def test_hostile_ids_given_to_resume_and_the_dry_run_are_one_line_refusals(tmp_path):
    db = copy_of(PARALLEL, tmp_path / "user")
    for hostile in ("ses_../../../etc/passwd", "-x", "ses_x;rm"):
        for extra in ([], ["--dry-run", "--client-bin", sys.executable]):
            done = resume(f"{db}#{hostile}", *extra, home=tmp_path)
            assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
            assert "Traceback" not in done.stderr and not done.stdout


def test_the_dry_run_argv_is_opencode_run_with_the_fake_model():
    """The resume is opencode's interactive TUI (``opencode --session ID``; ``opencode run``
    is its non-interactive form, which needs a message); the dry run is ``run`` with one."""
    resume_args = CLIENT.argv(PARALLEL_ID, "x")[1:]
    assert resume_args == ["--session", PARALLEL_ID]
    assert CLIENT.dry_run_argv("/bin/opencode", resume_args, None, "continue") == [
        "/bin/opencode",
        "run",
        "--model",
        "fake/fake-model",
        "--session",
        PARALLEL_ID,
        "continue",
    ]
    assert CLIENT.dry_run_argv("oc", resume_args, "m-1", "continue")[2:4] == ["--model", "fake/m-1"]


def resume(*args: str, home: Path, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_DATA_HOME", "OPENCODE_DB", "SESSION_TUI_DEBUG")}
    env["HOME"] = str(home)
    env.update(extra_env or {})
    return subprocess.run(
        [sys.executable, "-m", "session_tui", "resume", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=120,
    )


#: a stand-in opencode: like 1.18.33 it resumes the session of its own
#: database (under its HOME), hangs unless run in the session's directory,
#: and sends what 1.18.33 sent for PARALLEL to the provider of its config
OPENCODE = """
if "--version" in sys.argv:
    print("1.18.33")
    sys.exit(0)
import sqlite3, time, urllib.request
home = os.environ["HOME"]
sid = sys.argv[sys.argv.index("--session") + 1]
db = os.path.join(home, ".local", "share", "opencode", "opencode.db")
conn = sqlite3.connect(db)
(directory,) = conn.execute("select directory from session where id = ?", (sid,)).fetchone()
conn.close()
json.dump({{"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ), "directory": directory}},
          open({record!r}, "w"))
if directory != os.getcwd():
    time.sleep(600)  # (opencode run does not end unless run in the session's directory)
config = json.load(open(os.path.join(home, ".config", "opencode", "opencode.json")))
provider, model = sys.argv[sys.argv.index("--model") + 1].split("/", 1)
sent = json.load(open({request!r}))
body = json.dumps({{"model": model, "messages": sent["messages"], "stream": True}}).encode()
url = config["provider"][provider]["options"]["baseURL"] + "/chat/completions"
call = urllib.request.Request(url, body, {{"content-type": "application/json"}})
try:
    print(urllib.request.urlopen(call).read().decode()[:200])
except urllib.error.HTTPError as error:
    print(error.read().decode(), file=sys.stderr)
    sys.exit(1)
"""


def test_a_dry_run_with_a_stand_in_opencode_agrees_and_touches_nothing(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    db = copy_of(PARALLEL, tmp_path / "user")
    before = files_of(db.parent)
    record = tmp_path / "ran.json"
    script = stand_in(tmp_path / "bin", "opencode", OPENCODE.format(record=str(record), request=str(SENT)))
    args = ["--dry-run", "--json", "--timeout", "60", "--client-bin", str(script)]
    done = resume(f"{db}#{PARALLEL_ID}", *args, home=home)
    assert done.returncode == 0, done.stderr + done.stdout
    out = json.loads(done.stdout)
    assert (out["client"], out["client_version"], out["wire"], out["model"]) == ("opencode", "1.18.33", "chat", MODEL)
    assert out["accepted"] is True and out["agrees"] is True and out["differences"] == [], out["differences"]
    assert "the session's directory is the run's directory in the copy" in out["notes"][0]
    ran = json.loads(record.read_text())
    assert ran["argv"] == ["run", "--model", "fake/fake-model", "--session", PARALLEL_ID, "continue"]
    assert ran["directory"] == ran["cwd"] != RECORDED_DIRECTORY  # the copy's row, not the original's
    env = ran["env"]
    assert env["HOME"] != str(home) and not os.path.exists(env["HOME"])  # a throwaway home, removed after
    assert ran["cwd"].startswith(env["HOME"])
    assert env["OPENCODE_DISABLE_MODELS_FETCH"] == "1" and env["npm_config_offline"] == "true"
    assert files_of(db.parent) == before and list(home.iterdir()) == []  # nothing of the user's touched
    assert rows(db, PARALLEL_ID)[0] == RECORDED_DIRECTORY


def test_a_dry_run_of_a_bare_database_says_to_name_a_session(tmp_path):
    db = copy_of(PARALLEL, tmp_path / "user")
    done = resume(str(db), "--dry-run", "--client-bin", sys.executable, home=tmp_path)
    assert done.returncode == 2 and f"opencode.db#{PARALLEL_ID}" in done.stderr, done.stderr


def test_resume_in_opencodes_own_database_is_its_own_command_in_the_sessions_directory(tmp_path):
    data = tmp_path / ".local" / "share" / "opencode"
    db = copy_of(PARALLEL, data)
    before = files_of(data)
    done = resume(f"{db}#{PARALLEL_ID}", "--json", home=tmp_path)
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert plan["argv"] == ["opencode", "--session", PARALLEL_ID] and plan["wrote"] is None
    assert plan["cwd"] == RECORDED_DIRECTORY and plan["session_id"] == PARALLEL_ID
    text = resume(f"{db}#{PARALLEL_ID}", home=tmp_path)
    assert f"run: cd -- {RECORDED_DIRECTORY} && opencode --session {PARALLEL_ID}" in text.stdout
    assert files_of(data) == before


def test_resume_finds_the_database_opencode_db_names(tmp_path):
    db = copy_of(PARALLEL, tmp_path / "elsewhere")
    done = resume(f"{db}#{PARALLEL_ID}", "--json", home=tmp_path, extra_env={"OPENCODE_DB": str(db)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["argv"] == ["opencode", "--session", PARALLEL_ID]
    assert CLIENT.found_in_place(f"{db}#{PARALLEL_ID}", PARALLEL_ID, None, {"HOME": str(tmp_path)}) is False
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    assert CLIENT.found_in_place(f"{tmp_path}/xdg/opencode/opencode.db#{PARALLEL_ID}", PARALLEL_ID, None, env)


def test_resume_of_a_database_elsewhere_writes_nothing(tmp_path):
    db = copy_of(PARALLEL, tmp_path / "elsewhere")
    before = files_of(db.parent)
    done = resume(f"{db}#{PARALLEL_ID}", "--write", home=tmp_path)
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1, done.stderr
    assert f"opencode would not find this file by its id (it looks in {tmp_path}/.local/share/opencode)" in done.stderr
    assert files_of(db.parent) == before and not (tmp_path / ".local").exists()


def test_a_dry_run_at_another_leaf_is_refused_of_the_users_session_not_its_copy(tmp_path):
    db = copy_of(PARALLEL, tmp_path / "user")
    with open_session(f"{db}#{PARALLEL_ID}") as session:
        other = session.format.entry_id(session.record(4))
        assert session.active_leaf() != 4
    ran = tmp_path / "ran.json"
    script = stand_in(tmp_path / "bin", "opencode", OPENCODE.format(record=str(ran), request=str(SENT)))
    done = resume(f"{db}#{PARALLEL_ID}", "--dry-run", "--leaf", other, "--client-bin", str(script), home=tmp_path)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert f"{db}#{PARALLEL_ID}: " in done.stderr and "fork" in done.stderr  # (the store's refusal of a fork)
    assert "session-tui-dry-run-" not in done.stderr and not ran.exists()


def test_a_database_written_while_copied_is_copied_again(tmp_path, monkeypatch):
    db = copy_of(CRASH, tmp_path / "user")
    wal = Path(f"{db}-wal")
    run, work = tmp_path / "run", tmp_path / "run" / "work"
    work.mkdir(parents=True)
    real_copy = shutil.copyfile
    calls: list[str] = []
    copied_wal: list[bytes] = []

    def copy_while_written(source, target):
        calls.append(os.path.basename(source))
        done = real_copy(source, target)
        if source.endswith("-wal"):
            copied_wal.append(Path(target).read_bytes())
        if len(calls) == 1:  # a live writer: the WAL grows once, while the database is copied
            with wal.open("ab") as f:
                f.write(b"\0" * 4096)  # (a torn frame, as a kill leaves one: SQLite ignores it)
        return done

    monkeypatch.setattr(shutil, "copyfile", copy_while_written)
    with open_session(f"{db}#{CRASH_ID}") as session:
        entries = session.tree.count
        home = _setup(CLIENT, session, run, work, URL, None)
    assert calls == ["opencode.db", "opencode.db-wal", "opencode.db-shm"] * 2  # the set copied again, whole
    assert copied_wal[-1] == wal.read_bytes()  # (the copy's WAL is then checkpointed by the row's update)
    with open_session(home.copy) as copied:
        assert copied.tree.count == entries and copied.header["directory"] == str(work)


def test_a_database_written_during_every_copy_is_refused(tmp_path, monkeypatch):
    db = copy_of(CRASH, tmp_path / "user")
    wal = Path(f"{db}-wal")
    run, work = tmp_path / "run", tmp_path / "run" / "work"
    work.mkdir(parents=True)
    real_copy = shutil.copyfile

    def always_written(source, target):
        with wal.open("ab") as f:
            f.write(b"\0")
        return real_copy(source, target)

    monkeypatch.setattr(shutil, "copyfile", always_written)
    with open_session(f"{db}#{CRASH_ID}") as session, pytest.raises(DryRunFailed, match="written during each"):
        _setup(CLIENT, session, run, work, URL, None)


def test_a_wal_gone_before_the_copy_is_left_out(tmp_path):
    db = copy_of(CRASH, tmp_path / "user")
    run, work = tmp_path / "run", tmp_path / "run" / "work"
    work.mkdir(parents=True)
    with open_session(f"{db}#{CRASH_ID}") as session:
        home = CLIENT.dry_run_home(session, str(run), str(work), URL, None)
        # opencode ended meanwhile: its last connection checkpointed the WAL into the database and removed it
        conn = sqlite3.connect(str(tmp_path / "user" / "opencode.db"))  # (our own copy of the recording)
        conn.execute("pragma wal_checkpoint(truncate)")
        conn.close()
        Path(f"{db}-wal").unlink(missing_ok=True)
        _setup_from(home, run)
    data = run / ".local" / "share" / "opencode"
    assert not (data / "opencode.db-wal").exists()
    assert rows(data / "opencode.db", CRASH_ID)[0] == str(work)


def post(server: FakeAPI, body: dict) -> tuple[int, bytes]:
    call = urllib.request.Request(server.url + "/v1/chat/completions", json.dumps(body).encode())
    call.add_header("content-type", "application/json")
    with urllib.request.urlopen(call, timeout=10) as answer:
        return answer.status, answer.read()


def test_a_title_request_is_answered_and_not_taken_for_the_resume():
    # opencode 1.18.33 asks for a title only while a session has one user message (its ensureTitle):
    # not on a resume of a recorded session, but a side request like it must neither stop nor mislead the run
    sent = json.loads(SENT.read_text())["messages"]
    title = {
        "model": MODEL,
        "stream": True,
        "messages": [
            {"role": "system", "content": "You are a title generator. You output ONLY a thread title. Nothing else."},
            {"role": "user", "content": "Generate a title for this conversation:\n"},
            sent[1],
        ],
    }
    server = FakeAPI()
    try:
        status, data = post(server, title)
        assert status == 200 and b'"content": "ok"' in data and data.rstrip().endswith(b"data: [DONE]")
        assert post(server, {"model": MODEL, "stream": True, "messages": sent})[0] == 200
        requests = server.requests()
    finally:
        server.stop()
    assert [r.status for r in requests] == [200, 200]
    main = main_request(requests)
    assert main is requests[1] and main.body["messages"] == sent
