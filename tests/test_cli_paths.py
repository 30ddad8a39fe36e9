"""The command line's messages about what it was given: a missing argument
named as it is, a bad path an error (exit 2, one line) in every verb."""

from __future__ import annotations

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
