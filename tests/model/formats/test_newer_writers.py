"""Records from newer writers (docs/formats.md#tree-file): a record of a type the
reader does not know that carries an id is a node of the tree, transparent
on a path and never in the context; one without an id is a plain kept line.

The files in tests/data/newer-writers are samples with such a node put into
the active chain (the next entry re-parented on it); the Claude Code and pi
goldens (tests/golden) show their clients walk through it."""

from __future__ import annotations

import shutil

import orjson
import pytest

from session_tui.actions.export import export
from session_tui.model.reading.segment import LineKind
from session_tui.model.session.problems import find_problems
from session_tui.model.session.session import open_session
from tests.builders.tree import call, chain, header, message, result
from tests.support import REPO, check_json

NEWER = REPO / "tests" / "data" / "newer-writers"
SAMPLES = REPO / "sample_sessions"
#: crafted file -> the sample it was made from (the same conversation)
CRAFTED = {
    "tree/bookmark-in-chain.jsonl": "tree/branched-summary.jsonl",
    "claude/6e0e6e0e-1b2c-4d3e-8f40-5a6b7c8d9e0f.jsonl": "claude/e400ea4e-b13c-4400-a7d6-45a85f4a56c7.jsonl",
    "pi/2026-03-14T09-12-03-417Z_6e0e6e0e-0000-4000-8000-00000000b00c.jsonl": (
        "pi/2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"
    ),
}


def _context(path) -> list[dict]:
    with open_session(path) as session:
        return orjson.loads(export(session, "json", context=True))


@pytest.mark.parametrize("crafted", sorted(CRAFTED), ids=lambda name: name.split("/")[0])
def test_a_node_of_an_unknown_type_in_the_chain_is_passed_through(crafted):
    (with_node,) = check_json(NEWER / crafted)
    (source,) = check_json(SAMPLES / CRAFTED[crafted])
    node = _node_line(crafted)

    def shifted(items: list[dict]) -> list[dict]:  # the source's lines, as numbered with the node put in
        return [dict(item, line=item["line"] + (item["line"] >= node)) for item in items]

    assert with_node["entries"] == source["entries"] + 1  # the node is an entry
    assert with_node["problems"] == shifted(source["problems"])  # no missing parent: the chain holds
    assert with_node["dangling_tool_calls"] == shifted(source["dangling_tool_calls"])
    assert with_node["active_leaf"] == source["active_leaf"]
    assert _context(NEWER / crafted) == _context(SAMPLES / CRAFTED[crafted])


def _node_line(crafted: str) -> int:
    """The 1-based line of the inserted node."""
    for number, raw in enumerate((NEWER / crafted).read_bytes().splitlines(), 1):
        if orjson.loads(raw).get("type") == "bookmark":
            return number
    raise AssertionError("no bookmark record")


def test_tree_node_is_transparent_to_tool_pairing_and_never_sent(tmp_path):
    node = (
        orjson.dumps(
            {
                "type": "model_change",
                "id": "x1",
                "parentId": "c1",
                "createdAt": "2026-03-14T11:05:00.000Z",
                "message": {"role": "user", "content": "not for the model"},
            }
        )
        + b"\n"
    )
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        chain(1)
        + call("c1", "m0", "call_1")
        + node
        + result("r1", "x1", "call_1")
        + message("m2", "r1", "assistant", "done")
    )
    with open_session(path) as session:
        assert session.entries == 5 and find_problems(session) == []
        assert [m.get("content") for m in _context(path)] == ["message 0", None, "ok", "done"]
        assert session.tree.parent[session.find("r1")] == session.find("x1")


def test_tree_node_after_the_last_message_is_no_leaf(tmp_path):
    label = (
        orjson.dumps(
            {
                "type": "label",
                "id": "l1",
                "parentId": "m1",
                "createdAt": "2026-03-14T11:06:00.000Z",
                "label": "good state",
            }
        )
        + b"\n"
    )
    path = tmp_path / "s.jsonl"
    path.write_bytes(chain(2) + label)
    with open_session(path) as session:
        assert session.entries == 3
        assert session.active_leaf() == session.find("m1")
        view = session.format.view(session.record(session.find("l1")))
        assert view.role == "label" and "good state" in view.text


def test_a_record_of_an_unknown_type_without_an_id_is_a_plain_kept_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(header() + message("m0", None) + b'{"type":"model_change","model":"x"}\n' + message("m1", "m0"))
    with open_session(path) as session:
        assert session.lines.line_kinds[2] == LineKind.UNKNOWN
        assert session.entries == 2 and find_problems(session) == []


@pytest.mark.parametrize("fmt", ["claude", "pi"])
def test_unknown_types_without_an_id_stay_plain_lines_in_the_client_formats(fmt, tmp_path):
    crafted = next(name for name in CRAFTED if name.startswith(fmt))
    lines = (NEWER / crafted).read_bytes().splitlines(keepends=True)
    k = _node_line(crafted) - 1
    node = orjson.loads(lines[k])
    for key in ("uuid", "parentUuid", "id", "parentId"):
        node.pop(key, None)
    path = tmp_path / crafted.split("/")[1]
    shutil.copyfile(SAMPLES / CRAFTED[crafted], path)
    source = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(source[:k] + [orjson.dumps(node) + b"\n"] + source[k:]))
    with open_session(path) as session:
        assert session.lines.line_kinds[k] in (LineKind.UNKNOWN, LineKind.META)  # kept, shown, not an entry
    (plain,) = check_json(path)
    (original,) = check_json(SAMPLES / CRAFTED[crafted])
    assert plain["entries"] == original["entries"]
    assert [p["kind"] for p in plain["problems"]] == [p["kind"] for p in original["problems"]]
    assert _context(path) == _context(SAMPLES / CRAFTED[crafted])
