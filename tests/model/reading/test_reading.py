"""Reading a file: torn tails, bad lines, huge lines, BOM/CRLF, incremental
refresh and reload detection. Real files in tmp dirs."""

from __future__ import annotations

import os

from session_tui.model.reading.segment import LineKind
from session_tui.model.session.problems import find_problems
from session_tui.model.session.session import Session, open_session
from tests.builders.tree import chain, header, message


def append(path, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)


def entry_ids(s: Session) -> list[str]:
    return [s.record(i)["id"] for i in range(s.entries)]


def test_torn_tail_becomes_one_entry_when_completed(tmp_path):
    path = tmp_path / "s.jsonl"
    line = message("m1", "m0")
    path.write_bytes(chain(1) + line[:25])
    s = open_session(path)
    assert s.entries == 1
    assert [p.kind.value for p in find_problems(s)] == ["torn_tail"]
    assert find_problems(s)[0].line == 3
    append(path, line[25:])
    change = s.refresh()
    assert change.new_entries == 1 and not change.reloaded
    assert entry_ids(s) == ["m0", "m1"] and find_problems(s) == []


def test_complete_object_without_newline_is_an_entry_not_duplicated(tmp_path):
    path = tmp_path / "s.jsonl"
    line = message("m1", "m0")
    path.write_bytes(chain(1) + line[:-1])  # a whole object, newline missing
    s = open_session(path)
    assert entry_ids(s) == ["m0", "m1"] and find_problems(s) == []
    append(path, b"\n")
    assert s.refresh().new_entries == 0
    append(path, message("m2", "m1"))
    assert s.refresh().new_entries == 1
    assert entry_ids(s) == ["m0", "m1", "m2"] and s.line_of(2) == 4


def test_complete_object_then_more_on_the_same_line_reloads(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(1) + b'{"type":"message","id":"m1","parentId":"m0"}')
    s = open_session(path)
    assert s.entries == 2
    append(path, b'{"type":"message","id":"m2","parentId":"m1"}\n')  # fused onto it
    change = s.refresh()
    assert change.reloaded
    assert s.entries == 1 and [p.kind.value for p in find_problems(s)] == ["bad_line"]
    assert "fused" in find_problems(s)[0].message


def test_bad_lines_in_the_middle_are_reported_and_skipped(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        header()
        + message("a", None)
        + b"{not json\n"
        + b"\x00" * 500
        + b"\n"
        + b"42\n"
        + b'{"a":1}{"b":2}\n'
        + b"\xff\xfe{}\n"
        + b"\n   \n"
        + message("b", "a")
    )
    s = open_session(path)
    bad = [(p.line, p.kind.value) for p in find_problems(s)]
    assert bad == [(3, "bad_line"), (4, "bad_line"), (5, "bad_line"), (6, "bad_line"), (7, "bad_line")]
    assert entry_ids(s) == ["a", "b"] and s.line_of(1) == 10
    assert s.tree.parent[1] == 0
    assert s.lines.line_kinds[7] == LineKind.BLANK and s.lines.line_kinds[8] == LineKind.BLANK


def test_bom_and_crlf_are_tolerated(tmp_path):
    path = tmp_path / "s.jsonl"
    body = chain(3).replace(b"\n", b"\r\n")
    path.write_bytes(b"\xef\xbb\xbf" + body)
    s = open_session(path)
    assert s.format.name == "tree" and entry_ids(s) == ["m0", "m1", "m2"] and find_problems(s) == []
    assert s.header["id"] == "s-1"


def test_a_50_mb_line_loads(tmp_path):
    path = tmp_path / "s.jsonl"
    big = "x" * (50 << 20)
    path.write_bytes(chain(1) + message("big", "m0", "tool", big, tool_call_id="c") + message("after", "big"))
    s = open_session(path)
    assert entry_ids(s) == ["m0", "big", "after"]
    assert len(s.record(1)["message"]["content"]) == 50 << 20


def test_refresh_reads_only_appended_bytes(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(2000))
    s = open_session(path)
    extra = message("n1", "m1999") + message("n2", "n1")
    append(path, extra)
    change = s.refresh()
    assert change.new_entries == 2 and change.bytes_read == len(extra)
    assert s.refresh().bytes_read == 0
    assert s.tree.parent[s.find("n1")] == s.find("m1999")


def test_shrink_replace_and_first_line_change_reload(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(5))
    s = open_session(path)
    with open(path, "r+b") as f:  # shrink
        f.truncate(len(chain(3)))
    change = s.refresh()
    assert change.reloaded == "the file shrank" and s.entries == 3

    tmp = tmp_path / "new.jsonl"  # replace (new inode), bigger and different
    tmp.write_bytes(chain(4, prefix="r"))
    os.replace(tmp, path)
    change = s.refresh()
    assert change.reloaded == "the file was replaced" and entry_ids(s) == ["r0", "r1", "r2", "r3"]

    data = path.read_bytes()  # same inode, first line rewritten, file grown
    with open(path, "r+b") as f:
        f.write(data.replace(b'"s-1"', b'"s-2"') + message("r4", "r3"))
    change = s.refresh()
    assert change.reloaded == "the first line changed" and s.header["id"] == "s-2" and s.entries == 5


def test_torn_fragment_dropped_by_truncation_is_not_a_reload(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(2) + b'{"type":"mess')
    s = open_session(path)
    assert find_problems(s)[0].kind.value == "torn_tail"
    with open(path, "r+b") as f:
        f.truncate(len(chain(2)))
    change = s.refresh()
    assert not change.reloaded and find_problems(s) == [] and s.entries == 2


def test_empty_file_is_an_empty_session_and_sniffs_later(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_bytes(b"")
    s = open_session(path)
    assert s.entries == 0 and s.active_leaf() == -1 and find_problems(s) == []
    append(path, b'{"role":"user","content":"hi"}\n')
    s.refresh()
    assert s.format.name == "chat" and s.entries == 1


def test_unknown_records_are_kept(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(1) + b'{"type":"custom","data":1}\n' + message("m1", "m0"))
    s = open_session(path)
    assert s.lines.line_kinds[2] == LineKind.UNKNOWN and s.entries == 2
    assert s.raw_line(2) == b'{"type":"custom","data":1}'


def test_format_override(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"role":"user","content":"hi","type":"x"}\n')
    assert open_session(path, "chat").entries == 1
