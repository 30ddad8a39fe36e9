"""usage.json is untrusted: valid JSON of the wrong shape anywhere (a list
for a dict, a string for a count, a nested wrong type) is worked out again,
through the real verb: exit 0 and the same figures as without a cache."""

from __future__ import annotations

import shutil

import orjson
import pytest

from session_tui.model.usage.ledger import NAME
from tests.support import SAMPLES, run_cli


def run(root, cache):
    """``usage ROOT --json`` with its cache in ``cache``, as a real process (forked warm: tests/warm_cli.py)."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SESSION_TUI_CACHE_DIR", str(cache))
        done = run_cli("usage", str(root), "--json")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return orjson.loads(done.stdout)


def each_row(change):
    return lambda data: {**data, "files": {path: change(row) for path, row in data["files"].items()}}


def each_group(change):
    return each_row(lambda row: {**row, "groups": [change(group) for group in row["groups"]]})


def each_count(name, value):
    return each_group(lambda group: [group[0], group[1], {**group[2], name: value}])


WRONG = {
    "top a list": lambda data: [data],
    "files a list": lambda data: {**data, "files": list(data["files"])},
    "version a dict": lambda data: {**data, "version": {"1": 1}},
    "row a list": each_row(lambda row: list(row.values())),
    "row a string": each_row(lambda row: "row"),
    "project a number": each_row(lambda row: {**row, "project": 5}),
    "groups a dict": each_row(lambda row: {**row, "groups": {"a": 1}}),
    "groups a string": each_row(lambda row: {**row, "groups": "g"}),
    "group too short": each_group(lambda group: group[:2]),
    "group a dict": each_group(lambda group: {"day": group[0]}),
    "day a number": each_group(lambda group: [20260314, group[1], group[2]]),
    "model a list": each_group(lambda group: [group[0], [group[1]], group[2]]),
    "counts a list": each_group(lambda group: [group[0], group[1], list(group[2].values())]),
    "input a string": each_count("input", "1000"),
    "output a float": each_count("output", 1.5),
    "responses negative": each_count("responses", -4),
    "cache_read null": each_count("cache_read", None),
    "cost a string": each_count("cost_usd", "0.5"),
    "cost a bool": each_count("cost_usd", True),
    "unpriced_models a string": each_count("unpriced_models", "gpt"),
    "unpriced_models of numbers": each_count("unpriced_models", [1, 2]),
    "an unknown count": each_count("bogus", 1),
}


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """The figures without a cache, and the usage.json that run wrote."""
    top = tmp_path_factory.mktemp("usage-types")
    root = top / "sessions"
    shutil.copytree(SAMPLES, root)
    figures = run(root, top / "cache")
    assert figures["total"]["responses"] > 0
    return root, figures, orjson.loads((top / "cache" / NAME).read_bytes())


@pytest.mark.parametrize("name", list(WRONG))
def test_a_wrong_type_in_usage_json_is_worked_out_again(tmp_path, baseline, name):
    root, figures, kept = baseline
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    (cache / NAME).write_bytes(orjson.dumps(WRONG[name](kept)))
    assert run(root, cache) == figures
    assert orjson.loads((cache / NAME).read_bytes()) == kept  # (and the rows written again)
