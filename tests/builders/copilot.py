"""GitHub Copilot CLI 1.0.102 events for tests, in the shapes of the real
recorded files (tests/data/live-2026-12-03/copilot): ``Events`` writes one
``parentId`` chain, each event the child of the one before: ``start``
(``session.start``), ``prompt`` (``user.message``), ``turn_start``,
``usage`` (``session.usage_record``), ``message`` (``assistant.message``
with ``toolRequests``), ``started`` / ``completed`` (``tool.execution_*``),
``turn_end``, ``shutdown``."""

from __future__ import annotations

from typing import Any

import orjson

SESSION = "9b18baab-7802-4ab5-91bd-d84a96dbd7d5"
CWD = "/home/dev/src/invoice-tools"
MODEL = "gpt-5.4"


def line(record: dict[str, Any]) -> bytes:
    return orjson.dumps(record) + b"\n"


class Events:
    def __init__(self, session_id: str = SESSION) -> None:
        self.session_id = session_id
        self.last: str | None = None
        self.n = 0
        self.turn = 0

    def _event(self, kind: str, at: str, data: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        event_id = f"{self.n:08d}-bf15-4693-911f-e85049f63b53"
        event = {"type": kind, "data": data, "id": event_id, "timestamp": at, "parentId": self.last}
        self.last = event_id
        return event

    def start(self, at: str, cwd: str = CWD) -> dict[str, Any]:
        return self._event(
            "session.start",
            at,
            {
                "sessionId": self.session_id,
                "version": 1,
                "producer": "copilot-agent",
                "copilotVersion": "1.0.102",
                "startTime": at,
                "selectedModel": MODEL,
                "context": {"cwd": cwd},
            },
        )

    def prompt(self, at: str, text: str) -> dict[str, Any]:
        transformed = f"<current_datetime>{at}</current_datetime>\n\n{text}"
        return self._event(
            "user.message",
            at,
            {"content": text, "transformedContent": transformed, "messageId": f"m{self.n}", "turnId": str(self.turn)},
        )

    def turn_start(self, at: str) -> dict[str, Any]:
        return self._event("assistant.turn_start", at, {"turnId": str(self.turn)})

    def turn_end(self, at: str) -> dict[str, Any]:
        event = self._event("assistant.turn_end", at, {"turnId": str(self.turn)})
        self.turn += 1
        return event

    def usage(self, at: str, input_tokens: int = 6912, output_tokens: int = 13) -> dict[str, Any]:
        usage = {
            "model": MODEL,
            "inputTokens": input_tokens,
            "outputTokens": output_tokens,
            "cacheReadTokens": 0,
            "cacheWriteTokens": 0,
            "reasoningTokens": 0,
            "cost": 0.0,
            "maxPromptTokens": 922000,
        }
        return self._event("session.usage_record", at, {"usage": usage})

    def message(self, at: str, text: str = "", calls: list[tuple[str, str, dict[str, Any]]] = ()) -> dict[str, Any]:
        """An ``assistant.message``; ``calls``: (toolCallId, name, arguments)."""
        requests = [
            {"toolCallId": c, "name": name, "arguments": args, "type": "function", "toolTitle": "Running command"}
            for c, name, args in calls
        ]
        return self._event(
            "assistant.message",
            at,
            {
                "messageId": f"a{self.n}",
                "model": MODEL,
                "content": text,
                "toolRequests": requests,
                "turnId": str(self.turn),
            },
        )

    def started(self, at: str, call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
        data = {"toolCallId": call_id, "toolName": name, "arguments": args, "turnId": str(self.turn), "model": MODEL}
        return self._event("tool.execution_start", at, data)

    def completed(self, at: str, call_id: str, output: str = "ok", error: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {"toolCallId": call_id, "model": MODEL, "turnId": str(self.turn), "success": not error}
        if error:
            data["error"] = {"message": output, "code": "failure"}
        else:
            data["result"] = {"content": output}
        return self._event("tool.execution_complete", at, data)

    def shutdown(self, at: str) -> dict[str, Any]:
        return self._event("session.shutdown", at, {"shutdownType": "routine", "modelMetrics": {}})
