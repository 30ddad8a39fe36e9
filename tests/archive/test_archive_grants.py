"""Who sees what (``archive grant``): a machine's pusher role writes that
machine's rows only, a reader writes nothing, a reader restricted to some
projects or a machine sees only those, all enforced by PostgreSQL's
row-level security, on a real server (tests/archive/postgres.py)."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import psycopg
import pytest

from tests.support import REPO, run_cli

from .postgres import Cluster
from .test_archive import archived, init, push, snapshot

REAL = REPO / "tests" / "data" / "real"
_numbers = itertools.count()


class Archive:
    """A fresh archive owned by the archive's role, with two machines pushed (a and b, other projects)."""

    def __init__(self, pg: Cluster, tmp_path: Path) -> None:
        self.pg = pg
        self.database = f"g{next(_numbers)}"
        self.url = pg.fresh_database(self.database)
        init(self.url)
        self.a, self.b = tmp_path / "a" / "codex", tmp_path / "b" / "pi"
        shutil.copytree(REAL / "codex", self.a)
        shutil.copytree(REAL / "pi", self.b)
        for machine, folder in (("a", self.a), ("b", self.b)):
            done = push(self.url, str(folder), "--machine", machine)
            assert done.returncode == 0, done.stderr

    def role(self, kind: str) -> str:
        """A new login role (an admin makes it: the archive's owner may not); its name."""
        name = f"{kind}_{self.database}"
        self.pg.psql(f"CREATE ROLE {name} LOGIN")
        return name

    def url_of(self, role: str) -> str:
        return self.pg.url(role, self.database)

    def grant(self, *args: str) -> None:
        done = run_cli("archive", "grant", self.url, *args)
        assert done.returncode == 0, done.stderr


@pytest.fixture
def archive(pg: Cluster, tmp_path: Path) -> Archive:
    return Archive(pg, tmp_path)


def test_a_pusher_pushes_its_machine_as_the_owner_would(archive, tmp_path):
    pusher = archive.role("pusher")
    archive.grant("--pusher", pusher, "--machine", "c")
    folder = tmp_path / "c"
    shutil.copytree(REAL / "claude", folder)
    done = push(archive.url_of(pusher), str(folder), "--machine", "c")
    assert done.returncode == 0, done.stderr
    session = folder / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
    assert archived(archive.url, "c", session) == session.read_bytes()
    assert push(archive.url_of(pusher), str(folder), "--machine", "c").stdout.startswith("pushed 0 files")
    seen = json.loads(run_cli("usage", "--json", "--by", "machine", archive.url_of(pusher)).stdout)
    assert [row["key"] for row in seen["rows"]] == ["c"]  # (its own machine's rows only)


def test_a_pusher_cannot_push_as_another_machine_and_the_archive_is_unchanged(archive):
    pusher = archive.role("pusher")
    archive.grant("--pusher", pusher, "--machine", "a")
    before = snapshot(archive.url)
    done = push(archive.url_of(pusher), str(archive.b), "--machine", "b")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert f"role '{pusher}' may not push as machine 'b'" in done.stderr and "archive grant" in done.stderr
    assert snapshot(archive.url) == before


def test_a_pusher_cannot_write_another_machines_rows_even_in_sql(archive):
    pusher = archive.role("pusher")
    archive.grant("--pusher", pusher, "--machine", "a")
    before = snapshot(archive.url)
    with psycopg.connect(archive.url) as conn:
        b_machine = conn.execute("SELECT id FROM machines WHERE name = 'b'").fetchone()[0]
        b_file = conn.execute("SELECT id FROM files WHERE machine_id = %s LIMIT 1", (b_machine,)).fetchone()[0]
    refused = [
        ("INSERT INTO machines (name) VALUES ('z')", ()),
        (
            "INSERT INTO files (machine_id, path, format, size, complete_to, lines, complete_lines, stream_size, "
            "stream_complete, mtime_ns, head_length, head_sha256, tail_start, tail_sha256, redacted) "
            "VALUES (%s, '/x.jsonl', 'pi', 0, 0, 0, 0, 0, 0, 0, 0, '', 0, '', true)",
            (b_machine,),
        ),
        (
            "INSERT INTO lines (file_id, start, line_no, byte_offset, terminated, text) "
            "VALUES (%s, 1e9, 1, 0, true, 'x')",
            (b_file,),
        ),
        ("INSERT INTO file_usage (file_id, size, mtime_ns, priced_by, error) VALUES (%s, 0, 0, 'x', 'x')", (b_file,)),
        ("UPDATE files SET machine_id = %s", (b_machine,)),  # (its own files moved to b)
    ]
    with psycopg.connect(archive.url_of(pusher), autocommit=True) as conn:
        for statement, args in refused:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement, args)
        for statement in (  # another machine's rows: not seen, so not changed
            "UPDATE machines SET name = 'b2' WHERE name = 'b'",
            "UPDATE files SET size = 0 WHERE machine_id = %s",
            "DELETE FROM files WHERE machine_id = %s",
            "DELETE FROM lines WHERE file_id IN (SELECT id FROM files WHERE machine_id = %s)",
            "UPDATE file_usage SET error = 'x', groups = NULL WHERE file_id IN "
            "(SELECT id FROM files WHERE machine_id = %s)",
        ):
            args = (b_machine,) if "%s" in statement else ()
            assert conn.execute(statement, args).rowcount == 0
        assert conn.execute("DELETE FROM lines WHERE file_id = %s", (b_file,)).rowcount == 0
        assert conn.execute("SELECT count(*) FROM lines WHERE file_id = %s", (b_file,)).fetchone()[0] == 0
    assert snapshot(archive.url) == before


def test_a_reader_reads_and_cannot_write(archive):
    reader = archive.role("reader")
    archive.grant("--reader", reader)
    before = snapshot(archive.url)
    seen = json.loads(run_cli("usage", "--json", "--by", "machine", archive.url_of(reader)).stdout)
    assert sorted(row["key"] for row in seen["rows"]) == ["a", "b"]
    done = push(archive.url_of(reader), str(archive.a), "--machine", "a")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "may not push as machine 'a'" in done.stderr
    with psycopg.connect(archive.url_of(reader), autocommit=True) as conn:
        for statement in (
            "UPDATE files SET size = 0",
            "DELETE FROM lines",
            "DELETE FROM file_usage",
            "INSERT INTO machines (name) VALUES ('z')",
            "UPDATE archive_grants SET machine = NULL",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
    assert snapshot(archive.url) == before


@pytest.mark.parametrize("restriction", ["project", "machine"])
def test_a_restricted_reader_sees_only_its_projects_or_machine(archive, restriction):
    reader = archive.role("reader")
    if restriction == "project":
        with psycopg.connect(archive.url) as conn:
            projects = {p for (p,) in conn.execute("SELECT DISTINCT project FROM files WHERE path LIKE '%/pi/%'")}
        assert len(projects) >= 2
        wanted = sorted(projects)[0]
        archive.grant("--reader", reader, "--project", wanted.replace(wanted[1:4], "*", 1))
    else:
        archive.grant("--reader", reader, "--machine", "b")
    url = archive.url_of(reader)
    seen = json.loads(run_cli("usage", "--json", "--by", "project", url).stdout)
    everything = json.loads(run_cli("usage", "--json", "--by", "project", archive.url).stdout)
    if restriction == "project":
        assert [row["key"] for row in seen["rows"]] == [wanted]
        assert seen["rows"] == [row for row in everything["rows"] if row["key"] == wanted]
    else:
        b_projects = json.loads(run_cli("usage", "--json", "--by", "project", str(archive.b)).stdout)
        assert seen["rows"] == b_projects["rows"]
    # check: a session of the reader's rows reads; one of another machine's is not there for it
    hidden = archive.a / "session-01.jsonl"
    refused = run_cli("check", "--json", f"{url}#a{hidden}")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "no such session" in refused.stderr
    assert run_cli("check", "--json", f"{archive.url}#a{hidden}").returncode in (0, 1)  # (the owner reads it)
    with psycopg.connect(url) as conn:  # its lines neither
        assert (
            conn.execute(
                "SELECT count(*) FROM lines l JOIN files f ON f.id = l.file_id "
                "JOIN machines m ON m.id = f.machine_id WHERE m.name = 'a'"
            ).fetchone()[0]
            == 0
        )


def test_grant_errors_are_one_line_and_revoke_takes_it_back(archive):
    unknown = run_cli("archive", "grant", archive.url, "--reader", "nobody_here")
    assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1 and "an admin creates it" in unknown.stderr
    pusher = archive.role("pusher")
    bare = run_cli("archive", "grant", archive.url, "--pusher", pusher)
    assert bare.returncode == 2 and "--machine" in bare.stderr
    not_owner = run_cli("archive", "grant", archive.url_of(pusher), "--reader", pusher)
    assert not_owner.returncode == 2 and not_owner.stderr.count("\n") == 1
    archive.grant("--pusher", pusher, "--machine", "a")
    listed = run_cli("archive", "grant", archive.url)
    assert listed.stdout == f"role '{pusher}' may push as machine 'a'\n"
    gone = run_cli("archive", "grant", archive.url, "--pusher", pusher, "--revoke")
    assert gone.returncode == 0 and "took back 1 grant" in gone.stdout
    again = push(archive.url_of(pusher), str(archive.a), "--machine", "a")
    assert again.returncode == 2 and again.stderr.count("\n") == 1


def test_roles_granted_before_schema_4_may_read_and_push_its_chunks(pg: Cluster, tmp_path):
    """An archive of schema 3 with a reader and a pusher: migrated, they keep
    what they had, on the chunks too (a reader's search reads them)."""
    from session_tui.model.archive.migrations import MIGRATIONS

    name = f"g{next(_numbers)}"
    url = pg.fresh_database(name)
    reader, pusher = f"reader_{name}", f"pusher_{name}"
    for role in (reader, pusher):
        pg.psql(f"CREATE ROLE {role} LOGIN")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        conn.execute(
            "CREATE TABLE schema_version (version integer PRIMARY KEY, applied_at timestamptz "
            "NOT NULL DEFAULT now(), applied_by text NOT NULL DEFAULT current_user)"
        )
        for number, migration in enumerate(MIGRATIONS[:3], 1):
            conn.execute(migration)
            conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (number,))
        for role, kind, machine in ((reader, "reader", None), (pusher, "pusher", "m")):
            conn.execute(
                f"GRANT SELECT ON schema_version, archive_grants, machines, files, lines, file_usage TO {role}"
            )
            conn.execute(
                "INSERT INTO archive_grants (role, role_name, kind, machine) VALUES (%s::regrole, %s, %s, %s)",
                (role, role, kind, machine),
            )
    init(url)
    with psycopg.connect(url) as conn:
        rights = conn.execute(
            "SELECT has_table_privilege(%s, 'chunks', 'SELECT'), has_table_privilege(%s, 'chunks', 'INSERT'), "
            "has_table_privilege(%s, 'chunks', 'INSERT')",
            (reader, reader, pusher),
        ).fetchone()
    assert rights == (True, False, True)
    (tmp_path / "s.jsonl").write_text(
        '{"type":"message","id":"e0","parentId":null,"createdAt":"2026-03-15T19:10:00.000Z",'
        '"message":{"role":"user","content":"migratedword here"}}\n'
    )
    assert push(url, str(tmp_path), "--machine", "m").returncode == 0
    done = run_cli("search", "migratedword", pg.url(reader, name), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["total"] == 1, done.stderr
