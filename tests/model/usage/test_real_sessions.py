"""check --json usage and compactions --json on the real sessions (scrubbed
copies in tests/data/real), held against figures worked out apart by
scripts/real_usage_figures.py (plain json, none of session-tui's code)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support import REPO, check_json

REAL = REPO / "tests" / "data" / "real"
FIGURES = json.loads((REAL / "usage_figures.json").read_text())


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_check_json_usage_agrees_with_the_separate_script(name):
    (report,) = check_json(REAL / name, usage=True)
    spent = report["usage"]
    assert {k: spent[k] for k in ("input", "output", "cache_read", "cache_write")} == FIGURES[name]["usage"]
    if spent["input"] + spent["output"]:
        assert spent["cost_usd"] is not None and spent["cost_usd"] > 0 and spent["unpriced_models"] == []


@pytest.mark.parametrize("name", sorted(n for n in FIGURES if FIGURES[n]["compactions"]))
def test_compactions_json_agrees_with_the_separate_script(name):
    done = subprocess.run(
        [sys.executable, "-m", "session_tui", "compactions", "--json", str(REAL / name)], capture_output=True, text=True
    )
    found = json.loads(done.stdout)
    expected = FIGURES[name]["compactions"]
    assert [{k: c[k] for k in expected[0]} for c in found] == expected
    assert all(c["span"]["entries"] > 0 for c in found)
