"""`session-tui check` as a user runs it: real subprocesses, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson

from tests.builders.tree import chain
from tests.support import REPO, SAMPLES, run_cli

UNDECODABLE = b"b\x9b\x9d.jsonl"  # not UTF-8: a CSI and an OSC terminator as raw bytes


def folder_with_an_undecodable_name(tmp_path: Path) -> str:
    """a.jsonl, b<9B><9D>.jsonl, c.jsonl: sessions; d<9B>.jsonl: not one. The folder as os.fsdecode gives it."""
    folder = os.fsencode(tmp_path / "s")
    os.mkdir(folder)
    for name, data in (
        (b"a.jsonl", chain(1)),
        (UNDECODABLE, chain(2)),
        (b"c.jsonl", chain(3)),
        (b"d\x9b.jsonl", b"hello\n"),
    ):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    return os.fsdecode(folder)


def test_exit_0_when_clean_and_text_block():
    r = run_cli("check", str(SAMPLES / "tree" / "branched-summary.jsonl"))
    assert r.returncode == 0, r.stderr
    assert "format tree · 22 entries · 2 leaves · 1 branch point · 1 summary" in r.stdout
    assert "active leaf 0fe3c303-096b-49f1-837b-e65ac554698a (line 24)" in r.stdout
    assert "no problems" in r.stdout


def test_exit_1_with_each_problem_and_its_line():
    r = run_cli("check", str(SAMPLES / "tree" / "crash-torn.jsonl"))
    assert r.returncode == 1
    assert "line 6: error: call without result" in r.stdout and "line 8: error: torn last line" in r.stdout


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
    assert "not a session (no known format; its first record has keys: foo)" in lines[3]


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
    f.write_text(
        json.dumps({"type": "session", "version": 1, "id": "s", "createdAt": "x"})
        + "\n"
        + json.dumps(
            {
                "type": "message",
                "id": "a" + evil,
                "parentId": "gone" + evil,
                "createdAt": "x",
                "message": {"role": "user", "content": evil},
            }
        )
        + "\n"
    )
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
    from session_tui.commands import open as cli

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


def test_check_json_reports_every_file_beside_a_name_that_is_not_utf8(tmp_path):
    folder = folder_with_an_undecodable_name(tmp_path)
    r = run_cli("check", "--json", folder)
    assert r.returncode == 2 and "internal error" not in r.stderr
    reports = [orjson.loads(line) for line in r.stdout.splitlines()]  # strict UTF-8 JSON, each line
    assert [(os.path.basename(rep["path"]), rep["entries"]) for rep in reports] == [
        ("a.jsonl", 1),
        ("b<9B><9D>.jsonl", 2),
        ("c.jsonl", 3),
    ]
    assert r.stderr.count("\n") == 1 and "d<9B>.jsonl: not a session" in r.stderr


def test_check_text_shows_undecodable_name_bytes_as_placeholders(tmp_path):
    folder = folder_with_an_undecodable_name(tmp_path)
    r = run_cli("check", folder)  # run_cli decodes strictly: a raw 0x9B byte would fail here
    assert r.returncode == 2 and "internal error" not in r.stderr
    assert "s/b<9B><9D>.jsonl\n  format tree · 2 entries" in r.stdout and "s/c.jsonl" in r.stdout
    assert "d<9B>.jsonl: not a session" in r.stderr
    assert not any("\x80" <= c <= "\x9f" for c in r.stdout + r.stderr)


def test_a_symlink_loop_is_one_line_and_the_rest_of_its_folder_is_checked(tmp_path):
    for name in ("a.jsonl", "c.jsonl"):
        (tmp_path / name).write_bytes(chain(1))
    (tmp_path / "b.jsonl").symlink_to("b.jsonl")
    r = run_cli("check", "--json", str(tmp_path))
    assert r.returncode == 2 and len(r.stdout.splitlines()) == 2
    assert r.stderr == f"session-tui check: {tmp_path / 'b.jsonl'}: Too many levels of symbolic links\n"
    r = run_cli(str(tmp_path / "b.jsonl"))  # opening it says why, not "no such file"
    assert r.returncode == 2 and r.stderr.endswith("b.jsonl: Too many levels of symbolic links\n")


def test_an_edit_through_a_symlink_is_refused_in_one_line(tmp_path):
    target = tmp_path / "real.jsonl"
    target.write_bytes(chain(2))
    (tmp_path / "link.jsonl").symlink_to(target)
    r = run_cli("set-leaf", str(tmp_path / "link.jsonl"), "m0", "--force")
    assert r.returncode == 1 and target.read_bytes() == chain(2)
    assert r.stderr == f"session-tui set-leaf: refused: {tmp_path / 'link.jsonl'}: is a symbolic link; not followed\n"


def test_what_the_terminal_cannot_encode_is_escaped_never_an_error(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(1))
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    r = subprocess.run(
        [sys.executable, "-m", "session_tui", "check", str(path)], capture_output=True, env=env, cwd=REPO, timeout=120
    )
    assert r.returncode == 0 and r.stderr == b""
    assert b"format tree \\xb7 1 entry" in r.stdout  # "·" as ASCII


def test_a_write_the_system_refuses_is_one_line_not_an_internal_error(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(2))
    out = tmp_path / "no-such-dir" / "fork.jsonl"
    r = run_cli("fork", str(path), "m0", "-o", str(out))
    assert r.returncode == 2 and r.stderr == f"session-tui fork: {out}: No such file or directory\n"


def test_the_command_lines_choices_name_every_format_and_export_target():
    from session_tui.actions.choices import EXPORT_TARGETS, FORMAT_NAMES
    from session_tui.actions.export import TARGETS
    from session_tui.model.formats import FORMATS

    assert FORMAT_NAMES == tuple(sorted(FORMATS)) and EXPORT_TARGETS == TARGETS


def test_help_and_the_no_folders_message_name_every_known_location_and_client(tmp_path, monkeypatch, capsys):
    """The open parser's PATH help and the message without folders come from
    model/catalog/known.py; resume's help names every client that resumes."""
    from session_tui.cli import build_open_parser
    from session_tui.commands.open import open_tui
    from session_tui.model.catalog.known import KNOWN_LOCATIONS
    from session_tui.model.formats import FORMATS
    from session_tui.model.settings import Settings

    shown = " ".join(build_open_parser().format_help().split())
    assert all(location in shown for location in KNOWN_LOCATIONS), shown
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert open_tui([], None, False, Settings()) == 2
    said = capsys.readouterr().err
    assert all(location in said for location in KNOWN_LOCATIONS), said
    listed = " ".join(run_cli("--help").stdout.split())
    resume = listed[listed.index("resume ") :][:300]
    titles = {fmt.client.title for fmt in FORMATS.values() if fmt.client is not None}
    assert len(titles) == 7 and all(title in resume for title in titles), resume


def test_every_verb_runs_the_collector_less_often_than_python_does():
    """The command line's policy, set once at its entry (model/collector.py):
    a 5 GB session is millions of objects the default passes walk again and again."""
    from session_tui.model.collector import THRESHOLDS

    code = (
        "import gc, sys; from session_tui.cli import main; "
        "main(['check', '--json', sys.argv[1]]); print(gc.get_threshold(), file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(SAMPLES / "tree" / "branched-summary.jsonl")],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.stderr.strip() == str(THRESHOLDS) and THRESHOLDS[0] > 700
