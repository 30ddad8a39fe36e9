"""One count of a session's tokens (issue 36): the responses, each once, with
its sub-agents', the same however the file was read (at once, or as it grew)
and whoever asks (the status line, U, check, export, usage)."""

from __future__ import annotations

import pytest

from session_tui.model.session.session import Session, open_session
from session_tui.model.session.usage import responses, session_tokens, session_usage
from session_tui.model.usage.totals import spending
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
        assert (usage.input_tokens, usage.output_tokens) == (tokens.sent, tokens.output)
