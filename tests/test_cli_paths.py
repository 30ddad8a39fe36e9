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
