"""opencode 1.18.33: sessions read from its SQLite database, which another
process may be writing (recorded runs in tests/data/live-2026-12-03/opencode:
a clean run, a kill mid-tool whose every row is still in the WAL, a kill
mid-parallel-call)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from session_tui.model.catalog.cache import Catalog, list_session_files
from session_tui.model.errors import SessionError
from session_tui.model.formats.opencode.database import session_ids
from session_tui.model.session.context import tool_issues
from session_tui.model.session.live_state import live_state
from session_tui.model.session.session import open_session
from tests.support import REPO, check_json, run_cli

RUNS = REPO / "tests" / "data" / "live-2026-12-03" / "opencode"
CRASH_ID = "ses_dc486f233ffeZIh7BHTlbpc31f"
PARALLEL_ID = "ses_dc486d27bffeU947Fr5Hg3CkBH"
FORK_ID = "ses_dc481a45affeT96KBaAoCG3mES"


def _copy(kind: str, into: Path) -> Path:
    """The run's database files copied into ``into``; the database's path."""
    for part in (RUNS / kind).iterdir():
        shutil.copyfile(part, into / part.name)
    return into / "opencode.db"


def _state(path: Path) -> dict[str, tuple[int, int, bytes]]:
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns, p.read_bytes()) for p in sorted(path.parent.iterdir())}


def test_reading_never_writes_the_database_or_its_wal(tmp_path):
    """A crash left every row in the WAL: read, checked, exported, listed;
    the database and its WAL are byte-identical and untouched after, and
    beside a database without a WAL none is made."""
    crash = tmp_path / "crash"
    clean = tmp_path / "clean"
    crash.mkdir()
    clean.mkdir()
    db, clean_db = _copy("crash", crash), _copy("work", clean)
    before, clean_before = _state(db), _state(clean_db)
    assert [r["entries"] for r in check_json(f"{db}#{CRASH_ID}", clean_db)] == [17, 132]
    assert run_cli("export", "--context", "--to", "json", f"{db}#{CRASH_ID}").returncode == 0
    assert len(list_session_files([str(tmp_path)])) == 2
    after = _state(db)
    for name in ("opencode.db", "opencode.db-wal"):
        assert after[name] == before[name], name
    # nothing new beside them but the -shm SQLite itself makes to read a WAL (its shared memory, not data)
    assert set(after) - {"opencode.db-shm"} == set(before) - {"opencode.db-shm"}
    assert _state(clean_db) == clean_before


def test_a_kill_mid_tool_is_found_in_the_wal_at_the_call(tmp_path):
    db = _copy("crash", tmp_path)
    with open_session(f"{db}#{CRASH_ID}") as session:
        (issue,), _ = tool_issues(session)
        record = session.record(issue.entry)
        assert record["type"] == "part" and record["data"]["state"]["status"] == "running"
        state = live_state(session)
        assert state.state == "crashed" and state.tools() == "bash"
    (report,) = check_json(f"{db}#{CRASH_ID}", agent=True)
    assert report["agent"]["state"] == "crashed" and report["agent"]["tool"] == "bash"
    (problem,) = report["problems"]
    assert problem["line"] == 17 and "[Tool execution was interrupted]" in problem["message"]


def test_a_kill_mid_parallel_call_leaves_the_fast_one_answered(tmp_path):
    db = _copy("parallel", tmp_path)
    (report,) = check_json(f"{db}#{PARALLEL_ID}", agent=True)
    assert [c["call_id"] for c in report["dangling_tool_calls"]] == ["call__T2S01b_5d753197d9"]
    assert report["agent"]["state"] == "crashed"


def test_a_tool_part_that_failed_is_a_failed_result(tmp_path):
    """A ``read`` part with ``state.status: "error"`` is its call and its
    failed result: counted by check, reached by ] in the tree (marked ✗)."""
    from session_tui.model.session.context import failed_results

    db = _copy("parallel", tmp_path)
    (report,) = check_json(f"{db}#{PARALLEL_ID}")
    assert report["tool_errors"] == 1
    with open_session(f"{db}#{PARALLEL_ID}") as session:
        (entry,) = failed_results(session)
        data = session.record(entry)["data"]
        assert data["tool"] == "read" and data["state"]["status"] == "error"
        view = session.format.view(session.record(entry))
        assert view.is_error and view.result_for == data["callID"]  # the tree's "✗ ←" row


def test_every_session_of_a_database_is_a_row_and_its_info_is_cached(tmp_path):
    db = _copy("work", tmp_path)
    listed = list_session_files([str(tmp_path)])
    assert [name for name, _, _ in listed] == [f"{db}#ses_dc4873164ffeAnIQ0Z06lezjkg"]
    catalog = Catalog(str(tmp_path / "cache"))
    info = catalog.read(listed[0][0])
    assert info is not None and info.format == "opencode" and info.known
    assert (info.size, info.mtime_ns) == listed[0][1:]  # (what a listing says is what the cache is keyed by)
    assert catalog.listing([str(tmp_path)])[0].known


def test_the_session_time_is_its_own_not_the_databases(tmp_path):
    """Another session written now does not make this one look fresh."""
    db = _copy("work", tmp_path)
    ((_, _, before),) = list_session_files([str(tmp_path)])
    conn = sqlite3.connect(db)
    row = conn.execute("select * from session").fetchone()
    columns = [c[1] for c in conn.execute("pragma table_info(session)")]
    other = dict(zip(columns, row, strict=True))
    now_ms = int(time.time() * 1000)
    other.update(id="ses_0000000000000000000000000z", time_created=now_ms, time_updated=now_ms)
    conn.execute(f"insert into session values ({','.join('?' * len(columns))})", [other[c] for c in columns])
    conn.commit()
    conn.close()
    listed = dict((name, mtime) for name, _, mtime in list_session_files([str(tmp_path)]))
    assert listed[f"{db}#ses_dc4873164ffeAnIQ0Z06lezjkg"] == before
    assert listed[f"{db}#ses_0000000000000000000000000z"] == now_ms * 1_000_000


WRITER = r"""
import sqlite3, sys, time, json
db, session, ready = sys.argv[1], sys.argv[2], sys.argv[3]
conn = sqlite3.connect(db, isolation_level=None)
conn.execute("pragma journal_mode=wal")
message = conn.execute("select id from message where session_id = ? order by id desc", (session,)).fetchone()[0]
open(ready, "w").close()
for n in range(int(sys.argv[4])):
    data = json.dumps({"type": "text", "text": f"appended {n}"})
    t = int(time.time() * 1000)
    row = (f"prt_zzzzzzzzzzzz{n:014d}", message, session, t, t, data)
    conn.execute("insert into part values (?, ?, ?, ?, ?, ?)", row)
conn.close()
"""


def test_a_session_being_written_grows_as_its_wal_does(tmp_path):
    """A real second process writes parts while the session is open: each
    refresh sees a consistent prefix, and in the end every part."""
    db = _copy("crash", tmp_path)
    ready = tmp_path / "ready"
    with open_session(f"{db}#{CRASH_ID}") as session:
        assert session.entries == 17
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db), CRASH_ID, str(ready), "40"])
        seen = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            session.refresh()
            seen.append(session.entries)
            if writer.poll() is not None and session.entries == 57:
                break
        assert writer.wait(timeout=60) == 0
        session.refresh()
        assert session.entries == 57 and seen == sorted(seen)
        assert session.record(56)["data"]["text"] == "appended 39"


def test_a_commit_seen_only_in_the_wal_index_is_read(tmp_path):
    """A writer appends a commit's frames to the WAL, then makes them
    visible in the WAL index (``-shm``). A read between the two sees the
    WAL at its new size without the commit, and if the writer then closes
    beside a reader no file changes again: the WAL index's header alone
    says the commit came. Here the commit reuses checkpointed frames (the
    WAL keeps its size) and the files' times are put back: a read must
    still see it."""
    db = _copy("crash", tmp_path)
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("pragma wal_checkpoint(passive)")  # (every frame in the database: the next commit restarts the WAL)
    with open_session(f"{db}#{CRASH_ID}") as session:
        assert session.entries == 17
        times = {f: os.stat(f) for f in (db, f"{db}-wal", f"{db}-shm")}
        message = writer.execute("select id from message where session_id = ? order by id desc", (CRASH_ID,))
        data = json.dumps({"type": "text", "text": "seen by the index alone"})
        row = ("prt_zzzzzzzzzzzz00000000000000", message.fetchone()[0], CRASH_ID, 1, 1, data)
        writer.execute("insert into part values (?, ?, ?, ?, ?, ?)", row)
        for name, st in times.items():
            assert os.path.getsize(name) == st.st_size
            os.utime(name, ns=(st.st_atime_ns, st.st_mtime_ns))
        session.refresh()
        assert session.entries == 18
        assert session.record(17)["data"]["text"] == "seen by the index alone"
    writer.close()


@pytest.mark.parametrize(
    "name",
    [
        "opencode.db#../../etc/passwd",
        "opencode.db#ses_abc;rm -rf ~",
        "opencode.db#--version",
        "opencode.db#ses_\x1b]0;pwned\x07aaaaaaaaaaaa",
    ],
)
def test_a_hostile_session_id_is_one_clear_line(tmp_path, name):
    _copy("work", tmp_path)
    for verb in (["check"], ["export", "--to", "json"], ["fix", "--close"], ["resume", "--dry-run"]):
        done = run_cli(*verb, str(tmp_path / name))
        assert done.returncode == 2, (verb, done.stdout, done.stderr)
        assert "not an opencode session id" in done.stderr and "Traceback" not in done.stderr
        assert "\x1b" not in done.stderr and "\x07" not in done.stderr


def test_a_database_given_bare_is_checked_session_by_session(tmp_path):
    db = _copy("crash", tmp_path)
    (report,) = check_json(db)
    assert report["path"] == f"{db}#{CRASH_ID}"


def test_not_a_database_is_one_clear_line(tmp_path):
    (tmp_path / "opencode.db").write_bytes(b"SQLite format 3\x00" + bytes(4080))  # a crash's 4 KiB shell alone
    with pytest.raises(SessionError, match="not .*opencode database"):
        session_ids(str(tmp_path / "opencode.db"))
    done = run_cli("check", str(tmp_path / "opencode.db"))
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    done = run_cli("check", f"{tmp_path / 'opencode.db'}#{CRASH_ID}")
    assert done.returncode == 2 and "opencode database" in done.stderr and done.stderr.count("\n") == 1


def test_records_are_the_rows(tmp_path):
    """The stream is the rows in opencode's order: a header, each message then its parts."""
    db = _copy("work", tmp_path)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    parts = conn.execute("select count(*) from part").fetchone()[0]
    messages = conn.execute("select count(*) from message").fetchone()[0]
    first = conn.execute("select data from part order by id limit 1").fetchone()[0]
    conn.close()
    with open_session(f"{db}#ses_dc4873164ffeAnIQ0Z06lezjkg") as session:
        assert session.entries == 1 + messages + parts
        kinds = [session.record(e)["type"] for e in range(session.entries)]
        assert kinds[0] == "opencode.session" and kinds[1] == "message"
        assert next(session.record(e)["data"] for e in range(session.entries) if kinds[e] == "part") == orjson.loads(
            first
        )


def test_a_listing_reads_again_only_the_sessions_whose_rows_changed(tmp_path, monkeypatch):
    """While an agent streams into one session, the other sessions of the
    database are not decoded again at each change of its WAL."""
    from session_tui.model.formats.opencode import database as opencode_db

    db = tmp_path / "forked" / "opencode.db"
    db.parent.mkdir()
    shutil.copyfile(RUNS / "fork" / "opencode.db", db)
    rendered = []
    real = opencode_db.render
    monkeypatch.setattr(opencode_db, "render", lambda found: rendered.append(found["session"]["id"]) or real(found))
    first = opencode_db.list_sessions(str(db))
    assert len(rendered) == 2
    conn = sqlite3.connect(db)
    part_id, data = conn.execute(
        "select id, data from part where session_id = ? order by id desc", (FORK_ID,)
    ).fetchone()
    conn.execute("update part set data = ? where id = ?", (data.replace("}", ', "more": 1}', 1), part_id))
    conn.commit()
    conn.close()
    rendered.clear()
    second = dict((name, size) for name, size, _ in opencode_db.list_sessions(str(db)))
    assert rendered == [FORK_ID]
    assert second[f"{db}#{FORK_ID}"] > dict((name, size) for name, size, _ in first)[f"{db}#{FORK_ID}"]


def test_a_tool_part_is_its_calls_result_and_only_an_open_one_has_none(tmp_path):
    """opencode keeps a call and its result in one part: the detail pane's
    "result on line N" is the part's own line; "no result" only for the
    part left running."""
    from session_tui.model.entries.pairing import results_of

    db = _copy("crash", tmp_path)
    with open_session(f"{db}#{CRASH_ID}") as session:
        parts = [e for e in range(session.entries) if (session.record(e).get("data") or {}).get("type") == "tool"]
        outcomes = {e: results_of(session, e) for e in parts}
    assert [bool(found) for found in outcomes.values()] == [True, True, False]
    assert all(found == {next(iter(found)): e} for e, found in outcomes.items() if found)


def test_the_terminal_ui_opens_a_session_of_a_database_and_lists_the_database(tmp_path):
    """``session-tui opencode.db#ID`` opens the session's view; the folder
    holding the database opens the picker with the session as a row."""
    from tests.terminal import Terminal

    db = _copy("crash", tmp_path)
    with Terminal(f"{db}#{CRASH_ID}", "--no-watch") as term:
        term.wait_text("crashed (process gone)", timeout=60)
    with Terminal(str(tmp_path), "--no-watch") as term:
        term.wait_text("opencode", timeout=60)
        term.wait_text("⚠ call without result", timeout=60)
