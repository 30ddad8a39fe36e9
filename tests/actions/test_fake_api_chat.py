"""The fake API's OpenAI Chat Completions wire: the pairing rules with the
real API's wording, and the answers (streamed and not) over real HTTP."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from session_tui.actions.fake_api import FakeAPI
from session_tui.model.resume.api_rules import CHAT, chat_violations, violations

CALLS = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "shell", "arguments": "{}"}},
        {"id": "call_b", "type": "function", "function": {"name": "shell", "arguments": "{}"}},
    ],
}
USER = {"role": "user", "content": "hi"}


def tool(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "done"}


def test_every_call_answered_before_the_next_message_passes() -> None:
    body = {"messages": [USER, CALLS, tool("call_b"), tool("call_a"), {"role": "assistant", "content": "x"}, USER]}
    assert chat_violations(body) == []
    assert violations(CHAT, body) == []


def test_a_call_without_its_tool_message_is_refused_with_the_api_wording() -> None:
    found = chat_violations({"messages": [USER, CALLS, tool("call_a"), USER]})
    assert [(v.kind, v.index) for v in found] == [("tool_calls_without_result", 1)]
    assert found[0].message.startswith("An assistant message with 'tool_calls' must be followed by tool messages")
    assert found[0].message.endswith("did not have response messages: call_b")
    # at the very end too (a crash mid-tool sent as it is)
    assert [v.kind for v in chat_violations({"messages": [USER, CALLS]})] == ["tool_calls_without_result"]


def test_a_tool_message_after_another_message_is_refused() -> None:
    late = chat_violations({"messages": [USER, CALLS, tool("call_a"), tool("call_b"), USER, tool("call_a")]})
    assert [(v.kind, v.index) for v in late] == [("tool_without_call", 5)]
    assert "must be a response to a preceeding message with 'tool_calls'" in late[0].message
    assert [v.kind for v in chat_violations({"messages": [USER, tool("nowhere")]})] == ["tool_without_call"]


def post(url: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
    request = urllib.request.Request(
        url + "/v1/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.headers.get("Content-Type"), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type"), error.read()


@pytest.fixture
def api() -> Any:
    server = FakeAPI()
    yield server
    server.stop()


def test_the_server_streams_chunks_with_usage_and_done(api: FakeAPI) -> None:
    body = {"model": "m", "stream": True, "stream_options": {"include_usage": True}, "messages": [USER]}
    status, kind, raw = post(api.url, body)
    assert (status, kind) == (200, "text/event-stream")
    events = [line.removeprefix("data: ") for line in raw.decode().split("\n\n") if line]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == "ok"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["prompt_tokens"] == 10
    assert [c.wire for c in api.requests()] == [CHAT]


def test_the_server_answers_json_and_refuses_a_dangling_call(api: FakeAPI) -> None:
    status, _kind, raw = post(api.url, {"model": "m", "messages": [USER]})
    assert status == 200 and json.loads(raw)["choices"][0]["message"] == {"role": "assistant", "content": "ok"}
    status, _kind, raw = post(api.url, {"model": "m", "stream": True, "messages": [USER, CALLS, tool("call_a")]})
    assert status == 400
    error = json.loads(raw)["error"]
    assert error["type"] == "invalid_request_error" and error["param"] == "messages.[1].role"
    assert "call_b" in error["message"]
    assert [(c.status, c.rejection is not None) for c in api.requests()] == [(200, False), (400, True)]
