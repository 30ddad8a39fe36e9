"""`fix` as a whole: independent parts, bad lines dropped (and what they
still hold kept), dangling calls closed inside the branch, undo, kills."""

from __future__ import annotations

import base64
import json
import os
import random
import shutil
import time
from pathlib import Path

import orjson
import pytest

from session_tui.model.reading.segment import LineKind, Shape
from session_tui.model.session.context import context_items, tool_issues
from session_tui.model.session.problems import find_problems
from session_tui.model.session.session import open_session
from session_tui.store import edits
from session_tui.store.salvage import salvage
from tests.support import SAMPLES, KillPace, check_json, run_cli, run_killed

from .test_store import old

#: a sample per format with tool results inside its active branch
WITH_RESULTS = {
    "tree": "tree/branched-summary.jsonl",
    "chat": "chat/session-fix-rounding.jsonl",
    "astorlm": "astorlm/a793b487-7fbf-4011-aa80-4f783b905993.jsonl",
    "pi": "pi/2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl",
    "claude": "claude/e400ea4e-b13c-4400-a7d6-45a85f4a56c7.jsonl",
    "codex": "codex/rollout-2026-03-14T10-30-12-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl",
}
LINKED = ("tree", "pi", "claude", "codex")  # a call inside the branch is closed in a fork


def copy(tmp_path: Path, rel: str) -> Path:
    dest = tmp_path / os.path.basename(rel)
    shutil.copy(SAMPLES / rel, dest)
    meta = (SAMPLES / rel).with_suffix(".meta.json")
    if meta.exists():  # astorlm's pair
        shutil.copy(meta, tmp_path / meta.name)
        old(tmp_path / meta.name)
    old(dest)
    return dest


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    old(path)
    return path


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def without_first_result(path: Path) -> int:
    """Remove the first tool result inside the active branch (its children
    re-parented onto its parent), so the call before it dangles there; the
    0-based line of the call."""
    with open_session(path) as s:
        shape, fmt = s.tree.shape, s.format
        sent = [e for e, _ in context_items(s)]  # a result the model is sent (not one a summary replaced)
        k = next(
            k
            for k, e in enumerate(sent)
            if shape[e] & Shape.RESULT and k + 1 < len(sent) and not shape[sent[k - 1]] & Shape.RESULT
        )
        gone = sent[k]
        line, record = s.tree.entry_line[gone], s.record(gone)
        gone_id, up = fmt.entry_id(record), record.get(fmt.parent_key) if fmt.parent_key else None
        call_line = s.tree.entry_line[sent[k - 1]]
    out = []
    for n, raw in enumerate(lines_of(path)):
        if n == line:
            continue
        if fmt.parent_key and raw.strip() and orjson.loads(raw).get(fmt.parent_key) == gone_id:
            raw = orjson.dumps({**orjson.loads(raw), fmt.parent_key: up}) + b"\n"
        out.append(raw)
    write(path, b"".join(out))
    return call_line


def problems(path: Path) -> list[tuple[str, str]]:
    (rep,) = check_json(path)
    return [(p["kind"], p["severity"]) for p in rep["problems"]]


def undo_exactly(path: Path, plan) -> None:
    """Apply ``plan``, then undo it: the file is back byte for byte."""
    before = path.read_bytes()
    done = edits.apply(plan, force=True)
    assert path.read_bytes() != before
    edits.apply(edits.plan_undo(done), force=True)
    assert path.read_bytes() == before
    for written in [path, *path.parent.glob("*.meta.json")]:  # as if written long ago again
        old(written)


# -- the parts of fix are independent ----------------------------------------------
def test_a_torn_tail_without_dangling_calls_is_dropped_and_close_says_nothing_to_do(tmp_path):
    path = copy(tmp_path, "chat/session-fix-rounding.jsonl")
    whole = path.read_bytes()
    write(path, whole + b'{"role": "user", "content": "and one mo')
    r = run_cli("fix", str(path), "--drop-torn", "--close")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "close: no dangling tool call: nothing to do" in r.stdout
    assert path.read_bytes() == whole and problems(path) == []
    again = run_cli("fix", str(path), "--drop-torn", "--close")
    assert again.returncode == 0 and again.stdout.count("nothing to do") == 2


def test_a_refused_part_does_not_stop_the_others_and_exits_1(tmp_path):
    path = copy(tmp_path, "claude/3a2dec82-3264-4fa4-bb60-d92b18d2e064.jsonl")  # dangling call, torn tail
    original = path.read_bytes()
    r = run_cli("fix", str(path), "--cut", "--drop-torn")  # Claude Code has no cut: resume takes the newest record
    assert r.returncode == 1 and "cut: refused" in r.stderr
    fragment = original[original.rfind(b"\n") + 1 :]
    assert path.read_bytes() == original[: -len(fragment)]  # the torn line was dropped all the same
    (saved,) = tmp_path.glob("*.torn-*")
    assert saved.read_bytes() == fragment


def test_fix_without_options_on_a_torn_file_refuses_and_says_how(tmp_path):
    path = copy(tmp_path, "chat/session-crash-torn-tail.jsonl")
    original = path.read_bytes()
    r = run_cli("fix", str(path))
    assert r.returncode == 1 and "--drop-torn" in r.stderr and path.read_bytes() == original


# -- bad lines -------------------------------------------------------------------
BAD = [b"\x00" * 57, b'{"type":"message","id":"x","content":"caf\xe9"}', b'["not", "an", "object"]']


@pytest.mark.parametrize("fmt", sorted(WITH_RESULTS))
def test_drop_bad_removes_exactly_the_bad_lines_saves_them_and_undoes(tmp_path, fmt):
    path = copy(tmp_path, WITH_RESULTS[fmt])
    clean = lines_of(path)
    at = len(clean) // 2
    damaged = b"".join(clean[:at] + [b + b"\n" for b in BAD] + clean[at:])
    write(path, damaged)
    assert sum(p == ("bad_line", "error") for p in problems(path)) == 3
    r = run_cli("fix", str(path), "--drop-bad")
    assert r.returncode == 0, r.stdout + r.stderr
    assert path.read_bytes() == b"".join(clean)  # every other byte as it was
    (saved,) = tmp_path.glob(f"{path.name}.bad-*")
    records = [json.loads(line) for line in saved.read_bytes().splitlines()]
    assert [r["line"] for r in records] == [at + 1, at + 2, at + 3]
    for record, raw in zip(records, BAD, strict=True):
        data = record["text"].encode() if "text" in record else base64.b64decode(record["base64"])
        assert data == raw and damaged[record["offset"] : record["offset"] + record["length"]] == raw
    (backup,) = tmp_path.glob(f"{path.name}.bak-*")
    assert backup.read_bytes() == damaged
    assert not [p for p in problems(path) if p[0] == "bad_line"]
    write(path, damaged)
    with open_session(path) as s:
        undo_exactly(path, edits.plan_drop_bad(s))


def test_drop_bad_keeps_the_record_written_onto_a_torn_one(tmp_path):
    """The sample's line 6 is a torn record with the next one appended to it:
    that one is kept, so the entry after it finds its parent again."""
    path = copy(tmp_path, "tree/bad-lines.jsonl")
    assert ("missing_parent", "error") in problems(path)
    r = run_cli("fix", str(path), "--drop-bad")
    assert r.returncode == 0 and "keeping the 1 whole record(s) found in line(s) 6" in r.stdout
    assert problems(path) == []
    with open_session(path) as s:
        assert s.entries == 5 and s.lines.line_kinds.count(LineKind.BAD) == 0  # 4, and the one kept


@pytest.mark.parametrize(
    "raw, kept",
    [
        (b"\x00" * 20, []),
        (b"\x00" * 5 + b'{"a": 1}', [b'{"a": 1}']),
        (b'{"type":"m","n":1}{"type":"m","n":2}', [b'{"type":"m","n":1}', b'{"type":"m","n":2}']),
        (b'{"type":"m","x":{"r":1}{"type":"m","y":2}', [b'{"type":"m","y":2}']),  # never the inner object
        (
            b'{"type":"message","message":{"content":[{"type":"thinking","t":1},{"type":"text","t":2},{"type":"to'
            b'{"type":"message","id":"b"}',
            [b'{"type":"message","id":"b"}'],
        ),  # nor a torn record's content blocks
        (b'{"type":"m","text":"caf\xe9"}', []),
        (b"[1, 2]", []),
    ],
)
def test_salvage_keeps_whole_records_only(raw, kept):
    assert salvage(raw) == kept


def test_a_record_bad_as_a_whole_is_dropped_not_kept(tmp_path):
    from tests.builders.tree import chain, message

    no_id = b'{"type":"message","parentId":"m1","message":{"role":"user","content":"x"}}\n'
    path = write(tmp_path / "s.jsonl", chain(2) + no_id + message("m2", "m1"))
    assert run_cli("fix", str(path), "--drop-bad").returncode == 0
    assert no_id not in path.read_bytes() and problems(path) == []
    again = run_cli("fix", str(path), "--drop-bad")
    assert again.returncode == 0 and "no bad lines: nothing to do" in again.stdout


def test_every_part_at_once_bad_line_call_inside_and_torn_tail(tmp_path):
    """Drop-bad rewrites, close forks (the file untouched), drop-torn cuts:
    our own writes a moment ago are no live agent."""
    from tests.builders.tree import call, chain, message

    path = write(
        tmp_path / "s.jsonl",
        chain(2)
        + b"\x00" * 30
        + b"\n"
        + call("c1", "m1", "a")
        + message("m3", "c1", "user", "go on")
        + b'{"type":"message","id":"m4","par',
    )
    r = run_cli("fix", str(path), "--drop-bad", "--close", "--drop-torn")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "resume the fork:" in r.stdout and list(tmp_path.glob("s.jsonl.torn-*"))
    assert b"\x00" not in path.read_bytes() and not path.read_bytes().endswith(b'"par')


def test_a_dry_run_of_several_parts_previews_the_first_and_refuses_nothing(tmp_path):
    path = copy(tmp_path, WITH_RESULTS["astorlm"])
    without_first_result(path)
    lines = lines_of(path)
    write(path, b"".join(lines[:2] + [b"\x00" * 9 + b"\n"] + lines[2:]))
    before = path.read_bytes()
    r = run_cli("fix", str(path), "--drop-bad", "--close", "--dry-run")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "drop-bad: remove 1 bad line" in r.stdout and "not previewed" in r.stdout
    assert path.read_bytes() == before


def test_a_torn_tail_is_not_cut_from_a_file_that_grew_since_it_was_read(tmp_path):
    from tests.builders.tree import chain

    path = write(tmp_path / "s.jsonl", chain(2) + b'{"type":"message","id":"m9","pa')
    with open_session(path) as s:
        with open(path, "ab") as f:  # the writer finishes its line and goes on, after the read
            f.write(b'rentId":"m1"}\n')
        with pytest.raises(edits.Refused, match="changed since it was read"):
            edits.plan_drop_torn(s)


# -- dangling calls inside the branch ----------------------------------------------
@pytest.mark.parametrize("fmt", ["chat", "astorlm"])
def test_close_inside_a_linear_file_inserts_the_results_after_the_call(tmp_path, fmt):
    path = copy(tmp_path, WITH_RESULTS[fmt])
    call_line = without_first_result(path)
    damaged = path.read_bytes()
    assert ("dangling_tool_call", "error") in problems(path)
    r = run_cli("fix", str(path), "--close")
    assert r.returncode == 0, r.stdout + r.stderr
    assert problems(path) == []
    now, before = lines_of(path), damaged.splitlines(keepends=True)
    assert now[: call_line + 1] == before[: call_line + 1] and now[call_line + 2 :] == before[call_line + 1 :]
    inserted = json.loads(now[call_line + 1])
    assert "error" in json.dumps(inserted)  # the error result, right after the call
    (backup,) = tmp_path.glob(f"{path.name}.bak-*")
    assert backup.read_bytes() == damaged
    write(path, damaged)
    with open_session(path) as s:
        undo_exactly(path, edits.plan_close(s))


@pytest.mark.parametrize("fmt", LINKED)
def test_close_inside_a_linked_file_forks_with_the_results_inserted(tmp_path, fmt):
    path = copy(tmp_path, WITH_RESULTS[fmt])
    without_first_result(path)
    damaged = path.read_bytes()
    with open_session(path) as s:
        dangling = tool_issues(s)[0]
        assert dangling
        plan = edits.plan_close(s)
        fills = s.format.fills_dangling
    assert plan.new_files and plan.rewrite is None and not plan.append
    assert ("this file is not changed" in plan.summary) and (fills is None or fills in plan.summary)
    r = run_cli("fix", str(path), "--close")
    assert r.returncode == 0, r.stdout + r.stderr
    assert path.read_bytes() == damaged  # the original is left as it is
    fork = Path(next(line.removeprefix("wrote ") for line in r.stdout.splitlines() if line.startswith("wrote ")))
    assert fork.exists() and fork != path
    with open_session(fork) as f:
        assert tool_issues(f) == ([], [])
        assert not [p for p in find_problems(f) if p.severity == "error"]
        for d in dangling:  # each answered right after its call (and the results already there)
            context = context_items(f)
            k = next(k for k, (_, m) in enumerate(context) if d.call_id in json.dumps(m))
            answers = [json.dumps(m).lower() for _, m in context[k + 1 :] if d.call_id in json.dumps(m)]
            assert answers and ("error" in answers[0] or '"aborted"' in answers[0])  # (Codex's own word)


def test_close_inside_a_tree_rechains_the_next_entry_onto_the_results(tmp_path):
    from tests.builders.tree import call, chain, message, result

    path = write(
        tmp_path / "s.jsonl",
        chain(2)
        + call("c1", "m1", "a", "b")
        + result("r1", "c1", "a")
        + message("m3", "r1", "user", "go on")
        + message("m4", "m3", "assistant", "ok"),
    )
    with open_session(path) as s:
        plan = edits.plan_close(s)
    ((fork_path, data),) = plan.new_files
    records = [json.loads(line) for line in data.splitlines()][1:]
    ids = [r["id"] for r in records]
    assert ids[:4] == ["m0", "m1", "c1", "r1"] and ids[5:] == ["m3", "m4"]
    inserted = records[4]
    assert inserted["parentId"] == "r1" and inserted["message"]["tool_call_id"] == "b"
    assert records[5]["parentId"] == inserted["id"]  # re-chained
    assert lines_of(path)[1:5] == data.splitlines(keepends=True)[1:5]  # entries before the insert: verbatim


# -- kills ---------------------------------------------------------------------------
def _states(tmp_path: Path, path: Path, steps: list[list[str]]) -> list[bytes]:
    """The file before and after each step of ``fix`` run alone, in order."""
    work = tmp_path / "states"
    work.mkdir()
    probe = work / path.name
    shutil.copy(path, probe)
    out = [probe.read_bytes()]
    for args in steps:
        old(probe)
        assert run_cli("fix", str(probe), *args).returncode == 0
        out.append(probe.read_bytes())
    return out


def _crash_files(tmp_path: Path) -> dict[str, Path]:
    zeroed = copy(tmp_path, "chat/session-fix-rounding.jsonl")
    call_line = without_first_result(zeroed)
    lines = lines_of(zeroed)  # the result's line zeroed in place: a NUL line after the call
    with open(SAMPLES / "chat/session-fix-rounding.jsonl", "rb") as f:
        result_length = len(f.read().splitlines()[call_line + 1])
    write(zeroed, b"".join(lines[: call_line + 1] + [b"\x00" * result_length + b"\n"] + lines[call_line + 1 :]))
    inside = tmp_path / "inside.jsonl"
    shutil.copy(SAMPLES / "chat/session-fix-rounding.jsonl", inside)
    without_first_result(inside)
    return {"zeroed": zeroed, "inside": inside, "bad-lines": copy(tmp_path, "tree/bad-lines.jsonl")}


TRIALS, MAX_TRIALS = 20, 60  # kills of a repair; more while one side (before it, after it) is not seen yet


@pytest.mark.parametrize(
    "name, steps",
    [
        ("bad-lines", [["--drop-bad"]]),
        ("inside", [["--close"]]),
        ("zeroed", [["--drop-bad"], ["--close"]]),  # two writes: a kill between them leaves the first done
    ],
)
def test_killed_repairs_leave_a_whole_file(tmp_path, name, steps):
    path = _crash_files(tmp_path)[name]
    states = _states(tmp_path, path, steps)
    original = states[0]
    rng = random.Random(11)
    work = tmp_path / "work"
    work.mkdir()
    seen = set()

    args = [a for step in steps for a in step]

    # the kills are spread over a whole run's time as this machine takes it now (a loaded one is slower)
    whole = work / "whole.jsonl"
    whole.write_bytes(original)
    old(whole)
    began = time.monotonic()
    run_cli("fix", str(whole), *args)
    took = time.monotonic() - began
    last, pace = len(states) - 1, KillPace(took, rng)
    while pace.more(0 in seen, last in seen, TRIALS, MAX_TRIALS):
        trial = pace.trials
        target = work / f"t{trial}.jsonl"
        target.write_bytes(original)
        old(target)
        run_killed("fix", str(target), *args, after=pace.delay())
        data = target.read_bytes()
        assert data in states, f"trial {trial}: a torn or mixed file"
        seen.add(states.index(data))
        if data != original:
            assert list(work.glob(f"{target.name}.bak-*")), f"trial {trial}: changed without a backup"
        pace.saw(0 in seen, last in seen)
    assert 0 in seen and last in seen, f"the kills should land both before and after the repair ({pace.scale:.2f})"
