"""The team archive on a real PostgreSQL server (tests/archive/postgres.py):
``archive init`` and ``archive push`` as real processes, and every archived
session read back byte for byte through its Source."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from session_tui.model.archive.migrations import LATEST
from session_tui.model.reading.archived import ArchivedFile
from tests.support import REPO, SAMPLES, run_cli

from .postgres import LIMITED, Cluster


def push(url: str, *args: str) -> subprocess.CompletedProcess:
    return run_cli("archive", "push", url, *args)


def init(url: str) -> None:
    done = run_cli("archive", "init", url)
    assert done.returncode == 0, done.stderr


def archived(url: str, machine: str, path: Path | str) -> bytes:
    """The archived copy of ``path`` as a reader is served it."""
    source = ArchivedFile(f"{url}#{machine}{path}")
    try:
        return source.read(0, source.stat().size)
    finally:
        source.close()


def snapshot(url: str) -> dict:
    """What the archive holds, ids and times aside: row counts and a checksum of every line and file row."""
    with psycopg.connect(url) as conn:
        return {
            "machines": conn.execute("SELECT count(*) FROM machines").fetchone()[0],
            "files": conn.execute(
                "SELECT md5(string_agg(concat_ws('|', m.name, f.path, f.format, f.size, f.complete_to, f.lines, "
                "f.complete_lines, f.stream_size, f.stream_complete, f.head_length, f.head_sha256, f.tail_start, "
                "f.tail_sha256, f.redacted), ',' ORDER BY m.name, f.path)), count(*) "
                "FROM files f JOIN machines m ON m.id = f.machine_id"
            ).fetchone(),
            "lines": conn.execute(
                "SELECT md5(string_agg(concat_ws('|', m.name, f.path, l.start, l.line_no, l.byte_offset, "
                "l.terminated, md5(l.text), md5(l.raw), md5(l.record::text)), ',' "
                "ORDER BY m.name, f.path, l.start)), count(*) "
                "FROM lines l JOIN files f ON f.id = l.file_id JOIN machines m ON m.id = f.machine_id"
            ).fetchone(),
            "chunks": conn.execute(
                "SELECT md5(string_agg(concat_ws('|', m.name, f.path, c.start, c.piece, c.whole, md5(c.text)), ',' "
                "ORDER BY m.name, f.path, c.start, c.piece)), count(*) "
                "FROM chunks c JOIN files f ON f.id = c.file_id JOIN machines m ON m.id = f.machine_id"
            ).fetchone(),
        }


def tree_lines(n: int, start: int = 0, text: str = "hello") -> bytes:
    """``n`` records of the tree format, each the child of the one before."""
    out = []
    for k in range(start, start + n):
        parent = f'"e{k - 1}"' if k else "null"
        role = "user" if k % 2 == 0 else "assistant"
        out.append(
            f'{{"type":"message","id":"e{k}","parentId":{parent},"createdAt":"2026-03-15T19:10:{k % 60:02d}.000Z",'
            f'"message":{{"role":"{role}","content":"{text} {k}"}}}}\n'
        )
    return "".join(out).encode()


# -- init ----------------------------------------------------------------------------


def test_init_creates_the_schema_once_and_again_changes_nothing(db_url):
    first = run_cli("archive", "init", db_url)
    assert first.returncode == 0, first.stderr
    assert f"archive created (schema version {LATEST})" in first.stdout
    assert first.stderr == ""  # (the database's owner may create pg_trgm: a trusted extension)
    again = run_cli("archive", "init", db_url)
    assert again.returncode == 0, again.stderr
    assert f"schema is current (version {LATEST})" in again.stdout
    with psycopg.connect(db_url) as conn:
        assert conn.execute("SELECT version FROM schema_version ORDER BY 1").fetchall() == [
            (n,) for n in range(1, LATEST + 1)
        ]
        assert conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone() == (False,)
        assert conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'").fetchone() == (1,)


def test_init_without_the_right_to_create_pg_trgm_says_what_a_dba_runs(pg: Cluster):
    pg.psql('CREATE DATABASE "limited_db" OWNER postgres')
    pg.psql(f"GRANT USAGE, CREATE ON SCHEMA public TO {LIMITED}", database="limited_db")
    url = pg.url(LIMITED, "limited_db")
    done = run_cli("archive", "init", url)
    assert done.returncode == 0, done.stderr
    assert "archive created" in done.stdout
    notes = done.stderr.strip().splitlines()
    assert len(notes) == 1 and 'a DBA runs `CREATE EXTENSION pg_trgm;` in database "limited_db"' in notes[0]


def test_push_before_init_says_to_run_it(db_url, tmp_path):
    (tmp_path / "s.jsonl").write_bytes(tree_lines(2))
    done = push(db_url, str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "run `session-tui archive init DB_URL`" in done.stderr


def test_bad_urls_and_refused_connections_are_one_line_and_exit_2(pg: Cluster, tmp_path):
    from .postgres import free_port

    port = free_port()  # (nobody listens there)
    (tmp_path / "s.jsonl").write_bytes((SAMPLES / "tree" / "branched-summary.jsonl").read_bytes())
    refused = push(f"postgresql://someone:hunter2-secret@127.0.0.1:{port}/db", str(tmp_path))
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "cannot connect" in refused.stderr
    assert "hunter2-secret" not in refused.stderr and "someone:***@" in refused.stderr
    bad = run_cli("archive", "init", "postgresql://u@/db?no_such_option=1")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "not a valid database URL" in bad.stderr
    not_db = run_cli("archive", "init", "/tmp/not-a-url")
    assert not_db.returncode == 2 and "not a database URL" in not_db.stderr
    denied = run_cli("archive", "init", pg.tcp_url(password="wrong-password"))
    assert denied.returncode == 2 and "password authentication failed" in denied.stderr
    assert "wrong-password" not in denied.stderr


def test_the_password_may_come_from_pgpass(pg: Cluster, tmp_path, monkeypatch):
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(f"127.0.0.1:{pg.port}:*:archivist:s3cret-pw\n")
    pgpass.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(pgpass))
    pg.fresh_database("via_pgpass")
    done = run_cli("archive", "init", pg.tcp_url(database="via_pgpass", password=None))  # (TCP: a password asked)
    assert done.returncode == 0, done.stderr


# -- push ----------------------------------------------------------------------------


def test_push_then_push_again_changes_nothing(db_url, samples):
    init(db_url)
    first = push(db_url, str(samples), "--machine", "m1")
    assert first.returncode == 0, first.stderr
    assert first.stdout.count("\nnew ") + first.stdout.startswith("new ") >= 20
    before = snapshot(db_url)
    again = push(db_url, str(samples), "--machine", "m1")
    assert again.returncode == 0, again.stderr
    assert "pushed 0 files (" in again.stdout and " unchanged" in again.stdout
    assert not [line for line in again.stdout.splitlines() if line.startswith(("new ", "grown ", "again "))]
    assert snapshot(db_url) == before


def test_a_grown_file_sends_only_its_new_lines(db_url, tmp_path):
    init(db_url)
    session = tmp_path / "s.jsonl"
    session.write_bytes(tree_lines(5))
    assert push(db_url, str(session), "--machine", "m").returncode == 0
    with psycopg.connect(db_url) as conn:
        kept = conn.execute("SELECT start, xmin::text FROM lines ORDER BY start").fetchall()
    with open(session, "ab") as f:
        f.write(tree_lines(3, start=5))
    grown = push(db_url, str(session), "--machine", "m")
    assert grown.returncode == 0, grown.stderr
    assert f"grown {session} (+tree, 3 lines" in grown.stdout
    assert "3 lines" in grown.stdout.splitlines()[-1]
    with psycopg.connect(db_url) as conn:
        now = conn.execute("SELECT start, xmin::text FROM lines ORDER BY start").fetchall()
    assert now[:5] == kept  # the first five rows untouched (the same row versions)
    assert len(now) == 8
    assert archived(db_url, "m", session) == session.read_bytes()


def test_a_torn_last_line_is_kept_torn_and_sent_again_whole(db_url, tmp_path):
    init(db_url)
    session = tmp_path / "s.jsonl"
    whole = tree_lines(4)
    session.write_bytes(whole[:-30])  # the last record cut
    assert push(db_url, str(session), "--machine", "m", "--no-redact").returncode == 0
    assert archived(db_url, "m", session) == whole[:-30]
    report = run_cli("check", "--json", f"{db_url}#m{session}")
    assert [p["kind"] for p in json.loads(report.stdout)["problems"]] == ["torn_tail"]
    session.write_bytes(whole + tree_lines(1, start=4))
    grown = push(db_url, str(session), "--machine", "m", "--no-redact")
    assert "grown" in grown.stdout and "2 lines" in grown.stdout  # the torn line, whole now, and the new one
    assert archived(db_url, "m", session) == session.read_bytes()
    fresh = snapshot(db_url)
    assert fresh["lines"][1] == 5


def test_a_truncated_or_replaced_file_is_sent_again(db_url, tmp_path):
    init(db_url)
    session = tmp_path / "s.jsonl"
    session.write_bytes(tree_lines(6))
    assert push(db_url, str(session), "--machine", "m").returncode == 0
    session.write_bytes(tree_lines(3))  # (truncated in place: the same inode, smaller)
    cut = push(db_url, str(session), "--machine", "m")
    assert f"again {session} (it shrank;" in cut.stdout
    assert archived(db_url, "m", session) == tree_lines(3)
    other = tmp_path / "other.jsonl"
    other.write_bytes(tree_lines(3, text="HELLO"))  # the same size, other bytes, put in its place
    os.replace(other, session)
    replaced = push(db_url, str(session), "--machine", "m")
    assert f"again {session} (another file at its path;" in replaced.stdout
    assert archived(db_url, "m", session) == tree_lines(3, text="HELLO")
    with open(session, "r+b") as f:  # the same inode and size, its first bytes rewritten
        f.write(b'{"type":"message","id":"X0"')
    rewritten = push(db_url, str(session), "--machine", "m")
    assert "again" in rewritten.stdout and "first bytes changed" in rewritten.stdout
    assert archived(db_url, "m", session) == session.read_bytes()
    with psycopg.connect(db_url) as conn:
        assert conn.execute("SELECT generation, lines FROM files").fetchall() == [(4, 3)]


def test_two_machines_with_the_same_path_are_kept_apart(db_url, tmp_path):
    init(db_url)
    session = tmp_path / "s.jsonl"
    session.write_bytes(tree_lines(3, text="on laptop"))
    assert push(db_url, str(session), "--machine", "laptop").returncode == 0
    session.write_bytes(tree_lines(5, text="on the CI runner"))
    ci = push(db_url, str(session), "--machine", "ci-runner-7")
    assert f"new {session}" in ci.stdout
    assert archived(db_url, "laptop", session) == tree_lines(3, text="on laptop")
    assert archived(db_url, "ci-runner-7", session) == tree_lines(5, text="on the CI runner")
    assert snapshot(db_url)["machines"] == 2 and snapshot(db_url)["files"][1] == 2
    bad = push(db_url, str(session), "--machine", "a/b")
    assert bad.returncode == 2 and "no '/'" in bad.stderr


@pytest.mark.slow
def test_a_push_killed_mid_way_is_finished_by_the_next(pg: Cluster, tmp_path):
    """SIGKILL a push of a big file between two of its transactions: the
    archive holds a prefix of whole lines; the next push makes it what one
    clean push makes."""
    killed_url, clean_url = pg.fresh_database("killed"), pg.fresh_database("clean")
    init(killed_url)
    init(clean_url)
    session = tmp_path / "big.jsonl"
    with open(session, "wb") as f:
        for k in range(0, 14_000, 1000):
            f.write(tree_lines(1000, start=k, text="x" * 700))  # ~12 MB: a batch (lines.BATCH) and half of one
    size = session.stat().st_size
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    argv = [sys.executable, "-m", "session_tui", "archive", "push", killed_url, str(session), "--machine", "m"]
    process = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        reached = 0
        deadline = time.monotonic() + 60
        with psycopg.connect(killed_url, autocommit=True) as conn:
            while not reached and time.monotonic() < deadline and process.poll() is None:
                row = conn.execute("SELECT complete_to FROM files").fetchone()
                reached = row[0] if row else 0
                time.sleep(0.01)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait()
    assert 0 < reached < size, "the push was not caught between two batches"
    with psycopg.connect(killed_url) as conn:
        complete_to, lines = conn.execute("SELECT complete_to, lines FROM files").fetchone()
        assert conn.execute("SELECT count(*) FROM lines").fetchone()[0] == lines
    data = archived(killed_url, "m", session)
    assert len(data) == complete_to and data.endswith(b"\n")
    assert session.read_bytes().startswith(data)  # a prefix of whole lines
    finished = push(killed_url, str(session), "--machine", "m")
    assert finished.returncode == 0 and f"grown {session}" in finished.stdout
    assert push(clean_url, str(session), "--machine", "m").returncode == 0
    assert snapshot(killed_url) == snapshot(clean_url)
    assert archived(killed_url, "m", session) == session.read_bytes()


# -- hostile files, secrets --------------------------------------------------------------

HOSTILE_LINES = [
    b'{"type":"message","id":"a","parentId":null,"createdAt":"2026-03-15T19:10:00.000Z",'
    b'"message":{"role":"user","content":"NUL \\u0000 inside"}}',
    b'{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","content":"quote \' \\" ;--"}}',
    b"a raw NUL \x00 byte, and \xff\xfe not UTF-8",
    b'{"type":"message","id":"c","parentId":"b","message":{"role":"user","content":"lone \\ud800 surrogate"}}',
    b'{"type":"message","id":"d","parentId":"c","message":{"role":"assistant","content":"CRLF"}}\r',
    b'{"type":"message","id":"e","parentId":"d","message":{"role":"user","content":"' + b"y" * (9 << 20) + b'"}}',
    b'{"type":"message","id":"f","parentId":"e","deep":' + b"[" * 900 + b"]" * 900 + b"}",
    b"\x1b]52;c;aGVsbG8=\x07 escape sequences \x1b[31m",
    b'{"type":"message","id":"g","parentId":"f","message":{"role":"user","content":"\\ud83d\\ude00 \xf0\x9f\x98\x80"}}',
]


def test_a_hostile_file_is_stored_and_read_back_exactly(db_url, tmp_path):
    init(db_url)
    folder = tmp_path / 'it\'s "quoted"; DROP TABLE lines; --'
    folder.mkdir()
    session = folder / "a 'b' \\ c #d.jsonl"
    data = b"\n".join(HOSTILE_LINES) + b"\n" + b'{"type":"message","id":"torn'
    session.write_bytes(data)
    done = push(db_url, str(session), "--machine", "m", "--no-redact")
    assert done.returncode == 0, done.stderr
    assert archived(db_url, "m", session) == data
    with psycopg.connect(db_url) as conn:
        kinds = conn.execute(
            "SELECT line_no, text IS NOT NULL, raw IS NOT NULL, record IS NOT NULL, terminated "
            "FROM lines ORDER BY start"
        ).fetchall()
    assert kinds == [
        (1, True, False, False, True),  # \u0000: no jsonb (PostgreSQL refuses it), the text kept
        (2, True, False, True, True),
        (3, False, True, False, True),  # NUL and bad UTF-8: the bytes
        (4, True, False, False, True),  # a lone surrogate: not JSON either reader takes
        (5, True, False, True, True),
        (6, True, False, True, True),  # 9 MB: longer than a batch
        (7, True, False, True, True),
        (8, True, False, False, True),
        (9, True, False, True, True),
        (10, True, False, False, False),  # the torn tail
    ]
    report = run_cli("check", "--json", f"{db_url}#m{session}")
    assert report.returncode == 1, report.stderr
    local = run_cli("check", "--json", str(session))
    assert _without_paths(json.loads(report.stdout)) == _without_paths(json.loads(local.stdout))
    again = push(db_url, str(session), "--machine", "m", "--no-redact")
    assert "pushed 0 files (1 unchanged)" in again.stdout


def test_secrets_never_reach_the_database_unless_no_redact(pg: Cluster, tmp_path):
    from tests.secret_samples import planted

    kinds = planted(41)[:6]
    secret_name = kinds[0][1]
    folder = tmp_path / "sessions"
    folder.mkdir()
    session = folder / f"{secret_name}.jsonl"
    records = [
        {
            "type": "message",
            "id": f"e{k}",
            "parentId": f"e{k - 1}" if k else None,
            "createdAt": "2026-03-15T19:10:00.000Z",
            "message": {"role": "user", "content": text},
        }
        for k, (_kind, _secret, text) in enumerate(kinds)
    ]
    body = b"".join(json.dumps(r).encode() + b"\n" for r in records)
    torn = json.dumps({"type": "message", "id": "t", "message": {"content": "key " + kinds[1][1]}})
    session.write_bytes(body + torn.encode()[: torn.index(kinds[1][1]) + len(kinds[1][1]) - 5])
    secrets = [secret for _kind, secret, _text in kinds]
    masked_url, raw_url = pg.fresh_database("masked"), pg.fresh_database("unmasked")
    for url in (masked_url, raw_url):
        init(url)
    done = push(masked_url, str(folder), "--machine", "m")
    assert done.returncode == 0, done.stderr
    assert "archived as" in done.stdout and "REDACTED-" in done.stdout  # (its name held a secret)
    dumped = _everything(masked_url)
    leaked = [s for s in secrets if s in dumped or s[:-5] in dumped]
    assert not leaked
    assert "[REDACTED:" in dumped
    assert push(raw_url, str(folder), "--machine", "m", "--no-redact").returncode == 0
    dumped = _everything(raw_url)
    assert all(s in dumped for s in secrets)


def _everything(url: str) -> str:
    with psycopg.connect(url) as conn:
        return "\n".join(
            row[0]
            for table in ("machines", "files", "lines")
            for row in conn.execute(f"SELECT row_to_json(t)::text FROM {table} t").fetchall()
        )


# -- reading an archived session back ----------------------------------------------------


def _without_paths(report):
    if isinstance(report, dict):
        return {k: _without_paths(v) for k, v in report.items() if k not in ("path", "agent")}
    if isinstance(report, list):
        return [_without_paths(v) for v in report]
    return report


def _sample_files() -> list[Path]:
    return sorted(p for p in SAMPLES.rglob("*.jsonl"))


def test_check_and_export_of_an_archived_sample_equal_those_of_the_file(db_url):
    init(db_url)
    assert push(db_url, str(SAMPLES), "--machine", "m", "--no-redact").returncode == 0
    samples = _sample_files()
    addresses = [f"{db_url}#m{path}" for path in samples]
    local = run_cli("check", "--json", *map(str, samples))
    remote = run_cli("check", "--json", *addresses)
    assert remote.returncode == local.returncode, remote.stderr
    ours, theirs = local.stdout.splitlines(), remote.stdout.splitlines()
    assert len(ours) == len(theirs) == len(samples)
    for path, mine, archived_one in zip(samples, ours, theirs, strict=True):
        mine, archived_one = json.loads(mine), json.loads(archived_one)
        if (path.parent / path.stem / "subagents").is_dir():  # (as over SSH: a sub-agent's usage is its own file's)
            mine.pop("usage"), archived_one.pop("usage")
        assert _without_paths(archived_one) == _without_paths(mine), path
        assert archived_one["path"] == f"{db_url}#m{path}"
    one_per_format = {path.relative_to(SAMPLES).parts[0]: path for path in reversed(samples)}
    for path in sorted(one_per_format.values()):  # (export reads as check does: one file of each format)
        exported = run_cli("export", f"{db_url}#m{path}", "--to", "json")
        original = run_cli("export", str(path), "--to", "json")
        assert exported.returncode == original.returncode, exported.stderr
        assert exported.stdout == original.stdout, path
    for path in samples:
        assert archived(db_url, "m", path) == path.read_bytes()


def test_diff_reads_an_archived_session(db_url):
    init(db_url)
    path = SAMPLES / "tree" / "branched-summary.jsonl"
    assert push(db_url, str(path), "--machine", "m", "--no-redact").returncode == 0
    local = run_cli("diff", "--json", str(path))
    remote = run_cli("diff", "--json", f"{db_url}#m{path}")
    assert remote.returncode == local.returncode == 0, remote.stderr
    assert _without_paths(json.loads(remote.stdout)) == _without_paths(json.loads(local.stdout))


def test_an_archived_session_is_not_edited_here(db_url, samples):
    init(db_url)
    path = samples / "tree" / "crash-torn.jsonl"
    assert push(db_url, str(path), "--machine", "build-box", "--no-redact").returncode == 0
    refused = run_cli("fix", "--drop-torn", f"{db_url}#build-box{path}")
    assert refused.returncode == 1
    assert (
        refused.stderr.count("\n") == 1 and "this session lives on machine build-box in the archive" in refused.stderr
    )
    assert run_cli("fix", "--drop-torn", "--dry-run", str(path)).returncode == 0  # (the local file: it would)


def test_an_address_that_names_no_session_is_one_line(db_url):
    init(db_url)
    for address, said in (
        (f"{db_url}#m/no/such.jsonl", "no such session in the archive"),
        (db_url, "names the archive, not one session in it"),
        (f"{db_url}#m", "DB_URL#MACHINE/PATH"),
    ):
        done = run_cli("check", "--json", address)
        assert done.returncode == 2 and said in done.stderr, (address, done.stderr)


@pytest.mark.parametrize("redact", [True, False])
def test_redaction_flag_change_sends_again(db_url, tmp_path, redact):
    init(db_url)
    session = tmp_path / "s.jsonl"
    session.write_bytes(tree_lines(3))
    first = ["--no-redact"] if redact else []
    assert push(db_url, str(session), "--machine", "m", *first).returncode == 0
    second = [] if redact else ["--no-redact"]
    done = push(db_url, str(session), "--machine", "m", *second)
    assert f"redaction turned {'on' if redact else 'off'}" in done.stdout


def test_a_push_by_the_owner_leaves_the_trigram_index_nothing_pending(pg: Cluster, db_url):
    """A push adds its chunks to the trigram index's pending list in bulk, then the owner's push merges the
    list into the index (a search reads all of a pending list: it would wait for autovacuum otherwise)."""
    init(db_url)
    database = psycopg.conninfo.conninfo_to_dict(db_url)["dbname"]
    pg.psql("CREATE EXTENSION IF NOT EXISTS pgstattuple", database=database)
    assert push(db_url, str(SAMPLES), "--machine", "m").returncode == 0
    pending = pg.psql("SELECT pending_pages, pending_tuples FROM pgstatginindex('chunks_trigrams')", database)
    assert pending.strip() == "0|0"
    with psycopg.connect(db_url) as conn:  # (and it had chunks to take)
        assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] > 500
