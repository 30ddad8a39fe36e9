"""A Codex thread written over several files (a rewind in Codex 0.169,
tests/data/live-rewinds/codex) reads as one session, whichever file is
opened: its context is the rewound history, the part the rewind replaced a
branch that ended, and the picker lists it once."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest

from session_tui.actions.export import export
from session_tui.model.catalog.cache import list_session_files
from session_tui.model.formats.codex.thread import thread_files
from session_tui.model.reading.source import JoinedFiles
from session_tui.model.session.branches import branches
from session_tui.model.session.session import open_session
from tests.support import REPO, check_json, run_cli

REWIND = REPO / "tests" / "data" / "live-rewinds" / "codex"
FIRST, SEGMENT = sorted(REWIND.glob("*.jsonl"))  # the segment's name is the later: `…<thread>_<segment>.jsonl`


def _context(path: Path) -> list[dict]:
    with open_session(path) as session:
        return orjson.loads(export(session, "json", context=True))


def test_either_file_opens_the_whole_thread_with_the_rewound_history():
    assert thread_files(str(FIRST)) == thread_files(str(SEGMENT)) == [str(FIRST), str(SEGMENT)]
    context = _context(FIRST)
    assert context == _context(SEGMENT)
    prompts = [m for m in context if m.get("role") == "user" and "environment_context" not in str(m)]
    texts = [str(m.get("content")) for m in prompts]
    assert any("continue and check the notes" in t for t in texts)  # the segment's prompt
    assert not any("'continue'" in t or '"continue"' in t for t in texts)  # the prompt the rewind replaced


def test_the_replaced_part_is_a_branch_that_ended():
    with open_session(FIRST) as session:
        first_lines = sum(1 for _ in FIRST.open("rb"))
        (run,) = session.format.ended_runs(session)
        assert all(session.tree.entry_line[e] < first_lines for e in range(run[0], run[1] + 1))  # in the first file
        listed = branches(session)
        assert len(listed) == 2
        assert sum(b.active for b in listed) == 1
    (report,) = check_json(SEGMENT)
    assert report["problems"] == [] and report["tool_errors"] >= 1


def test_the_picker_lists_the_thread_once(tmp_path):
    for path in (FIRST, SEGMENT):
        shutil.copyfile(path, tmp_path / path.name)
    assert [Path(p).name for p, _, _ in list_session_files([str(tmp_path)])] == [FIRST.name]
    # given by name, the segment is listed
    assert [Path(p).name for p, _, _ in list_session_files([str(tmp_path / SEGMENT.name)])] == [SEGMENT.name]


def test_files_in_other_day_folders_of_the_sessions_tree_are_found(tmp_path):
    first = tmp_path / "sessions" / "2026" / "11" / "30" / FIRST.name
    segment = tmp_path / "sessions" / "2026" / "12" / "01" / SEGMENT.name
    for source, target in ((FIRST, first), (SEGMENT, segment)):
        target.parent.mkdir(parents=True)
        shutil.copyfile(source, target)
    assert thread_files(str(segment)) == [str(first), str(segment)]
    assert _context(first) == _context(REWIND / SEGMENT.name)


def test_without_its_first_file_a_segment_is_read_alone(tmp_path):
    shutil.copyfile(SEGMENT, tmp_path / SEGMENT.name)
    assert thread_files(str(tmp_path / SEGMENT.name)) == [str(tmp_path / SEGMENT.name)]
    (report,) = check_json(tmp_path / SEGMENT.name)
    assert report["format"] == "codex"


def test_edits_are_refused_and_leave_both_files_as_they_were(tmp_path):
    for path in (FIRST, SEGMENT):
        shutil.copyfile(path, tmp_path / path.name)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    result = run_cli("set-leaf", str(tmp_path / FIRST.name), "3")
    assert result.returncode != 0 and "read-only" in result.stderr and "Traceback" not in result.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_lines_appended_to_the_segment_are_read_as_the_thread_grows(tmp_path):
    for path in (FIRST, SEGMENT):
        shutil.copyfile(path, tmp_path / path.name)
    lines = SEGMENT.read_bytes().splitlines(keepends=True)
    (tmp_path / SEGMENT.name).write_bytes(b"".join(lines[:-5]))
    with open_session(tmp_path / FIRST.name) as session:
        count = session.tree.count
        with open(tmp_path / SEGMENT.name, "ab") as f:
            f.write(b"".join(lines[-5:]))
        session.refresh()
        assert session.tree.count > count
        assert session.format.context(session, session.tree.count - 1) == session.format.context(
            session, session.format.active_leaf(session)
        )
    assert _context(tmp_path / FIRST.name) == _context(SEGMENT)


@pytest.mark.parametrize("offset", [0, 100, None])
def test_joined_files_read_across_the_join_as_one(tmp_path, offset):
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(b"first\nfile\n")
    b.write_bytes(b"second\n")
    source = JoinedFiles(str(a), [str(a), str(b)])
    try:
        whole = a.read_bytes() + b.read_bytes()
        st = source.stat()
        assert st.size == len(whole)
        start = len(a.read_bytes()) - 3 if offset is None else min(offset, len(whole))
        assert source.read(start, 8) == whole[start : start + 8]
        with source.reader() as reader:
            reader.seek(start)
            assert reader.read() == whole[start:]
        with open(a, "ab") as f:  # a change in an earlier file reads as another file
            f.write(b"x\n")
        assert source.stat().identity != st.identity
    finally:
        source.close()
    assert os.path.exists(a)
