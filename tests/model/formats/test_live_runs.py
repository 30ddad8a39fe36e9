"""Files the pinned clients wrote through real agent loops (tests/data/live-runs):
read whole, failed tool results counted as the client marks them, each
response's tokens counted once."""

from __future__ import annotations

import json

import pytest

from session_tui.model.session.branches import branches, details, label
from session_tui.model.session.session import open_session
from session_tui.model.usage.totals import session_usage
from tests.support import REPO, check_json, run_cli

LIVE = REPO / "tests" / "data" / "live-runs"
RUNS = sorted(LIVE.glob("*/*.jsonl"))


@pytest.mark.parametrize("path", RUNS, ids=lambda p: p.parent.name)
def test_a_live_run_reads_whole_and_counts_its_failed_tool_results(path):
    (report,) = check_json(path)
    assert report["format"] == path.parent.name
    assert report["problems"] == [] and report["leaves"] == 1
    assert report["tool_errors"] >= 1  # the script runs a command that fails
    with open_session(path) as session:
        failed = [e for e in session.active_path() if session.format.view(session.record(e)).is_error]
        assert len(failed) == report["tool_errors"]
        for entry in failed:
            assert session.format.view(session.record(entry)).result_for is not None


def test_a_codex_command_result_shows_its_output_and_a_failure_its_exit_code():
    (path,) = LIVE.glob("codex/*.jsonl")
    with open_session(path) as session:
        views = [session.format.view(session.record(e)) for e in session.active_path()]
    results = [v for v in views if v.result_for is not None]
    assert results and not any(v.text.startswith("Chunk ID") for v in results)
    assert all(v.text.startswith("[exit ") for v in results if v.is_error)


@pytest.mark.parametrize("path", [p for p in RUNS if p.parent.name != "codex"], ids=lambda p: p.parent.name)
def test_a_branch_counts_each_response_once(path):
    """(Claude Code writes a response over several lines, each with its usage;
    Codex records a running total of its own, which the status line shows.)"""
    with open_session(path) as session:
        (branch,) = branches(session)
        usage = session_usage(session)
        assert details(session, branch).tokens == usage.counts


CRASHES = sorted((LIVE.parent / "live-crashes").glob("*/*.jsonl"))


@pytest.mark.parametrize("path", CRASHES, ids=lambda p: f"{p.parent.name}-{p.stem[:12]}")
def test_a_real_crash_shows_its_dangling_calls_and_nothing_else(path):
    (report,) = check_json(path)
    assert report["format"] == path.parent.name and report["leaves"] == 1 and report["dangling_tool_calls"]
    assert {(p["kind"], p["severity"]) for p in report["problems"]} == {("dangling_tool_call", "warning")}


def test_pi_sends_another_providers_thinking_as_text_and_export_says_for_which_model():
    (path,) = (LIVE.parent / "variants" / "pi").glob("*.jsonl")
    shown = run_cli("export", str(path), "--context", "--to", "md")
    assert "as sent to anthropic/claude-sonnet-4-5 (the session's last model" in shown.stdout.splitlines()[0]

    def blocks(*model: str) -> list[list[str]]:
        done = run_cli("export", str(path), "--context", "--to", "json", *model)
        assert done.returncode == 0, done.stderr
        sent = json.loads(done.stdout)
        return [[b["type"] for b in m["content"]] for m in sent if m.get("role") == "assistant"]

    last_model, as_openai = blocks(), blocks("--model", "openai/gpt-5.5")
    assert last_model[0][0] == "text" and as_openai[0][0] == "thinking"  # the relabelled first response
    assert last_model[3][0] == "thinking" and as_openai[3][0] == "text"  # an Anthropic one


def test_claude_codes_rewind_is_a_branch_of_the_same_file():
    (path,) = (LIVE.parent / "live-rewinds" / "claude").glob("*.jsonl")
    (report,) = check_json(path)
    assert (report["leaves"], report["branch_points"], report["problems"]) == (2, 1, [])
    with open_session(path) as session:
        labels = sorted(label(session, b) for b in branches(session))
    assert labels == ["continue", "continue and check the notes"]
