"""codex edits: appended ``aborted`` outputs (ordinals continued), forks as
new rollout files with ``forked_from_id``, refusals for leaf moves, cuts and
mid-history calls. Real copies of the samples, the CLI as a subprocess."""

from __future__ import annotations

import json
import re
import uuid

import orjson
import pytest

from session_tui.actions.export import ADDED_BY, export
from session_tui.model.session.context import context_at, tool_issues
from session_tui.model.session.problems import find_problems
from session_tui.model.session.session import open_session
from session_tui.store import edits
from tests.support import run_cli

from .test_edits import sample
from .test_store import old

CRASH = "codex/rollout-2026-03-15T18-02-44-019cf2aa-2d31-7f5d-9af7-a08945194059.jsonl"  # torn output
INTERRUPT = "codex/rollout-2026-03-16T08-20-10-019cf5bb-2c70-734a-8f4d-7f8b69651b42.jsonl"  # turn_aborted mid-file
ROLLBACK = "codex/rollout-2026-03-14T10-30-12-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl"
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def lines_of(path) -> list[dict]:
    """The complete lines' records (a torn tail left out)."""
    return [json.loads(line) for line in path.read_bytes().split(b"\n")[:-1]]


def write_lines(path, records: list[dict]) -> None:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    old(path)


def truncated(tmp_path, upto: int, name="cut.jsonl"):
    """A file of the crash sample's first ``upto`` lines."""
    path = tmp_path / name
    write_lines(path, lines_of(sample(tmp_path, CRASH))[:upto])
    return path


def close(path) -> list[dict]:
    """Apply plan_close; the records it appended."""
    before = path.read_bytes()
    with open_session(path) as s:
        edits.apply(edits.plan_close(s))
    data = path.read_bytes()
    assert data.startswith(before)
    return [json.loads(line) for line in data[len(before) :].splitlines()]


def assert_no_dangling(path) -> None:
    with open_session(path) as s:
        assert s.format.name == "codex"
        assert tool_issues(s) == ([], [])
        assert find_problems(s) == []


def test_close_the_torn_crash_sample_by_cli(tmp_path):
    path = sample(tmp_path, CRASH)
    original = path.read_bytes()
    fragment = original[original.rfind(b"\n") + 1 :]
    refused = run_cli("fix", "--close", str(path))
    assert refused.returncode == 1 and "--drop-torn" in refused.stderr and path.read_bytes() == original
    r = run_cli("fix", "--close", "--drop-torn", str(path))
    assert r.returncode == 0, r.stderr
    data = path.read_bytes()
    kept = original[: -len(fragment)]
    assert data.startswith(kept) and data.count(b"\n") == kept.count(b"\n") + 1
    record = json.loads(data[len(kept) :])
    assert list(record) == ["timestamp", "type", "payload"] and STAMP.fullmatch(record["timestamp"])
    assert record["type"] == "response_item"
    assert record["payload"] == {
        "type": "function_call_output",
        "call_id": "call_1e6bcb708fd557c39876c1ac",
        "output": "aborted",
    }
    (saved,) = [p for p in tmp_path.iterdir() if ".torn-" in p.name]
    assert saved.read_bytes() == fragment
    assert_no_dangling(path)
    again = run_cli("fix", "--close", str(path))
    assert again.returncode == 0 and "nothing to do" in again.stdout  # said, and no error


def test_each_call_type_gets_its_own_output_type(tmp_path):
    custom = truncated(tmp_path, 11, "custom.jsonl")  # ends in an apply_patch custom_tool_call
    (record,) = close(custom)
    assert record["payload"] == {
        "type": "custom_tool_call_output",
        "call_id": "call_a42a245d853c589f985c162b",
        "output": "aborted",
    }
    assert_no_dangling(custom)
    records = lines_of(sample(tmp_path, CRASH))[:8]  # ends before the first function_call
    records.append(
        {
            "timestamp": "2026-03-15T18:02:51.700Z",
            "type": "response_item",
            "payload": {
                "type": "local_shell_call",
                "call_id": "call_shell",
                "status": "in_progress",
                "action": {"type": "exec", "command": ["pytest"]},
            },
        }
    )
    records.append(
        {
            "timestamp": "2026-03-15T18:02:51.710Z",
            "type": "response_item",
            "payload": {
                "type": "custom_tool_call",
                "call_id": "call_patch",
                "name": "apply_patch",
                "input": "*** Begin Patch\n*** End Patch",
            },
        }
    )
    parallel = tmp_path / "parallel.jsonl"
    write_lines(parallel, records)
    appended = close(parallel)
    assert [r["payload"] for r in appended] == [
        {"type": "function_call_output", "call_id": "call_shell", "output": "aborted"},
        {"type": "custom_tool_call_output", "call_id": "call_patch", "output": "aborted"},
    ]
    assert_no_dangling(parallel)


@pytest.mark.parametrize("where", ["top", "payload"])
def test_ordinals_are_continued_where_the_file_keeps_them(tmp_path, where):
    records = lines_of(sample(tmp_path, CRASH))[:8]
    records += [
        {
            "timestamp": "2026-03-15T18:02:51.700Z",
            "type": "response_item",
            "payload": {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": c},
        }
        for c in ("call_a", "call_b")
    ]
    if where == "top":
        records = [{"timestamp": r["timestamp"], "ordinal": n, **r} for n, r in enumerate(records)]
    else:
        for n, r in enumerate(records):
            r["payload"]["ordinal"] = n
    path = tmp_path / "paginated.jsonl"
    write_lines(path, records)
    appended = close(path)
    assert len(appended) == 2
    if where == "top":
        assert [list(r) for r in appended] == [["timestamp", "ordinal", "type", "payload"]] * 2
        assert [r["ordinal"] for r in appended] == [10, 11]
        assert all("ordinal" not in r["payload"] for r in appended)
    else:
        assert [r["payload"]["ordinal"] for r in appended] == [10, 11]
        assert all("ordinal" not in r for r in appended)
    assert [r["payload"]["call_id"] for r in appended] == ["call_a", "call_b"]
    assert_no_dangling(path)


def test_no_ordinal_when_the_file_has_none(tmp_path):
    path = truncated(tmp_path, 11)
    (record,) = close(path)
    assert "ordinal" not in record and "ordinal" not in record["payload"]


def test_a_dangling_call_followed_by_later_turns_is_closed_in_a_fork(tmp_path):
    """Codex sends 'aborted' right after such a call itself; `fix --close`
    leaves the file as it is and writes a fork whose history has that output
    in its place, the rest copied."""
    path = sample(tmp_path, INTERRUPT)
    original = path.read_bytes()
    with open_session(path) as s:
        (dangling,) = tool_issues(s)[0]
        call_line = s.line_of(dangling.entry)
        plan = edits.plan_close(s)
        assert "Codex will send the output" in plan.summary and "this file is not changed" in plan.summary
        before = orjson.loads(export(s, "json", context=True))
    r = run_cli("fix", "--close", str(path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert path.read_bytes() == original
    (fork,) = [p for p in tmp_path.glob("rollout-*.jsonl") if p != path]
    records = lines_of(fork)
    at = next(k for k, r in enumerate(records) if r.get("payload", {}).get("call_id") == dangling.call_id)
    assert records[at + 1]["payload"] == {
        "type": "function_call_output",
        "call_id": dangling.call_id,
        "output": "aborted",
    }
    assert_no_dangling(fork)
    with open_session(fork) as f:  # what Codex sends for the original, its own output now in the file
        after = orjson.loads(export(f, "json", context=True))
    assert after == [{k: v for k, v in m.items() if k != ADDED_BY} for m in before] and call_line > 0


@pytest.mark.parametrize("rel", [CRASH, INTERRUPT, ROLLBACK])
def test_fork_at_the_leaf_is_a_new_rollout_with_the_same_history(tmp_path, rel):
    path = sample(tmp_path, rel)
    with open_session(path) as s:
        leaf_line = s.line_of(s.active_leaf())
    r = run_cli("fork", str(path), str(leaf_line))
    assert r.returncode == 0, r.stderr
    (fork,) = [p for p in tmp_path.glob("rollout-*.jsonl") if p != path]
    m = re.fullmatch(r"rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-([0-9a-f-]{36})\.jsonl", fork.name)
    assert m and uuid.UUID(m[1]).version == 7
    source_lines = path.read_bytes().split(b"\n")
    fork_lines = fork.read_bytes().split(b"\n")
    meta, source_meta = json.loads(fork_lines[0]), json.loads(source_lines[0])
    assert meta["type"] == "session_meta" and STAMP.fullmatch(meta["timestamp"])
    payload, source_payload = meta["payload"], source_meta["payload"]
    assert payload["id"] == m[1] != source_payload["id"]
    assert payload["forked_from_id"] == source_payload["id"] and payload["timestamp"] == meta["timestamp"]
    assert {k: v for k, v in payload.items() if k not in ("id", "timestamp", "forked_from_id")} == {
        k: v for k, v in source_payload.items() if k not in ("id", "timestamp")
    }
    assert fork_lines[1:-1] == source_lines[1:leaf_line]  # verbatim, the source's header not copied
    with open_session(path) as a, open_session(fork) as b:
        assert b.format.name == "codex"
        assert [b.record(e) for e in b.active_path()] == [a.record(e) for e in a.active_path()]
        assert context_at(b) == context_at(a)
        assert tool_issues(b) == tool_issues(a)


def test_fork_in_the_middle_keeps_the_event_lines_up_to_the_entry(tmp_path):
    path = sample(tmp_path, ROLLBACK)
    with open_session(path) as s:  # the assistant answer of the first turn
        entry = next(e for e in s.active_path() if s.record(e)["payload"].get("role") == "assistant")
        line = s.line_of(entry)
        expected = context_at(s, entry)
    out = tmp_path / "named.jsonl"
    assert run_cli("fork", str(path), str(line), "-o", str(out)).returncode == 0
    assert out.read_bytes().split(b"\n")[1:-1] == path.read_bytes().split(b"\n")[1:line]
    with open_session(out) as f:
        assert context_at(f) == expected


def test_leaf_moves_and_cuts_are_refused_with_the_reason(tmp_path):
    path = sample(tmp_path, ROLLBACK)
    before = path.read_bytes()
    r = run_cli("set-leaf", str(path), "9")
    assert r.returncode == 1 and "codex has no leaf pointer; fork at that entry instead" in r.stderr
    crash = truncated(tmp_path, 11)
    r = run_cli("fix", "--cut", str(crash))
    assert r.returncode == 1 and "append-only" in r.stderr and "aborted" in r.stderr
    assert path.read_bytes() == before


def test_undo_of_a_close_restores_the_exact_bytes(tmp_path):
    path = sample(tmp_path, CRASH)
    original = path.read_bytes()
    with open_session(path) as s:
        done = edits.apply(edits.plan_close(s, drop_torn=True))
    assert path.read_bytes() != original
    edits.apply(edits.plan_undo(done), force=True)
    assert path.read_bytes() == original
