"""astorlm edits: backed-up rewrites of both files (messages, then the meta
with a new ``updatedAt``), torn lines always left out, forks as new
``<id>`` pairs, undo of both files. Real copies of the samples, the CLI as a
subprocess."""

from __future__ import annotations

import json
import shutil
import time
import uuid

import orjson
import pytest

from session_tui.model.session.context import tool_issues
from session_tui.model.session.problems import find_problems
from session_tui.model.session.session import open_session
from session_tui.store import Refused, edits
from tests.support import SAMPLES, run_cli

from .test_store import old

ROOT = "3fc3f7d7-a9cc-4b2a-8f1b-80ee252c7110"
FORK = "a793b487-7fbf-4011-aa80-4f783b905993"
CRASH = "5e2ed5fa-83f0-43d9-8687-965f5d9f3315"  # two tool_use, torn tool-result line
CALLS = ["toolu_01Zd8Pt5Gy2Ns6Vl9Rf4Qx1K", "toolu_01Bf1Rv8Ja5Qu9Xn2Th7Sz4M"]


def pair(tmp_path, stem: str):
    """Copies of ``<stem>.jsonl`` and its meta; returns (jsonl, meta)."""
    paths = []
    for suffix in (".jsonl", ".meta.json"):
        dest = tmp_path / (stem + suffix)
        shutil.copy(SAMPLES / "astorlm" / dest.name, dest)
        old(dest)
        paths.append(dest)
    return tuple(paths)


def error_result(call_id: str) -> dict:
    return {"type": "tool_result", "tool_use_id": call_id, "content": edits.SYNTHETIC_RESULT, "is_error": True}


def assert_meta_touched(meta, before: bytes, since_ms: int) -> None:
    """The meta is the old one with only ``updatedAt`` moved to now, written
    as astorLM writes it (2-space indent, no final newline)."""
    old_meta, new_meta = json.loads(before), json.loads(meta.read_bytes())
    assert since_ms <= new_meta["updatedAt"] <= time.time() * 1000 + 1
    assert {**new_meta, "updatedAt": old_meta["updatedAt"]} == old_meta
    assert list(new_meta) == list(old_meta)
    assert meta.read_bytes() == orjson.dumps(new_meta, option=orjson.OPT_INDENT_2)


def test_close_the_crash_sample_by_cli(tmp_path):
    path, meta = pair(tmp_path, CRASH)
    original, meta_before = path.read_bytes(), meta.read_bytes()
    fragment = original[original.rfind(b"\n") + 1 :]
    since = int(time.time() * 1000)
    r = run_cli("fix", "--close", str(path))  # no --drop-torn: the rewrite can never keep a torn line
    assert r.returncode == 0, r.stderr
    data = path.read_bytes()
    kept = original[: -len(fragment)]
    assert data.startswith(kept) and data.endswith(b"\n") and data.count(b"\n") == kept.count(b"\n") + 1
    record = json.loads(data[len(kept) :])
    assert list(record) == ["id", "role", "content"]
    assert uuid.UUID(record["id"]).version == 4 and record["id"].encode() not in kept
    assert record["role"] == "user" and record["content"] == [error_result(c) for c in CALLS]
    (saved,) = [p for p in tmp_path.iterdir() if ".torn-" in p.name]
    assert saved.read_bytes() == fragment
    (backup,) = [p for p in tmp_path.iterdir() if p.name.startswith(path.name + ".bak-")]
    (meta_backup,) = [p for p in tmp_path.iterdir() if p.name.startswith(meta.name + ".bak-")]
    assert backup.read_bytes() == original and meta_backup.read_bytes() == meta_before
    assert_meta_touched(meta, meta_before, since)
    with open_session(path) as s:
        assert s.format.name == "astorlm"
        assert tool_issues(s) == ([], []) and find_problems(s) == []
        assert s.record(s.active_leaf()) == record
    again = run_cli("fix", "--close", str(path))
    assert again.returncode == 0 and "nothing to do" in again.stdout  # said, and no error


def test_close_adds_the_missing_results_to_a_results_message_that_answers_some(tmp_path):
    path, meta = pair(tmp_path, CRASH)
    lines = path.read_bytes().split(b"\n")[:-1]
    partial = {
        "id": "6bafb575-f654-4450-af99-b0436478da73",
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": CALLS[0],
                "content": "Edited invoice_tools/export_csv.py",
                "is_error": False,
            }
        ],
    }
    path.write_bytes(b"\n".join(lines) + b"\n" + orjson.dumps(partial) + b"\n")
    old(path)
    with open_session(path) as s:
        assert [d.call_id for d in tool_issues(s)[0]] == CALLS[1:]
        edits.apply(edits.plan_close(s))
    data = path.read_bytes().split(b"\n")
    assert data[:-2] == lines and data[-1] == b""
    assert json.loads(data[-2]) == {**partial, "content": [*partial["content"], error_result(CALLS[1])]}
    with open_session(path) as s:
        assert tool_issues(s) == ([], [])


def test_cut_leaves_the_calling_message_out(tmp_path):
    path, meta = pair(tmp_path, CRASH)
    original, meta_before = path.read_bytes(), meta.read_bytes()
    since = int(time.time() * 1000)
    assert run_cli("fix", "--cut", str(path)).returncode == 0
    assert path.read_bytes() == b"\n".join(original.split(b"\n")[:3]) + b"\n"
    assert_meta_touched(meta, meta_before, since)
    with open_session(path) as s:
        assert find_problems(s) == [] and s.entries == 3


def test_drop_torn_rewrites_both_files(tmp_path):
    path, meta = pair(tmp_path, CRASH)
    original, meta_before = path.read_bytes(), meta.read_bytes()
    since = int(time.time() * 1000)
    with open_session(path) as s:
        edits.apply(edits.plan_drop_torn(s))
    assert path.read_bytes() == original[: original.rfind(b"\n") + 1]
    assert_meta_touched(meta, meta_before, since)


@pytest.mark.parametrize("stem", [ROOT, FORK, CRASH])
def test_fork_at_the_leaf_is_a_new_pair_with_the_same_messages(tmp_path, stem):
    path, meta = pair(tmp_path, stem)
    with open_session(path) as s:
        leaf_line = s.line_of(s.active_leaf())
    since = int(time.time() * 1000)
    r = run_cli("fork", str(path), str(leaf_line))
    assert r.returncode == 0, r.stderr
    (new_meta,) = [p for p in tmp_path.glob("*.meta.json") if p != meta]
    new_id = new_meta.name[: -len(".meta.json")]
    fork = tmp_path / f"{new_id}.jsonl"
    assert uuid.UUID(new_id).version == 4
    assert fork.read_bytes() == b"\n".join(path.read_bytes().split(b"\n")[:leaf_line]) + b"\n"
    source, copy = json.loads(meta.read_bytes()), json.loads(new_meta.read_bytes())
    assert copy["id"] == new_id and copy["parentId"] == source["id"] == stem
    assert since <= copy["createdAt"] == copy["updatedAt"] <= time.time() * 1000 + 1
    assert copy["metadata"] == source["metadata"]
    assert set(copy) == {"id", "parentId", "metadata", "createdAt", "updatedAt"}
    with open_session(path) as a, open_session(fork) as b:
        assert b.format.name == "astorlm"
        assert [b.record(e) for e in b.active_path()] == [a.record(e) for e in a.active_path()]


def test_fork_by_message_id(tmp_path):
    path, _ = pair(tmp_path, ROOT)
    out = tmp_path / "b2c0b6e4-7c55-4e36-9f43-0d7e4c1a2b3c.jsonl"
    assert run_cli("fork", str(path), "c8977db5-4bac-48e5-a56a-2167d7ee1875", "-o", str(out)).returncode == 0
    assert out.read_bytes() == b"\n".join(path.read_bytes().split(b"\n")[:4]) + b"\n"
    assert json.loads((tmp_path / (out.name[: -len(".jsonl")] + ".meta.json")).read_bytes())["id"] == out.stem
    r = run_cli("fork", str(path), "c8977db5-4bac-48e5-a56a-2167d7ee1875", "-o", str(out))
    assert r.returncode == 1 and "already exists" in r.stderr


def test_leaf_move_refused_with_fork_offered(tmp_path):
    path, _ = pair(tmp_path, ROOT)
    before = path.read_bytes()
    r = run_cli("set-leaf", str(path), "3")
    assert r.returncode == 1 and "one linear branch" in r.stderr and "fork at that entry instead" in r.stderr
    assert path.read_bytes() == before


def test_a_damaged_line_is_refused_not_rewritten(tmp_path):
    path, meta = pair(tmp_path, CRASH)
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join([lines[0], b'{"id": broken', *lines[1:]]))
    old(path)
    before = path.read_bytes(), meta.read_bytes()
    with open_session(path, "astorlm") as s, pytest.raises(Refused, match="line 2 is not a message"):
        edits.plan_close(s)
    assert (path.read_bytes(), meta.read_bytes()) == before


@pytest.mark.parametrize(
    "make",
    [
        lambda s: edits.plan_close(s),
        lambda s: edits.plan_cut(s),
        lambda s: edits.plan_drop_torn(s),
    ],
)
def test_undo_restores_both_files_exactly(tmp_path, make):
    path, meta = pair(tmp_path, CRASH)
    original, meta_before = path.read_bytes(), meta.read_bytes()
    with open_session(path) as s:
        done = edits.apply(make(s))
    assert path.read_bytes() != original and meta.read_bytes() != meta_before
    undo = edits.apply(edits.plan_undo(done), force=True)
    assert path.read_bytes() == original and meta.read_bytes() == meta_before
    edits.apply(edits.plan_undo(undo), force=True)  # and the undo can be undone
    assert path.read_bytes() != original and meta.read_bytes() != meta_before
