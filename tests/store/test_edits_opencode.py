"""Repairs of an opencode session: its own ``part`` rows changed in one
transaction, after a backup of the database's three files, never while a
process holds the database (tests/golden/opencode-*-fixed.json: the real
opencode 1.18.33 accepted the repaired databases on resume)."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from session_tui.model.session.session import open_session
from session_tui.store.edits import apply, plan_close
from session_tui.store.refusals import Refused
from tests.support import REPO, run_cli

RUNS = REPO / "tests" / "data" / "live-2026-12-03" / "opencode"
CRASH_ID = "ses_dc486f233ffeZIh7BHTlbpc31f"
CALL = "call__T1S02a_6058fa5a9b"


@pytest.fixture
def crash(tmp_path) -> Path:
    for part in (RUNS / "crash").iterdir():
        shutil.copyfile(part, tmp_path / part.name)
    return tmp_path / "opencode.db"


def _rows(db: Path) -> dict[str, dict]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {i: orjson.loads(d) for i, d in conn.execute("select id, data from part")}
    finally:
        conn.close()


def _files(db: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(db.parent.iterdir()) if p.name.startswith("opencode.db")}


def test_close_writes_what_opencode_writes_for_a_call_it_aborted(crash):
    before_rows, before_files = _rows(crash), _files(crash)
    done = run_cli("fix", f"{crash}#{CRASH_ID}", "--close", "--force")
    assert done.returncode == 0, done.stdout + done.stderr
    after = _rows(crash)
    changed = [i for i in after if after[i] != before_rows[i]]
    assert len(changed) == 1 and set(after) == set(before_rows)  # one row changed, none added or lost
    state = after[changed[0]]["state"]
    assert after[changed[0]]["callID"] == CALL
    assert (state["status"], state["error"], state["metadata"]["interrupted"]) == (
        "error",
        "Tool execution aborted",
        True,
    )
    assert state["time"]["start"] < state["time"]["end"] and state["input"] == before_rows[changed[0]]["state"]["input"]
    for name, data in before_files.items():  # the three files, as they were, kept beside it
        (backup,) = crash.parent.glob(f"{name}.bak-*")
        assert backup.read_bytes() == data
    with open_session(f"{crash}#{CRASH_ID}") as session:
        from session_tui.model.session.context import context_items, tool_issues

        assert tool_issues(session)[0] == []
        assert context_items(session)[-1][1] == {"role": "tool", "tool_call_id": CALL, "content": "C02\n"}
    again = run_cli("fix", f"{crash}#{CRASH_ID}", "--close", "--force")
    assert again.returncode == 0 and "nothing to do" in again.stdout + again.stderr


HOLDER = r"""
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1])
conn.execute("select count(*) from part").fetchone()
open(sys.argv[2], "w").close()
sys.stdin.read()
"""


def test_refused_while_a_process_holds_the_database(crash, tmp_path):
    ready = tmp_path / "ready"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(crash), str(ready)], stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert time.monotonic() < deadline and holder.poll() is None
            time.sleep(0.01)
        before = _files(crash)
        done = run_cli("fix", f"{crash}#{CRASH_ID}", "--close", "--force")
        assert done.returncode != 0 and "held open by" in done.stderr + done.stdout
        assert "nothing was changed" in done.stderr + done.stdout
        assert _files(crash) == before and not list(crash.parent.glob("*.bak-*"))
    finally:
        holder.communicate(b"", timeout=30)


def test_a_row_changed_since_the_plan_changes_nothing(crash):
    with open_session(f"{crash}#{CRASH_ID}") as session:
        plan = plan_close(session)
    conn = sqlite3.connect(crash)  # the agent wrote the call's row meanwhile (and let go of the database)
    (part_id,) = [u.row_id for u in plan.database.updates]
    data = orjson.loads(conn.execute("select data from part where id = ?", (part_id,)).fetchone()[0])
    data["state"]["metadata"]["output"] = "C02\nmore\n"
    conn.execute("update part set data = ? where id = ?", (orjson.dumps(data).decode(), part_id))
    conn.commit()
    conn.close()
    rows = _rows(crash)
    with pytest.raises(Refused, match="changed since the edit was planned"):
        apply(plan)
    assert _rows(crash) == rows and not list(crash.parent.glob("*.bak-*"))


RACER = r"""
import sqlite3, sys, json, time
db, session, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
message = None
for n in range(count):
    conn = sqlite3.connect(db, timeout=30, isolation_level=None)
    if message is None:
        message = conn.execute("select id from message where session_id = ? order by id desc", (session,)).fetchone()[0]
    t = int(time.time() * 1000)
    conn.execute("insert into part values (?, ?, ?, ?, ?, ?)",
                 (f"prt_zzzzzzzzzzzz{n:014d}", message, session, t, t, json.dumps({"type": "text", "text": str(n)})))
    conn.close()
"""


def test_no_row_a_racing_writer_adds_is_lost(crash):
    """A real second process adds rows (opening and closing the database
    each time) while session-tui repairs: the repair is refused whenever
    the writer holds the database, else it lands; every row added stays."""
    racer = subprocess.Popen([sys.executable, "-c", RACER, str(crash), CRASH_ID, "200"])
    outcomes = []
    try:
        while racer.poll() is None or not outcomes:
            with open_session(f"{crash}#{CRASH_ID}") as session:
                try:
                    plan = plan_close(session)
                except Refused as exc:
                    outcomes.append(type(exc).__name__)  # closed already: nothing to do
                    if racer.poll() is not None:
                        break
                    continue
            try:
                apply(plan)
                outcomes.append("applied")
            except Refused:
                outcomes.append("refused")
    finally:
        assert racer.wait(timeout=120) == 0
    rows = _rows(crash)
    assert all(f"prt_zzzzzzzzzzzz{n:014d}" in rows for n in range(200))
    assert len(rows) == 12 + 200
    closed = next(r for r in rows.values() if r.get("callID") == CALL)
    assert closed["state"]["status"] == ("error" if "applied" in outcomes else "running")
