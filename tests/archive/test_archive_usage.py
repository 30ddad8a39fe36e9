"""``usage DB_URL``: the archive's figures are local ``usage``'s over the same
files (one computation: each file's usage worked out at push time by the
local code, summed by the same tally), by every grouping, kept up to date
by each push."""

from __future__ import annotations

import json
import shutil
import socket

import psycopg
import pytest

from tests.support import REPO, run_cli

from .test_archive import init, push, tree_lines

REAL = REPO / "tests" / "data" / "real"  # four formats, a Claude Code session with its sub-agents


def usage_json(*args: str) -> dict:
    done = run_cli("usage", "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def pushed(db_url, tmp_path):
    """A copy of the real sessions, pushed as this host (the archive's default machine)."""
    folder = tmp_path / "real"
    shutil.copytree(REAL, folder)
    init(db_url)
    done = push(db_url, str(folder), "--no-redact")
    assert done.returncode == 0, done.stderr
    return db_url, folder


def without_address(report: dict, url: str, machine: str) -> dict:
    """``report`` with each session's archive address (DB_URL#MACHINE) taken off its path."""
    prefix = f"{url}#{machine}"
    for row in report["rows"]:
        assert row["key"].startswith(prefix)
        row["key"] = row["key"].removeprefix(prefix)
    return report


def test_usage_of_the_archive_equals_local_usage_of_the_same_files(pushed):
    """By every grouping (one push: each grouping only reads it), and for one session addressed alone."""
    url, folder = pushed
    for by in ["session", "machine", "user", "project", "day", "model"]:
        local = usage_json(str(folder), "--by", by)
        archived = usage_json(url, "--by", by)
        if by == "session":
            archived = without_address(archived, url, socket.gethostname())
        assert archived == local, by
        assert local["total"]["responses"] > 100 and local["files"] == 19
        if by == "session":  # (the sub-agents rolled up into their session, as locally)
            assert not any("/subagents/" in row["key"] for row in local["rows"])
    session = folder / "claude" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
    local = usage_json(str(session), "--by", "model")
    archived = usage_json(f"{url}#{socket.gethostname()}{session}", "--by", "model")
    assert archived["rows"] == local["rows"] and archived["files"] == 1
    missing = run_cli("usage", f"{url}#{socket.gethostname()}/no/such.jsonl")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "no such session" in missing.stderr


def test_usage_rows_follow_the_files_push_by_push(pushed):
    url, folder = pushed
    with psycopg.connect(url) as conn:
        computed = conn.execute("SELECT file_id, computed_at FROM file_usage ORDER BY 1").fetchall()
    again = push(url, str(folder), "--no-redact")
    assert again.returncode == 0 and "pushed 0 files" in again.stdout
    with psycopg.connect(url) as conn:  # nothing worked out again
        assert conn.execute("SELECT file_id, computed_at FROM file_usage ORDER BY 1").fetchall() == computed
    grown = folder / "pi" / "session-01.jsonl"
    grown.write_bytes(grown.read_bytes() + (folder / "pi" / "large-session.jsonl").read_bytes().split(b"\n", 1)[1])
    assert push(url, str(folder), "--no-redact").returncode == 0
    assert usage_json(url, "--by", "model") == usage_json(str(folder), "--by", "model")


def test_files_archived_without_their_usage_are_said_and_the_next_push_adds_it(pushed):
    url, folder = pushed
    with psycopg.connect(url) as conn:  # (as pushed by phase 1's session-tui)
        conn.execute("DELETE FROM file_usage WHERE file_id IN (SELECT id FROM files WHERE path LIKE '%/codex/%')")
    partial = usage_json(url, "--by", "machine")
    assert partial["unsummarised"] == 5 and partial["total"] != usage_json(str(folder), "--by", "machine")["total"]
    said = run_cli("usage", url, "--by", "machine")
    assert "5 archived without usage (pushed by an older session-tui: push again)" in said.stdout
    assert push(url, str(folder), "--no-redact").returncode == 0
    whole = usage_json(url, "--by", "machine")
    assert "unsummarised" not in whole and whole["rows"] == usage_json(str(folder), "--by", "machine")["rows"]


def test_local_usage_by_machine_and_user_names_this_host_and_the_files_owner(tmp_path):
    import getpass

    folder = tmp_path / "real"
    shutil.copytree(REAL / "codex", folder)
    machine = usage_json(str(folder), "--by", "machine")
    assert [row["key"] for row in machine["rows"]] == [socket.gethostname()]
    user = usage_json(str(folder), "--by", "user")
    assert [row["key"] for row in user["rows"]] == [getpass.getuser()]
    assert machine["total"] == user["total"]


def test_usage_of_an_archive_that_cannot_be_read_is_one_line(db_url):
    done = run_cli("usage", db_url)  # (no schema yet)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "archive init" in done.stderr


def test_a_redacted_push_masks_the_project_user_and_usage_it_archives(db_url, tmp_path):
    from tests.secret_samples import planted

    secret = planted(41)[0][1]
    folder = tmp_path / secret  # (a tree session records no cwd: its project is its folder)
    folder.mkdir()
    (folder / "s.jsonl").write_bytes(tree_lines(4))
    init(db_url)
    assert push(db_url, str(folder)).returncode == 0
    with psycopg.connect(db_url) as conn:
        rows = conn.execute(
            "SELECT f.project, f.os_user, u.groups::text, u.error FROM files f JOIN file_usage u ON u.file_id = f.id"
        ).fetchall()
    assert len(rows) == 1 and rows[0][0] is not None
    assert secret not in repr(rows) and "REDACTED-" in rows[0][0]
