"""Codex 0.169's compaction before a turn, as a dry run meets it: resumed
with another model than the session's first, Codex first sends the history
with a ``compaction_trigger`` item at the end and expects one ``compaction``
item back; the dry run compares the history of that request (the trigger
left out) with session-tui's context. Over real HTTP, no client."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from session_tui.actions.dry_run import compaction_request, main_request
from session_tui.actions.fake_api import FakeAPI, compacting
from session_tui.model.resume.api_rules import RESPONSES
from session_tui.model.resume.steps import PROMPT, request_steps

HISTORY: list[dict[str, Any]] = [
    {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "instructions"}]},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "run the tests"}]},
    {"type": "function_call", "call_id": "call_1", "name": "exec_command", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_1", "output": "3 passed"},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "all pass"}]},
]
TRIGGER = {"type": "compaction_trigger"}


def post(url: str, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    request = urllib.request.Request(
        url + "/v1/responses", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200 and answer.headers.get("Content-Type") == "text/event-stream"
        raw = answer.read().decode()
    events = []
    for block in raw.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if lines:
            events.append((lines["event"], json.loads(lines["data"])))
    return events


@pytest.fixture
def api() -> Any:
    server = FakeAPI()
    yield server
    server.stop()


def test_a_request_ending_in_a_compaction_trigger_gets_exactly_one_compaction_item(api: FakeAPI) -> None:
    body = {"model": "gpt-5.5", "stream": True, "input": [*HISTORY, TRIGGER]}
    assert compacting(body)
    events = post(api.url, body)
    done = [data["item"] for name, data in events if name == "response.output_item.done"]
    completed = [data["response"] for name, data in events if name == "response.completed"]
    assert len(completed) == 1 and completed[0]["status"] == "completed"
    assert [item["type"] for item in done] == ["compaction"]
    assert [item["type"] for item in completed[0]["output"]] == ["compaction"]
    assert done[0]["encrypted_content"]  # (Codex keeps it as the history's replacement)
    assert [r.status for r in api.requests()] == [200]


def test_an_ordinary_turn_gets_text_not_a_compaction(api: FakeAPI) -> None:
    prompt = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": PROMPT}]}
    body = {"model": "gpt-5.5", "stream": True, "input": [*HISTORY, TRIGGER, prompt]}
    assert not compacting(body)  # (only a trigger at the very end asks for one)
    events = post(api.url, body)
    done = [data["item"] for name, data in events if name == "response.output_item.done"]
    assert [item["type"] for item in done] == ["message"] and done[0]["content"][0]["text"] == "ok"


def test_the_steps_of_a_compaction_request_leave_the_trigger_out() -> None:
    with_trigger = request_steps(RESPONSES, [*HISTORY, TRIGGER])
    assert [s.key() for s in with_trigger] == [s.key() for s in request_steps(RESPONSES, HISTORY)]
    assert all("compaction_trigger" not in s.text for s in with_trigger)
    assert with_trigger[0].text == "run the tests" and with_trigger[-1].text == "all pass"


def test_the_dry_run_compares_the_history_sent_to_be_compacted(api: FakeAPI) -> None:
    prompt = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": PROMPT}]}
    post(api.url, {"model": "gpt-5.5", "stream": True, "input": [*HISTORY, TRIGGER]})
    post(
        api.url,
        {"model": "gpt-5.5", "stream": True, "input": [{"type": "compaction", "encrypted_content": "x"}, prompt]},
    )
    requests = api.requests()
    main = main_request(requests)
    assert main is requests[1]
    assert compaction_request(requests, main) is requests[0]
