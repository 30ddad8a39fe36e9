"""Tokens and cost: each response once per format, priced from the table
against figures worked out by hand, an unknown model left unpriced,
sub-agents rolled up, the check --json contract."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from session_tui.model.session.session import Session
from session_tui.model.usage.totals import spending
from tests.builders.claude import assistant_record, user_record
from tests.builders.codex import line as codex_line
from tests.builders.codex import token_count
from tests.support import SAMPLES

# per million tokens, from the providers' price pages: (input, cache read, cache write, output)
SONNET_45 = (3.00, 0.30, 3.75, 15.00)
GPT5_CODEX = (1.25, 0.125, 0.0, 10.00)


def by_hand(prices, uncached, cache_read, cache_write, output):
    return (uncached * prices[0] + cache_read * prices[1] + cache_write * prices[2] + output * prices[3]) / 1e6


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def usage(path):
    with Session(str(path)) as session:
        session.refresh()
        return spending(session)


def test_claude_a_response_over_several_lines_and_its_parallel_calls_is_counted_once(tmp_path):
    calls = [
        {"type": "tool_use", "id": f"toolu_{k}", "name": "Read", "input": {"file_path": f"/w/{k}.py"}} for k in (1, 2)
    ]
    path = write(
        tmp_path / "s-1.jsonl",
        [
            user_record(0, None),
            assistant_record(1, "u0", message_id="msg_A", blocks=[{"type": "thinking", "thinking": "hm"}]),
            assistant_record(2, "u1", message_id="msg_A", blocks=[calls[0]]),  # the same response, its next block
            assistant_record(3, "u2", message_id="msg_A", blocks=[calls[1]]),  # a parallel call of it
            user_record(4, "u3", "and now?"),
            assistant_record(5, "u4", message_id="msg_B"),
        ],
    )
    spent = usage(path).own
    assert (spent.responses, spent.input, spent.cache_read, spent.cache_write, spent.output) == (
        2,
        2000,
        4000,
        1000,
        200,
    )
    assert spent.cost_usd == pytest.approx(2 * by_hand(SONNET_45, 1000, 2000, 500, 100))
    assert spent.unpriced_models == []


def test_an_unknown_model_is_listed_and_left_out_of_the_cost_never_guessed(tmp_path):
    path = write(
        tmp_path / "s-1.jsonl",
        [
            user_record(0, None),
            assistant_record(1, "u0", message_id="msg_A"),
            user_record(2, "u1"),
            assistant_record(3, "u2", message_id="msg_B", model="claude-imaginary-9"),
        ],
    )
    spent = usage(path).own
    assert spent.responses == 2 and spent.unpriced_models == ["claude-imaginary-9"]
    assert spent.cost_usd == pytest.approx(by_hand(SONNET_45, 1000, 2000, 500, 100))  # the known one only
    assert spent.input == 2000  # its tokens still count


def test_codex_a_resumed_rollout_counts_its_last_cumulative_total_with_each_response_priced_once(tmp_path):
    meta = {
        "id": "019c-aaaa",
        "timestamp": "2026-03-14T10:30:00.000Z",
        "cwd": "/w",
        "originator": "codex_cli_rs",
        "cli_version": "0.46.0",
    }
    path = write(
        tmp_path / "rollout-2026-03-14T10-30-00-019c-aaaa.jsonl",
        [
            codex_line("session_meta", meta),
            codex_line("turn_context", {"cwd": "/w", "model": "gpt-5-codex"}),
            codex_line(
                "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}
            ),
            codex_line(
                "response_item",
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]},
            ),
            # resumed: the first total holds 3,000 input (1,000 cached) and 100 output from before this file
            codex_line("event_msg", token_count(8000, 300, 5000, 200, cached=5000, last_cached=4000)),
            codex_line(
                "event_msg", token_count(8000, 300, 5000, 200, cached=5000, last_cached=4000)
            ),  # written twice: counted once
        ],
    )
    spent = usage(path).own
    assert (spent.input + spent.cache_read, spent.cache_read, spent.output) == (8000, 5000, 300)  # the last total
    assert spent.responses == 2  # the one recorded, and what the total holds from before
    assert spent.cost_usd == pytest.approx(by_hand(GPT5_CODEX, 3000, 5000, 0, 300))


def test_pi_both_costs_are_shown_the_tables_used(tmp_path):
    source = SAMPLES / "pi" / "2026-03-16T08-05-47-300Z_dbdb84be-32de-4686-9dc8-d5ef821477fb.jsonl"
    spent = usage(source).own
    assert spent.recorded_cost_usd == pytest.approx(0.017325)  # what the file says (its own price)
    assert spent.cost_usd == pytest.approx(by_hand(GPT5_CODEX, 5200, 0, 0, 115))
    assert spent.as_json()["recorded_cost_usd"] == pytest.approx(0.017325)


def test_sub_agents_are_rolled_up_and_shown_apart(tmp_path):
    shutil.copytree(SAMPLES / "claude", tmp_path / "claude")
    path = tmp_path / "claude" / "5b0c7e21-9d3a-4f6e-8a2b-3c4d5e6f7a80.jsonl"
    found = usage(path)
    assert len(found.subagents) == 1
    (sub,) = found.subagents.values()
    assert sub.responses >= 1 and sub.cost_usd > 0
    assert found.total.cost_usd == pytest.approx(found.own.cost_usd + sub.cost_usd)
    assert found.total.output == found.own.output + sub.output


def test_check_json_usage_contract(tmp_path):
    path = SAMPLES / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "session_tui", "check", "--json", str(path)], capture_output=True, text=True
    )
    spent = json.loads(done.stdout)["usage"]
    assert set(spent) >= {"input", "output", "cache_read", "cache_write", "cost_usd", "priced_by", "unpriced_models"}
    assert (spent["input"], spent["output"], spent["cache_read"], spent["cache_write"]) == (66660, 1284, 199980, 0)
    assert spent["cost_usd"] == pytest.approx(by_hand(SONNET_45, 66660, 199980, 0, 1284))
    assert spent["priced_by"].startswith("genai-prices ")


def test_usage_over_many_files_by_model_counts_a_sub_agent_once_with_its_session(tmp_path):
    shutil.copytree(SAMPLES / "claude", tmp_path / "claude")
    shutil.copytree(SAMPLES / "pi", tmp_path / "pi")
    run = [sys.executable, "-m", "session_tui", "usage", str(tmp_path), "--json"]
    by_session = json.loads(subprocess.run([*run, "--by", "session"], capture_output=True, text=True).stdout)
    by_model = json.loads(subprocess.run([*run, "--by", "model"], capture_output=True, text=True).stdout)
    assert not any("subagents" in row["key"] for row in by_session["rows"])  # rolled up into its session
    parent = next(r for r in by_session["rows"] if r["key"].endswith("5b0c7e21-9d3a-4f6e-8a2b-3c4d5e6f7a80.jsonl"))
    assert parent["responses"] == 2 + 2  # its own and its sub-agent's
    assert by_model["total"]["cost_usd"] == pytest.approx(by_session["total"]["cost_usd"])
    assert by_model["total"]["output"] == by_session["total"]["output"]
    models = {row["key"] for row in by_model["rows"]}
    assert models >= {"claude-sonnet-4-5-20250929", "claude-sonnet-4-5", "gpt-5-codex"}


def test_diff_json_prices_each_branch_after_the_fork(tmp_path):
    path = SAMPLES / "pi" / "2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "session_tui", "diff", "--json", str(path)], capture_output=True, text=True
    )
    a, b = (side["usage"] for side in json.loads(done.stdout)["branches"])
    assert (a["input"], a["cache_read"], a["output"]) == (45510, 136530, 730)
    assert a["cost_usd"] == pytest.approx(by_hand(SONNET_45, 45510, 136530, 0, 730))
    assert b["cost_usd"] == pytest.approx(by_hand(SONNET_45, 9600, 28800, 0, 148))
    whole = usage(path).own  # the shared part before the fork is in neither side
    assert a["cost_usd"] + b["cost_usd"] < whole.cost_usd


def test_cache_written_for_an_hour_is_priced_at_the_hour_rate(tmp_path):
    hour = {
        "input_tokens": 1000,
        "cache_read_input_tokens": 2000,
        "cache_creation_input_tokens": 500,
        "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 400},
        "output_tokens": 100,
    }
    path = write(
        tmp_path / "s-1.jsonl", [user_record(0, None), assistant_record(1, "u0", message_id="msg_A", usage=hour)]
    )
    spent = usage(path).own
    one_hour_write = 2 * SONNET_45[0]  # twice the input price; the 5-minute kind is 1.25×
    expected = by_hand(SONNET_45, 1000, 2000, 100, 100) + 400 * one_hour_write / 1e6
    assert spent.cost_usd == pytest.approx(expected)


def test_usage_keeps_each_files_figures_until_the_file_changes(tmp_path):
    from session_tui.model.usage.ledger import NAME

    folder = tmp_path / "sessions"
    shutil.copytree(SAMPLES / "pi", folder)
    cache = tmp_path / "cache"
    env = {**os.environ, "SESSION_TUI_CACHE_DIR": str(cache)}
    run = [sys.executable, "-m", "session_tui", "usage", str(folder), "--json"]

    def total():
        done = subprocess.run(run, capture_output=True, text=True, env=env)
        return json.loads(done.stdout)["total"]["output"]

    first = total()
    kept = json.loads((cache / NAME).read_text())
    (path,) = [p for p in kept["files"] if "2026-03-14T09" in p]
    kept["files"][path]["groups"][0][2]["output"] += 1_000_000  # a mark: read from the ledger, not the file
    (cache / NAME).write_text(json.dumps(kept))
    assert total() == first + 1_000_000
    with open(path, "a") as f:  # the file changes: read again
        f.write("\n")
    assert total() == first


def test_check_says_what_the_sub_agents_cost_apart(tmp_path):
    shutil.copytree(SAMPLES / "claude", tmp_path / "claude")
    path = tmp_path / "claude" / "5b0c7e21-9d3a-4f6e-8a2b-3c4d5e6f7a80.jsonl"
    done = subprocess.run([sys.executable, "-m", "session_tui", "check", str(path)], capture_output=True, text=True)
    lines = done.stdout.splitlines()
    total = next(line for line in lines if line.strip().startswith("cost $"))
    apart = next(line for line in lines if "of which sub-agents: cost $" in line)
    assert "4 responses" in total and "2 responses" in apart
