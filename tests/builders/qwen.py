"""Qwen Code 0.24 records for tests, in the shapes of the real recorded files
(tests/data/live-2026-12-03/qwen): a ``parentUuid`` chain of ``user``,
``assistant`` (a Gemini-style ``message`` of ``parts``, ``usageMetadata``),
``tool_result`` (function responses and ``toolCallResult``) and ``system``
(telemetry the model never sees) records; ``Chain`` links each record to the
one before, as Qwen Code writes them."""

from __future__ import annotations

from typing import Any

import orjson

SESSION = "6f5a276f-b469-469c-a47e-87712be75179"
CWD = "/home/dev/src/invoice-tools"
MODEL = "qwen3-coder-plus"
PROVENANCE = {"user": "real_user", "assistant": "assistant_output", "tool_result": "tool_result", "system": "system"}


def call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"functionCall": {"id": call_id, "name": name, "args": args}}


def line(record: dict[str, Any]) -> bytes:
    return orjson.dumps(record) + b"\n"


class Chain:
    """Records each the child of the one before; ``uuid`` numbers them."""

    def __init__(self, session_id: str = SESSION, cwd: str = CWD) -> None:
        self.session_id, self.cwd = session_id, cwd
        self.last: str | None = None
        self.n = 0

    def _record(self, kind: str, at: str, **fields: Any) -> dict[str, Any]:
        self.n += 1
        uuid = f"{self.n:08d}-9c9a-45c7-8fc6-92195301acd0"
        record = {
            "uuid": uuid,
            "parentUuid": self.last,
            "sessionId": self.session_id,
            "timestamp": at,
            "type": kind,
            "provenance": PROVENANCE[kind],
            "cwd": self.cwd,
            "version": "0.24.4",
            **fields,
        }
        self.last = uuid
        return record

    def user(self, at: str, text: str) -> dict[str, Any]:
        return self._record("user", at, message={"role": "user", "parts": [{"text": text}]})

    def assistant(
        self, at: str, text: str = "", calls: list[dict[str, Any]] | None = None, prompt_tokens: int = 9710
    ) -> dict[str, Any]:
        parts: list[dict[str, Any]] = ([{"text": text}] if text else []) + (calls or [])
        usage = {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": 22,
            "thoughtsTokenCount": 0,
            "totalTokenCount": prompt_tokens + 22,
            "cachedContentTokenCount": 0,
        }
        return self._record(
            "assistant",
            at,
            model=MODEL,
            message={"role": "model", "parts": parts},
            usageMetadata=usage,
            contextWindowSize=1_000_000,
        )

    def result(self, at: str, call_id: str, name: str, output: str = "ok", error: bool = False) -> dict[str, Any]:
        response = {"error": output} if error else {"output": output}
        outcome: dict[str, Any] = {"callId": call_id, "status": "error" if error else "success"}
        if error:
            outcome.update(error={}, errorType="shell_execute_error", executionStatus="error")
        part = {"functionResponse": {"id": call_id, "name": name, "response": response}}
        return self._record(
            "tool_result",
            at,
            message={"role": "user", "parts": [part]},
            toolCallResult=outcome,
        )

    def telemetry(self, at: str, event: str = "qwen-code.api_response") -> dict[str, Any]:
        """A ``system`` ``ui_telemetry`` record (before each response, after each call)."""
        return self._record(
            "system",
            at,
            subtype="ui_telemetry",
            systemPayload={"uiEvent": {"event.name": event, "event.timestamp": at, "model": MODEL}},
        )
