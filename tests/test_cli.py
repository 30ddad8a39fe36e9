"""`session-tui check` as a user runs it: real subprocesses, real files."""

from __future__ import annotations

import json
import os

from tests.support import SAMPLES, run_cli


def test_exit_0_when_clean_and_text_block():
    r = run_cli("check", str(SAMPLES / "tree" / "branched-summary.jsonl"))
    assert r.returncode == 0, r.stderr
    assert "format tree · 22 entries · 2 leaves · 1 branch point · 1 summary" in r.stdout
    assert "active leaf 0fe3c303-096b-49f1-837b-e65ac554698a (line 24)" in r.stdout
    assert "no problems" in r.stdout


def test_exit_1_with_each_problem_and_its_line():
    r = run_cli("check", str(SAMPLES / "tree" / "crash-torn.jsonl"))
    assert r.returncode == 1
    assert "line 6: error: dangling_tool_call" in r.stdout and "line 8: error: torn_tail" in r.stdout


def test_exit_2_for_missing_and_non_session_paths_with_one_line_each(tmp_path):
    text = tmp_path / "notes.jsonl"
    text.write_text("hello\nworld\n")
    binary = tmp_path / "blob.jsonl"
    binary.write_bytes(os.urandom(3000).replace(b"\n", b"x") + b"\n")
    other = tmp_path / "other.jsonl"
    other.write_text('{"foo": 1}\n')
    r = run_cli("check", str(tmp_path / "nope.jsonl"), str(text), str(binary), str(other))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 4 and "Traceback" not in r.stderr
    assert "no such file" in lines[0] and "not a session" in lines[1]
    assert "not a recognised session format" in lines[3]


def test_devices_and_fifos_are_refused(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    r = run_cli("check", "/dev/zero", str(fifo))
    assert r.returncode == 2 and r.stderr.count("not a regular file") == 2


def test_a_good_file_still_reported_beside_a_bad_path(tmp_path):
    r = run_cli("check", "--json", str(tmp_path / "nope.jsonl"), str(SAMPLES / "chat" / "session-fix-rounding.jsonl"))
    assert r.returncode == 2 and len(r.stdout.splitlines()) == 1


def test_empty_file_is_an_empty_session(tmp_path):
    empty = tmp_path / "new.jsonl"
    empty.write_bytes(b"")
    r = run_cli("check", "--json", str(empty))
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["entries"] == 0 and rep["active_leaf"] is None and rep["active_leaf_line"] is None


def test_directory_without_sessions(tmp_path):
    r = run_cli("check", str(tmp_path))
    assert r.returncode == 2 and "no session files" in r.stderr


def test_format_override(tmp_path):
    f = tmp_path / "x.jsonl"
    f.write_text('{"role":"user","content":"hi","type":"odd"}\n')
    assert run_cli("check", str(f)).returncode == 2
    r = run_cli("check", "--json", "--format", "chat", str(f))
    assert r.returncode == 0 and json.loads(r.stdout)["format"] == "chat"


def test_escape_sequences_from_the_file_never_reach_the_terminal(tmp_path):
    evil = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x9b31m"
    f = tmp_path / "evil.jsonl"
    f.write_text(json.dumps({"type": "session", "version": 1, "id": "s", "createdAt": "x"}) + "\n"
                 + json.dumps({"type": "message", "id": "a" + evil, "parentId": "gone" + evil,
                               "createdAt": "x", "message": {"role": "user", "content": evil}}) + "\n")
    for args in (["check", str(f)], ["check", "--json", str(f)]):
        r = run_cli(*args)
        assert r.returncode == 1
        assert "\x1b" not in r.stdout and "\x07" not in r.stdout and "\x9b" not in r.stdout
    r = run_cli("check", str(f))
    assert "␛]52;c;ZXZpbA==␇" in r.stdout


def test_python_dash_m_and_help():
    r = run_cli("--help")
    assert r.returncode == 0 and "check" in r.stdout
    r = run_cli("check")
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_default_paths_prefer_known_locations(tmp_path, monkeypatch):
    from session_tui import cli

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert cli.default_paths() == []
    (tmp_path / "sample_sessions").mkdir()
    assert cli.default_paths() == ["sample_sessions"]
    (tmp_path / ".pi" / "agent" / "sessions").mkdir(parents=True)
    assert cli.default_paths() == [str(tmp_path / ".pi" / "agent" / "sessions")]


def test_opening_a_missing_path_is_one_line():
    r = run_cli("/no/such/session.jsonl")
    assert r.returncode == 2 and "no such file" in r.stderr and "Traceback" not in r.stderr


def test_a_file_and_a_directory_together_are_refused_in_one_line():
    r = run_cli(str(SAMPLES / "tree" / "crash-torn.jsonl"), str(SAMPLES))
    assert r.returncode == 2 and "one session file, or directories" in r.stderr and "Traceback" not in r.stderr
