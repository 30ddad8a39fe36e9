"""The cache dir is used only when it is ours (0700 when made, its files
0600); the picker's catalog.json is checked row by row when loaded: a wrong
type anywhere is read again, never a traceback (the picker's own loading,
in the model and through the real screen)."""

from __future__ import annotations

import copy
import os
import shutil
import stat
import subprocess
import sys

import orjson
import pytest

from session_tui.model.cache_dir import trusted_cache_dir
from session_tui.model.catalog.cache import CACHE_NAME, FIELDS, Catalog
from session_tui.model.usage.ledger import NAME as USAGE_NAME
from tests.support import SAMPLES

SAMPLE = SAMPLES / "tree" / "crash-torn.jsonl"


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def sessions(tmp_path):
    root = tmp_path / "sessions"
    root.mkdir()
    for sample in ("tree/crash-torn.jsonl", "tree/branched-summary.jsonl", "chat/session-fix-rounding.jsonl"):
        shutil.copy(SAMPLES / sample, root / os.path.basename(sample))
    return root


def test_a_new_cache_dir_is_0700_and_its_files_0600(tmp_path):
    cache = tmp_path / "new" / "cache"
    root = sessions(tmp_path)
    catalog = Catalog(str(cache))
    for info in catalog.listing([str(root)]):
        catalog.read(info.path)
    catalog.save([str(root)])
    assert mode(cache) == 0o700
    assert mode(cache / CACHE_NAME) == 0o600


def usage(root, cache):
    return subprocess.run(
        [sys.executable, "-m", "session_tui", "usage", str(root), "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "SESSION_TUI_CACHE_DIR": str(cache)},
        timeout=60,
    )


@pytest.mark.parametrize("how", ["other user", "writable by others", "writable by group"])
def test_a_cache_dir_not_ours_is_not_used(tmp_path, how):
    root = sessions(tmp_path)
    mine = usage(root, tmp_path / "mine")
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    if how == "other user":
        if os.geteuid() != 0:
            pytest.skip("only root can give a folder to another user")
        os.chown(cache, 65534, -1)
        reason = "owned by another user (uid 65534)"
    else:
        os.chmod(cache, 0o777 if how == "writable by others" else 0o770)
        reason = "writable by others" if how == "writable by others" else "writable by its group"
    planted = {"version": [1, "planted"], "files": {}}
    (cache / USAGE_NAME).write_bytes(orjson.dumps(planted))
    done = usage(root, cache)
    assert done.returncode == 0 and done.stdout == mine.stdout  # (the same figures, without a cache)
    assert done.stderr.splitlines() == [f"session-tui: not using cache dir {cache}: {reason}"]
    assert orjson.loads((cache / USAGE_NAME).read_bytes()) == planted  # nothing written there
    assert trusted_cache_dir(str(cache)) is None and trusted_cache_dir(str(tmp_path / "mine")) == str(tmp_path / "mine")


WRONG = {  # a field: values of the wrong type for it
    "size": ["12", None, 1.5, True, -1, [1]],
    "mtime_ns": ["12", None, {}],
    "known": [1, "yes", None],
    "format": [5, ["tree"], {}],
    "title": [None, 5, ["t"]],
    "entries": ["6", None, 2.0, {"n": 1}],
    "exact": [0, "true"],
    "bad_lines": ["0", None, -3],
    "torn": ["no", None],
    "dangling": [[], 1],
    "error": [5, []],
    "subagent": ["no"],
    "damage": ["missing parent", [1], {"a": 1}, None, [["x"]]],
    "fork": [None, "no"],
    "last_time": ["2026", None, [1], 1e300, True],
    "answered": ["no", None, 1],
}


def cases():
    assert set(WRONG) == set(FIELDS)
    for name, values in WRONG.items():
        for value in values:
            yield pytest.param(name, value, id=f"{name}={value!r}")


def clean_cache(tmp_path):
    root, cache = sessions(tmp_path), tmp_path / "cache"
    catalog = Catalog(str(cache))
    infos = [catalog.read(info.path) for info in catalog.listing([str(root)])]
    catalog.save([str(root)])
    return root, cache, infos, orjson.loads((cache / CACHE_NAME).read_bytes())


@pytest.mark.parametrize(("name", "value"), cases())
def test_a_wrong_type_in_a_catalog_row_is_read_again(tmp_path, name, value):
    root, cache, infos, data = clean_cache(tmp_path)
    for row in data["files"].values():
        row[FIELDS.index(name)] = value
    (cache / CACHE_NAME).write_bytes(orjson.dumps(data))
    catalog = Catalog(str(cache))
    assert catalog.remembered([str(root)]) == []
    listed = catalog.listing([str(root)])
    assert not any(info.known for info in listed)
    assert [catalog.read(info.path) for info in listed] == infos


@pytest.mark.parametrize(
    "payload",
    [
        [],
        "catalog",
        {"version": "2", "files": {}},
        {"version": 2, "files": []},
        {"version": 2, "files": "x"},
        "rows: a dict",
        "rows: short",
        "rows: a string",
    ],
)
def test_a_wrong_shape_of_catalog_json_is_read_again(tmp_path, payload):
    root, cache, infos, data = clean_cache(tmp_path)
    if isinstance(payload, str) and payload.startswith("rows: "):
        wrong = {"a dict": lambda row: dict(zip(FIELDS, row, strict=True)), "short": lambda row: row[:-1]}
        change = wrong.get(payload[6:], lambda row: "row")
        payload = copy.deepcopy(data)
        payload["files"] = {path: change(row) for path, row in data["files"].items()}
    (cache / CACHE_NAME).write_bytes(orjson.dumps(payload))
    catalog = Catalog(str(cache))
    assert catalog.remembered([str(root)]) == []
    assert [catalog.read(info.path) for info in catalog.listing([str(root)])] == infos


async def test_the_picker_shows_the_files_over_a_catalog_of_wrong_types(tmp_path, monkeypatch):
    from session_tui.ui.app import SessionApp
    from tests.ui.pilot_support import picker_read

    root, cache, infos, data = clean_cache(tmp_path)
    wrongs = iter([("entries", "6"), ("damage", "missing parent"), ("title", None)])
    for row in data["files"].values():
        name, value = next(wrongs)
        row[FIELDS.index(name)] = value
    (cache / CACHE_NAME).write_bytes(orjson.dumps(data))
    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(cache))
    async with SessionApp([str(root)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker_read(pilot, len(infos))
        assert sorted(screen.table.rows, key=lambda info: info.path) == sorted(infos, key=lambda info: info.path)


async def test_the_picker_says_it_uses_no_cache_and_shows_the_files(tmp_path, monkeypatch):
    from session_tui.ui.app import SessionApp
    from tests.ui.pilot_support import picker_read

    root, cache = sessions(tmp_path), tmp_path / "open-cache"
    cache.mkdir()
    os.chmod(cache, 0o777)
    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(cache))
    async with SessionApp([str(root)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker_read(pilot, 3)
        assert [n.message for n in pilot.app._notifications] == [
            f"session-tui: not using cache dir {cache}: writable by others"
        ]
        assert len(screen.table.rows) == 3
    assert os.listdir(cache) == []  # nothing written there
