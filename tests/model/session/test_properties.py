"""Property tests: incremental reading equals a whole-file read; arbitrary
bytes never raise out of the reader."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from session_tui.model.entries import tree
from session_tui.model.errors import SessionError
from session_tui.model.reading import segment
from session_tui.model.session.context import context_at
from session_tui.model.session.problems import find_notes, find_problems
from session_tui.model.session.session import Session
from tests.builders.tree import call, header, message, pointer, result, summary


@st.composite
def tree_files(draw) -> bytes:
    """A valid tree session: random branching, pointers, summaries, calls,
    odd but valid bytes (unicode, escapes, CRLF endings)."""
    n = draw(st.integers(1, 25))
    lines = [header()]
    ids: list[str] = []
    for i in range(n):
        eid = f"e{i}"
        if ids and draw(st.integers(0, 9)) == 0:
            eid = draw(st.sampled_from(ids))  # a copied record: duplicate id
        parent = draw(st.sampled_from([None, "ghost", f"e{i + 1}"] + ids)) if ids else None
        kind = draw(st.sampled_from(["user", "call", "result", "summary", "pointer", "unicode"]))
        if kind == "call":
            lines.append(call(eid, parent, f"c{i}"))
        elif kind == "result":
            lines.append(result(eid, parent, f"c{i - 1}"))
        elif kind == "summary":
            lines.append(summary(eid, parent, "s"))
        elif kind == "unicode":
            lines.append(message(eid, parent, content=draw(st.text(max_size=30))))
        else:
            lines.append(message(eid, parent))
        ids.append(eid)
        if kind == "pointer":
            lines.append(pointer(draw(st.sampled_from(ids))))
    data = b"".join(lines)
    if draw(st.booleans()):
        data = data.replace(b"\n", b"\r\n")
    return data


@st.composite
def chat_files(draw) -> bytes:
    n = draw(st.integers(1, 12))
    out = []
    for i in range(n):
        out.append(
            orjson.dumps(
                {
                    "role": draw(st.sampled_from(["user", "assistant", "tool"])),
                    "content": draw(st.text(max_size=20)),
                    "tool_call_id": f"c{i}",
                }
            )
            + b"\n"
        )
    return b"".join(out)


def snapshot(s: Session) -> dict:
    t = s.tree
    return {
        "format": s.format.name,
        "lines": list(s.lines.line_starts),
        "kinds": list(s.lines.line_kinds),
        "entry_line": list(t.entry_line),
        "parent": list(t.parent),
        "shape": list(t.shape),
        "roots": sorted(t.roots),
        "leaves": t.leaves,
        "branch_points": t.branch_points,
        "summaries": t.summaries,
        "active": s.active_leaf(),
        "problems": [(p.line, p.kind.value, p.message) for p in find_problems(s, stuck_after=0)],
        "children": [t.children(i) for i in range(t.count)],
    }


def read_whole(path: str) -> dict:
    with Session(path) as s:
        s.refresh()
        if s.format.name == "tree":
            assert_links_match_records(s)
        return snapshot(s)


def assert_links_match_records(s: Session) -> None:
    """Oracle: an entry whose record names an earlier entry (or nothing) as
    its parent has exactly that parent; leaves are the childless entries."""
    for i in range(s.entries):
        pid = s.record(i)["parentId"]
        named = s.find(pid) if pid else None
        if named is None or named < i:
            assert s.tree.parent[i] == (-1 if named is None else named)
    assert s.tree.leaves == sum(1 for i in range(s.entries) if not s.tree.children(i))


@contextmanager
def read_blocks_of(size: int, recent: tuple = tree.RECENT):
    """Scan the file in blocks of ``size`` lines (default 4096), and look
    ids up in windows of ``recent`` entries: small values push small files
    through the paths big files take (many blocks, the full id index)."""
    saved = segment.BLOCK_LINES, tree.RECENT
    segment.BLOCK_LINES, tree.RECENT = size, recent
    try:
        yield
    finally:
        segment.BLOCK_LINES, tree.RECENT = saved


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.one_of(tree_files(), chat_files()),
    cuts=st.lists(st.integers(0, 10_000), max_size=8),
    torn=st.booleans(),
    block=st.sampled_from([4096, 1, 2, 3]),
    recent=st.sampled_from([tree.RECENT, (2,), (1, 3)]),
)
def test_any_split_into_appends_equals_a_whole_read(data, cuts, torn, block, recent):
    if torn:  # end in a torn fragment too
        data += b'{"type":"message","id":"zz'
    points = sorted({c % (len(data) + 1) for c in cuts} | {len(data)})
    with tempfile.TemporaryDirectory() as tmp, read_blocks_of(block, recent):
        path = os.path.join(tmp, "s.jsonl")
        with open(path, "wb"):
            pass
        with Session(path) as s:
            s.refresh()
            done = 0
            for point in points:
                with open(path, "ab") as f:
                    f.write(data[done:point])
                done = point
                s.refresh()
                assert s.entries <= data.count(b"\n") + 1
            incremental = snapshot(s)
        assert incremental == read_whole(path)
        with read_blocks_of(4096):
            assert incremental == read_whole(path)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=400), fmt=st.sampled_from([None, "tree", "chat"]), cut=st.integers(0, 400))
def test_arbitrary_bytes_never_raise(data, fmt, cut):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.jsonl")
        with open(path, "wb") as f:
            f.write(data[:cut])
        try:
            with Session(path, fmt) as s:
                s.refresh()
                with open(path, "ab") as f:
                    f.write(data[cut:])
                s.refresh()
                find_problems(s)
                context_at(s)
                find_notes(s)
        except SessionError as exc:
            assert "\n" not in str(exc)


@settings(max_examples=100, deadline=None)
@given(
    lines=st.lists(
        st.one_of(
            st.binary(max_size=60).filter(lambda b: b"\n" not in b),
            st.builds(lambda i, p: message(f"i{i}", f"i{p}")[:-1], st.integers(0, 5), st.integers(0, 5)),
            st.builds(lambda i: pointer(f"i{i}")[:-1], st.integers(0, 5)),
        ),
        max_size=15,
    )
)
def test_garbage_among_tree_records_never_raises(lines):
    data = header() + b"\n".join(lines)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.jsonl")
        with open(path, "wb") as f:
            f.write(data)
        with Session(path) as s:
            s.refresh()
            for p in find_problems(s):
                assert p.line >= 1
            context_at(s)
