"""One count of a session's tokens (issue 36): the responses, each once, with
its sub-agents', the same however the file was read (at once, or as it grew)
and whoever asks (the status line, U, check, export, usage)."""

from __future__ import annotations

import pytest

from session_tui.model.session.session import Session, open_session
from session_tui.model.session.usage import responses, session_tokens
from session_tui.model.usage.totals import session_usage, spending
from tests.support import REPO, SAMPLES

REAL = REPO / "tests" / "data" / "real"
GROWN = [
    REAL / "claude" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",  # responses over several records each
    REAL / "codex" / "rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl",
    SAMPLES / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl",
]


@pytest.mark.parametrize("source", GROWN, ids=lambda p: p.parent.name)
def test_a_file_read_as_it_grows_counts_what_a_fresh_read_counts(tmp_path, source):
    lines = source.read_bytes().splitlines(keepends=True)
    path = tmp_path / source.name
    path.write_bytes(b"".join(lines[:3]))
    with Session(path) as grown:
        grown.refresh()
        for start in range(3, len(lines), 97):
            with open(path, "ab") as f:
                f.write(b"".join(lines[start : start + 97]))
            grown.refresh()
            responses(grown)  # (each refresh adds to what was found)
        with open_session(path) as fresh:
            assert responses(grown) == fresh.format.responses(fresh) and responses(grown)


def test_the_count_is_the_priced_one_with_the_sub_agents_rolled_up():
    with open_session(GROWN[0]) as session:
        tokens, spent = session_tokens(session), spending(session)
        assert spent.subagents and tokens == spent.total.counts
        assert (tokens.output, spent.own.output) == (40_359, 40_320)  # (own: what the export said)
        usage = session_usage(session)
        assert (usage.sent, usage.output) == (tokens.sent, tokens.output)


def _tree_file(path):
    """A tree session whose responses take every branch of the scan's tally:
    no model, a model, a recorded cost, cache counts, no count, a summary and
    an unknown node carrying a usage (no response), a non-UTC time."""
    import orjson

    def msg(n, message, **extra):
        parent = f"e{n - 1}" if n else None
        record = {"type": "message", "id": f"e{n}", "parentId": parent, "createdAt": f"2026-03-14T00:00:{n:02d}.000Z"}
        return {**record, "message": message, **extra}

    plain = {"prompt_tokens": 100, "completion_tokens": 7}
    records = [
        {"type": "session", "version": 1, "id": "s", "createdAt": "2026-03-14T00:00:00.000Z"},
        msg(0, {"role": "user", "content": "hi"}),
        msg(1, {"role": "assistant", "content": "a", "usage": plain}),
        msg(2, {"role": "assistant", "content": "b", "model": "gpt-4o", "usage": plain}),
        msg(3, {"role": "assistant", "content": "c", "usage": {**plain, "cost_usd": 0.5}}),
        msg(
            4, {"role": "assistant", "content": "d", "usage": {**plain, "prompt_tokens_details": {"cached_tokens": 60}}}
        ),
        msg(5, {"role": "assistant", "content": "e", "usage": {"prompt_tokens": 0, "completion_tokens": 0}}),
        msg(6, {"role": "assistant", "content": "f", "model": "", "usage": {"input_tokens": 9, "output_tokens": 2}}),
        {"type": "summary", "id": "e7", "parentId": "e6", "createdAt": "2026-03-14T00:00:07.000Z", "summary": "s"},
        {"type": "label", "id": "e8", "parentId": "e7", "message": {"usage": plain}},
        msg(
            9,
            {
                "role": "assistant",
                "content": "g",
                "model": "claude-sonnet-4-5",
                "usage": {**plain, "cache_creation_input_tokens": 30},
            },
        ),
    ]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return records


def _read_in_full(session):
    from session_tui.model.entries.tokens import counts_of
    from session_tui.model.usage.totals import usage_of

    found = session.format.responses(session)
    return counts_of(found), usage_of(found, session.format.name)


def test_the_scan_s_tally_of_responses_is_the_full_read_s(tmp_path):
    from session_tui.model.session.usage import tallied_responses

    path = tmp_path / "mixed.jsonl"
    records = _tree_file(path)
    with open_session(path) as session:
        tallied = tallied_responses(session)
        assert tallied is not None and tallied.unpriced == 3  # e1, e4, e6; e2, e3 and e9 are read
        assert [r.entry for r in tallied.priced] == [2, 3, 9]
        assert (session_tokens(session), spending(session).own) == _read_in_full(session)
    import orjson

    path.write_bytes(b"")  # grown line by line: the priced entries numbered as the tree numbers them
    with Session(path) as grown:
        for record in records:
            with open(path, "ab") as f:
                f.write(orjson.dumps(record) + b"\n")
            grown.refresh()
            assert (session_tokens(grown), spending(grown).own) == _read_in_full(grown)
