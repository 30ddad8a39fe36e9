"""The command line's messages about what it was given: a missing argument
named as it is, a bad path an error (exit 2, one line) in every verb."""

from __future__ import annotations

import shutil

import pytest

from tests.support import run_cli


@pytest.mark.parametrize(("verb", "missing"), [("search", "QUERY"), ("diff", "FILE")])
def test_a_missing_argument_is_named_and_optional_ones_are_not(verb, missing):
    result = run_cli(verb)
    assert result.returncode == 2
    last = result.stderr.strip().splitlines()[-1]
    assert last == f"session-tui {verb}: error: the following arguments are required: {missing}"


def test_a_dry_run_never_says_done_in_any_verb(tmp_path):
    import os
    import re
    import shutil

    from tests.support import SAMPLES

    torn = tmp_path / "crash-torn.jsonl"
    shutil.copy(SAMPLES / "tree" / "crash-torn.jsonl", torn)
    branched = tmp_path / "branched.jsonl"
    shutil.copy(SAMPLES / "tree" / "branched-summary.jsonl", branched)
    for path in (torn, branched):
        os.utime(path, (1e9, 1e9))  # long written: no live agent
    before = {p: p.read_bytes() for p in (torn, branched)}
    runs = [
        ("fix", "--dry-run", str(torn)),
        ("fix", "--dry-run", "--drop-torn", str(torn)),
        ("fix", "--dry-run", "--cut", "--drop-torn", str(torn)),
        ("fix", "--dry-run", "--drop-bad", str(torn)),
        ("set-leaf", "--dry-run", str(branched), "2"),
        ("fork", "--dry-run", str(branched), "2"),
        ("clean", "--dry-run", str(tmp_path)),
    ]
    for args in runs:
        result = run_cli(*args)
        said = result.stdout + result.stderr
        assert result.returncode in (0, 1), (args, said)
        assert not re.search(r"\bdone\b", said, re.IGNORECASE), (args, said)
    assert {p: p.read_bytes() for p in before} == before


def binary_piece(path):
    """5 KB of a program (here the Python running the tests), with no newline: one torn "line"."""
    import sys

    with open(sys.executable, "rb") as f:
        path.write_bytes(f.read(5000).replace(b"\n", b" "))
    return path


def test_a_piece_of_a_binary_is_refused_by_every_verb_with_the_picker_s_reason(tmp_path):
    from session_tui.model.catalog.info_reader import read_info

    piece = binary_piece(tmp_path / "piece.jsonl")
    info = read_info(str(piece))
    reason = "not a session (no JSON object in its first lines)"
    assert (info.format, info.problems()) == (None, [reason])
    verbs = [
        ("check", str(piece)),
        ("export", str(piece), "--to", "md"),
        ("diff", str(piece)),
        ("compactions", str(piece)),
        ("fix", str(piece)),
        ("set-leaf", str(piece), "1"),
        ("fork", str(piece), "1"),
        ("resume", str(piece)),
        ("archive", "push", "postgresql://127.0.0.1:1/none", str(piece)),
    ]
    for args in verbs:
        result = run_cli(*args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert result.stderr.strip().endswith(f"{piece}: {reason}"), (args, result.stderr)
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert result.stderr.startswith(_said_by(args)) and "internal error" not in result.stderr
    opened = run_cli(str(piece))  # the session view: refused before the screen
    assert opened.returncode == 2 and opened.stderr.strip() == f"session-tui: {piece}: {reason}"


def test_a_first_line_being_written_is_a_session_not_a_refusal(tmp_path):
    from session_tui.model.catalog.info_reader import read_info

    partial = tmp_path / "new.jsonl"
    partial.write_bytes(b'{"type":"session","version":1,"id":"s1","crea')
    info = read_info(str(partial))
    assert (info.format, info.error, info.torn) == ("tree", None, True)
    result = run_cli("check", str(partial))
    assert result.returncode == 1 and "torn last line" in result.stdout


def _verbs(path: str) -> list[tuple[str, ...]]:
    """Every verb of cli.COMMANDS that reads a session, given ``path``."""
    return [
        ("check", path),
        ("diff", path),
        ("set-leaf", path, "1"),
        ("fork", path, "1"),
        ("fix", path),
        ("resume", path),
        ("live", "--json", path),
        ("search", "word", path),
        ("usage", path),
        ("compactions", path),
        ("clean", path),
        ("export", path, "--to", "md"),
        ("serve", path, "--port", "1"),
        ("mcp", path),
        ("archive", "push", "postgresql://127.0.0.1:1/none", path),  # the path is said before connecting
    ]


def _said_by(args: tuple[str, ...]) -> str:
    """How the verb of ``args`` starts its error line (``archive push``: its sub-verb too)."""
    return f"session-tui {' '.join(args[:2]) if args[0] == 'archive' else args[0]}: "


def test_every_verb_has_a_case_here():
    from session_tui.cli import COMMANDS

    assert {args[0] for args in _verbs("x")} == set(COMMANDS) - {"demo"}  # (demo makes the folder it is given)


def test_a_missing_path_is_an_error_in_every_verb(tmp_path):
    missing = str(tmp_path / "nope.jsonl")
    for args in _verbs(missing) + [("fix", "--close", missing), ("fix", "--dry-run", missing)]:
        result = run_cli(*args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, (args, result.stderr)
        assert f"{missing}: no such file" in result.stderr, (args, result.stderr)
        assert result.stderr.startswith(_said_by(args)), (args, result.stderr)
        assert "internal error" not in result.stderr and result.stdout == "", (args, result.stdout, result.stderr)


def test_fix_on_an_opencode_database_without_a_session_or_with_a_bad_one_is_one_line(tmp_path):
    from tests.support import REPO

    for part in (REPO / "tests" / "data" / "live-2026-12-03" / "opencode" / "fork").iterdir():
        shutil.copyfile(part, tmp_path / part.name)
    db = str(tmp_path / "opencode.db")
    for given in (db, f"{db}#x", f"{db}#ses_000000000000000000000000"):
        for options in ((), ("--close",), ("--dry-run",)):
            result = run_cli("fix", *options, given)
            assert result.returncode == 2 and result.stdout == "", (given, options, result.stdout)
            assert result.stderr.startswith(f"session-tui fix: {given}: ") and result.stderr.count("\n") == 1
            assert "internal error" not in result.stderr, result.stderr


def test_a_folder_without_sessions_or_a_file_that_is_none_is_an_error_in_the_many_file_verbs(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    piece = binary_piece(tmp_path / "piece.jsonl")
    for verb in (("usage",), ("search", "word"), ("check",)):
        for path, problem in ((empty, "no session files (*.jsonl) in it"), (piece, "not a session (no JSON")):
            result = run_cli(*verb, str(path))
            assert result.returncode == 2, (verb, path, result.stdout)
            assert result.stderr.startswith(f"session-tui {verb[0]}: {path}: {problem}"), (verb, result.stderr)


def test_usage_and_search_take_an_opencode_database_whole_or_one_of_its_sessions(tmp_path):
    """A bare ``opencode.db`` is all its sessions; ``opencode.db#ID`` is that
    one session (the rest of the database left out); an unknown or malformed
    id is one line, exit 2."""
    import json
    import shutil

    from tests.support import REPO

    for part in (REPO / "tests" / "data" / "live-2026-12-03" / "opencode" / "fork").iterdir():
        shutil.copyfile(part, tmp_path / part.name)
    db = str(tmp_path / "opencode.db")
    both = {f"{db}#ses_dc481a45affeT96KBaAoCG3mES", f"{db}#ses_dc4873164ffeAnIQ0Z06lezjkg"}
    one = f"{db}#ses_dc481a45affeT96KBaAoCG3mES"
    for given, wanted in ((db, both), (one, {one})):
        usage = run_cli("usage", "--json", given)
        assert usage.returncode == 0, usage.stderr
        assert {row["key"] for row in json.loads(usage.stdout)["rows"]} == wanted
        search = run_cli("search", "--json", "--limit", "500", "README", given)
        assert search.returncode == 0, search.stderr
        assert {hit["file"] for hit in json.loads(search.stdout)["hits"]} == wanted
    for given, problem in ((f"{db}#ses_000000000000000000000000", "no such session"), (f"{db}#x", "not an opencode")):
        for verb in (("usage",), ("search", "README")):
            result = run_cli(*verb, given)
            assert result.returncode == 2 and result.stderr.startswith(f"session-tui {verb[0]}: {given}: {problem}")
