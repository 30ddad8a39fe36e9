"""The compaction inspector: spans for Claude Code, pi and the tree format,
a continued session, what a summary dropped, the --json contract."""

from __future__ import annotations

import json
import subprocess
import sys

from session_tui.model.formats.base import CONTINUED
from session_tui.model.session.session import open_session
from session_tui.model.usage.compactions import compactions
from tests.builders.claude import assistant_record, user_record
from tests.builders.pi import call as pi_call
from tests.builders.pi import entry as pi_entry
from tests.builders.pi import header as pi_header
from tests.model.usage.test_usage import write
from tests.support import REPO, SAMPLES


def found(path):
    with open_session(str(path)) as session:
        return [c.as_json(session) for c in compactions(session)]


def bash(n, parent, command, path=None):
    args = {"command": command} if path is None else {"file_path": path}
    block = {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash" if path is None else "Read", "input": args}
    return assistant_record(n, parent, message_id=f"msg_{n}", blocks=[block])


def boundary(n, logical_parent, pre_tokens):
    return {
        "parentUuid": None,
        "logicalParentUuid": logical_parent,
        "isSidechain": False,
        "type": "system",
        "subtype": "compact_boundary",
        "content": "Conversation compacted",
        "compactMetadata": {"trigger": "auto", "preTokens": pre_tokens},
        "sessionId": "s-1",
        "uuid": f"u{n}",
        "timestamp": f"2026-03-16T07:48:{n:02d}.000Z",
    }


def summary(n, parent, text):
    record = user_record(n, parent, text)
    record["isCompactSummary"] = True
    return record


def test_claude_spans_run_back_to_the_previous_boundary_and_drops_are_what_the_summary_omits(tmp_path):
    path = write(
        tmp_path / "s-1.jsonl",
        [
            user_record(0, None),
            bash(1, "u0", "alembic downgrade -1"),
            bash(2, "u1", None, path="/w/app/models.py"),
            boundary(3, "u2", 150_000),
            summary(4, "u3", "We ran alembic downgrade -1 and looked at the models."),
            assistant_record(5, "u4", message_id="msg_5"),
            bash(6, "u5", "pytest -q tests/test_dates.py"),
            boundary(7, "u6", 90_000),
            summary(8, "u7", "Tests were run."),
            assistant_record(9, "u8", message_id="msg_9"),
        ],
    )
    first, second = found(path)
    assert (first["line"], first["tokens_before"], first["span"]) == (
        4,
        150_000,
        {"first_line": 1, "last_line": 3, "entries": 3},
    )
    assert first["tokens_after"] == 3500  # the next response's input with its cache
    assert first["dropped"] == {"paths": [{"text": "/w/app/models.py", "line": 3, "entry": "u2"}], "commands": []}
    assert second["span"] == {"first_line": 5, "last_line": 7, "entries": 3}  # after the first boundary
    assert [c["text"] for c in second["dropped"]["commands"]] == ["pytest -q tests/test_dates.py"]


def test_claude_a_continued_session_has_an_empty_span_that_says_so(tmp_path):
    path = write(
        tmp_path / "s-1.jsonl", [boundary(0, "u-from-another-file", 120_000), summary(1, "u0", "Earlier work.")]
    )
    (only,) = found(path)
    assert only["span"] == {"first_line": None, "last_line": None, "entries": 0, "note": CONTINUED}


def test_pi_spans_end_before_first_kept_and_start_at_the_previous_ones_first_kept(tmp_path):
    for version in (2, 3):
        user = {"role": "user", "content": [{"type": "text", "text": "go"}]}
        path = write(
            tmp_path / f"v{version}.jsonl",
            [
                pi_header(version),
                pi_entry(1, None, message=user),
                pi_call(2, "e1", "make build"),
                pi_call(3, "e2", "make test"),
                pi_entry(
                    4, "e3", "compaction", summary="Built it (make build).", firstKeptEntryId="e3", tokensBefore=9000
                ),
                pi_call(5, "e4", "git status"),
                pi_entry(6, "e5", "compaction", summary="Checked.", firstKeptEntryId="e5", tokensBefore=7000),
                pi_call(7, "e6", "ls"),
            ],
        )
        first, second = found(path)
        assert first["span"] == {"first_line": 2, "last_line": 3, "entries": 2}  # e1, e2: before e3, kept
        assert first["dropped"]["commands"] == []  # "make build" is in its summary
        assert (first["tokens_before"], first["tokens_after"]) == (9000, 110)
        assert second["span"] == {"first_line": 4, "last_line": 4, "entries": 1}  # from e3 (kept last time) to e5
        assert [c["text"] for c in second["dropped"]["commands"]] == ["make test"]


def test_pi_a_first_kept_entry_not_in_the_file_is_a_continued_session(tmp_path):
    path = write(
        tmp_path / "c.jsonl",
        [pi_header(3), pi_entry(1, None, "compaction", summary="s", firstKeptEntryId="elsewhere", tokensBefore=1)],
    )
    assert found(path)[0]["span"]["note"] == CONTINUED


def test_tree_summary_spans_from_id_to_id_and_the_json_contract():
    path = SAMPLES / "tree" / "branched-summary.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "session_tui", "compactions", "--json", str(path)], capture_output=True, text=True
    )
    (only,) = json.loads(done.stdout)
    assert set(only) == {"line", "entry", "tokens_before", "tokens_after", "span", "dropped"}
    assert only["tokens_before"] == 18420 and only["span"]["entries"] == 11
    assert set(only["dropped"]) == {"paths", "commands"}
    records = [json.loads(line) for line in path.read_text().splitlines()]
    ids = [r.get("id") for r in records]
    summary_record = next(r for r in records if r.get("type") == "summary")
    assert only["span"]["first_line"] == ids.index(summary_record["fromId"]) + 1
    assert only["span"]["last_line"] == ids.index(summary_record["toId"]) + 1


def test_a_reader_that_goes_away_ends_the_listing_quietly():
    path = REPO / "tests" / "data" / "real" / "claude" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
    done = subprocess.run(
        f"{sys.executable} -m session_tui compactions {path} | head -1", shell=True, capture_output=True, text=True
    )
    assert done.stdout.strip().endswith(".jsonl") and done.stderr == ""
