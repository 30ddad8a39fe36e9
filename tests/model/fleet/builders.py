"""Session files of each client's shape, written as an agent writes them,
with times relative to a given clock: the fleet's tests build the moment
they need (a prompt just sent, a call running, an answer, a crash)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from tests.builders import copilot, gemini, qwen

CWD = "/home/dev/src/invoice-tools"


def stamp(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Writer:
    """Appends a format's records: ``prompt``, ``calls``, ``result``, ``answer``, ``summary``."""

    def __init__(self, path: Path, fmt: str, now: float, hold: bool = False) -> None:
        """``hold``: keep the file open for writing, as Codex does while it
        runs (the live state sees its writer alive: this process)."""
        self.path, self.fmt, self.now = path, fmt, now
        self.n = 0
        self.last: str | None = None
        self.calls: list[str] = []
        self.names: list[str] = []
        self.results: dict[int, bool] = {}  # (Gemini) call -> failed, written once every call is done
        self.step: str | None = None  # (Gemini) the id of the response whose calls run
        self.chain = qwen.Chain(cwd=CWD) if fmt == "qwen" else None
        self.events = copilot.Events() if fmt == "copilot" else None
        path.write_text("")
        self.held = open(path, "a") if hold else None  # noqa: SIM115 (open while the agent lives)
        if fmt == "codex":
            self._line(
                {
                    "timestamp": stamp(now),
                    "type": "session_meta",
                    "payload": {
                        "id": "019cebe5-7fec-77d8-9548-5cabe223553b",
                        "timestamp": stamp(now),
                        "cwd": CWD,
                        "originator": "codex_cli_rs",
                        "cli_version": "0.46.0",
                        "model_provider": "openai",
                    },
                }
            )
            self._line(
                {"timestamp": stamp(now), "type": "turn_context", "payload": {"cwd": CWD, "model": "gpt-5-codex"}}
            )
        elif fmt == "pi":
            self._line(
                {
                    "type": "session",
                    "version": 3,
                    "id": "49367314-07c6-4a67-8508-8efab1434a5b",
                    "timestamp": stamp(now),
                    "cwd": CWD,
                }
            )
        elif fmt == "tree":
            self._line({"type": "session", "version": 1, "id": "s1", "createdAt": stamp(now)})
        elif fmt == "gemini":
            self._line(gemini.header(stamp(now)))
        elif self.events is not None:
            self._line(self.events.start(stamp(now), CWD))

    def _line(self, record: dict) -> None:
        if self.held is not None:
            self.held.write(json.dumps(record) + "\n")
            self.held.flush()
            return
        with open(self.path, "a") as f:
            f.write(json.dumps(record) + "\n")

    def close(self) -> None:
        """The agent stops: it lets go of its file."""
        if self.held is not None:
            self.held.close()
            self.held = None

    def _id(self) -> str:
        self.n += 1
        return f"{self.n:08d}-0000-4000-8000-000000000000" if self.fmt in ("claude", "gemini") else f"e{self.n:07d}"

    def _entry(self, message: dict, ago: float, **extra) -> None:
        at = stamp(self.now - ago)
        entry_id = self._id()
        if self.fmt == "claude":
            role = message["role"]
            self._line(
                {
                    "type": role,
                    "uuid": entry_id,
                    "parentUuid": self.last,
                    "sessionId": "s1",
                    "timestamp": at,
                    "cwd": CWD,
                    "message": message,
                    **extra,
                }
            )
        elif self.fmt == "pi":
            self._line({"type": "message", "id": entry_id, "parentId": self.last, "timestamp": at, "message": message})
        elif self.fmt == "tree":
            self._line({"type": "message", "id": entry_id, "parentId": self.last, "createdAt": at, "message": message})
        elif self.fmt == "chat":
            self._line(message)
        self.last = entry_id

    def _reply(self, content: list[dict], usage: int, ago: float) -> None:
        """A model response of Claude Code or pi, its usage as each records it."""
        if self.fmt == "claude":
            message = {
                "role": "assistant",
                "id": f"msg_{self.n}",
                "model": "claude-sonnet-4-5",
                "content": content,
                "usage": {
                    "input_tokens": usage,
                    "output_tokens": 20,
                    "cache_read_input_tokens": 0,
                    "cache_creation_input_tokens": 0,
                },
            }
        else:
            message = {
                "role": "assistant",
                "content": content,
                "model": "claude-sonnet-4-5",
                "provider": "anthropic",
                "usage": {"input": usage, "output": 20, "cacheRead": 0, "cacheWrite": 0},
            }
        self._entry(message, ago)

    def prompt(self, text: str, ago: float = 1.0) -> Writer:
        if self.fmt == "codex":
            self._line(
                {
                    "timestamp": stamp(self.now - ago),
                    "type": "response_item",
                    "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
                }
            )
        elif self.fmt == "pi":
            self._entry({"role": "user", "content": [{"type": "text", "text": text}]}, ago)
        elif self.fmt == "gemini":
            self._gemini(gemini.user(self._id(), stamp(self.now - ago), text), ago)
        elif self.chain is not None:
            self._line(self.chain.user(stamp(self.now - ago), text))
        elif self.events is not None:
            self._line(self.events.prompt(stamp(self.now - ago), text))
            self._line(self.events.turn_start(stamp(self.now - ago)))
        else:
            self._entry({"role": "user", "content": text}, ago)
        return self

    def _gemini(self, record: dict, ago: float) -> None:
        """A Gemini CLI message record and the ``$set`` of ``lastUpdated`` it writes after each."""
        self._line(record)
        self._line(gemini.updated(stamp(self.now - ago)))

    def calls_made(self, *names: str, ago: float = 1.0, usage: int = 1000) -> Writer:
        ids = [f"call_{self.n}_{k}" for k in range(len(names))]
        self.calls, self.names, self.results = ids, list(names), {}
        args = {"command": "pytest -q"}
        if self.fmt == "gemini":  # the response's text; its calls are written once they are all done
            self.step = self._id()
            self._gemini(gemini.gemini(self.step, stamp(self.now - ago), "", input_tokens=usage), ago)
        elif self.chain is not None:
            at = stamp(self.now - ago)
            self._line(self.chain.telemetry(at))
            calls = [qwen.call(c, n, args) for c, n in zip(ids, names, strict=True)]
            self._line(self.chain.assistant(at, calls=calls, prompt_tokens=usage))
        elif self.events is not None:
            at = stamp(self.now - ago)
            self._line(self.events.usage(at, usage))
            self._line(self.events.message(at, calls=[(c, n, args) for c, n in zip(ids, names, strict=True)]))
            for c, n in zip(ids, names, strict=True):
                self._line(self.events.started(at, c, n, args))
        elif self.fmt == "codex":
            for call_id, name in zip(ids, names, strict=True):
                self._line(
                    {
                        "timestamp": stamp(self.now - ago),
                        "type": "response_item",
                        "payload": {
                            "type": "function_call",
                            "name": name,
                            "arguments": json.dumps({"command": ["bash", "-lc", "pytest -q"]}),
                            "call_id": call_id,
                        },
                    }
                )
        elif self.fmt == "claude":
            content = [
                {"type": "tool_use", "id": c, "name": n, "input": {"command": "pytest -q"}}
                for c, n in zip(ids, names, strict=True)
            ]
            self._reply(content, usage, ago)
        elif self.fmt == "pi":
            content = [
                {"type": "toolCall", "id": c, "name": n, "arguments": {"command": "pytest -q"}}
                for c, n in zip(ids, names, strict=True)
            ]
            self._reply(content, usage, ago)
        else:
            calls = [
                {
                    "id": c,
                    "type": "function",
                    "function": {"name": n, "arguments": json.dumps({"command": "pytest -q"})},
                }
                for c, n in zip(ids, names, strict=True)
            ]
            self._entry({"role": "assistant", "content": None, "tool_calls": calls}, ago)
        return self

    def result(self, k: int = 0, ago: float = 1.0, error: bool = False) -> Writer:
        call_id = self.calls[k]
        at = stamp(self.now - ago)
        if self.fmt == "gemini":
            self.results[k] = error
            self.results = dict(sorted(self.results.items()))
            if len(self.results) == len(self.calls) and self.step is not None:  # all done: the second copy
                calls = [
                    gemini.call(c, n, {"command": "pytest -q"}, at, "failed" if failed else "ok", failed)
                    for c, n, failed in zip(self.calls, self.names, self.results.values(), strict=True)
                ]
                self._gemini(gemini.gemini(self.step, at, "", calls), ago)
                self._gemini(gemini.responses(self._id(), at, calls), ago)
        elif self.chain is not None:
            self._line(self.chain.telemetry(at, "qwen-code.tool_call"))
            self._line(self.chain.result(at, call_id, self.names[k], "failed" if error else "ok", error))
        elif self.events is not None:
            self._line(self.events.completed(at, call_id, "failed" if error else "ok", error))
        elif self.fmt == "codex":
            output = json.dumps({"output": "failed" if error else "ok", "metadata": {"exit_code": 1 if error else 0}})
            self._line(
                {
                    "timestamp": stamp(self.now - ago),
                    "type": "response_item",
                    "payload": {"type": "function_call_output", "call_id": call_id, "output": output},
                }
            )
        elif self.fmt == "claude":
            self._entry(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": call_id,
                            "content": "failed" if error else "ok",
                            "is_error": error,
                        }
                    ],
                },
                ago,
            )
        elif self.fmt == "pi":
            self._entry(
                {
                    "role": "toolResult",
                    "toolCallId": call_id,
                    "toolName": "bash",
                    "content": [{"type": "text", "text": "ok"}],
                    "isError": error,
                },
                ago,
            )
        else:
            self._entry({"role": "tool", "tool_call_id": call_id, "content": "ok"}, ago)
        return self

    def answer(self, text: str = "Done.", ago: float = 1.0, usage: int = 1000) -> Writer:
        if self.fmt == "codex":
            self._line(
                {
                    "timestamp": stamp(self.now - ago),
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": text}],
                    },
                }
            )
        elif self.fmt in ("claude", "pi"):
            self._reply([{"type": "text", "text": text}], usage, ago)
        elif self.fmt == "gemini":
            self._gemini(gemini.gemini(self._id(), stamp(self.now - ago), text, input_tokens=usage), ago)
        elif self.chain is not None:
            self._line(self.chain.telemetry(stamp(self.now - ago)))
            self._line(self.chain.assistant(stamp(self.now - ago), text, prompt_tokens=usage))
        elif self.events is not None:
            self._line(self.events.usage(stamp(self.now - ago), usage))
            self._line(self.events.message(stamp(self.now - ago), text))
            self._line(self.events.turn_end(stamp(self.now - ago)))
        else:
            self._entry({"role": "assistant", "content": text}, ago)
        return self

    def torn(self, fragment: str = '{"type":"message","id":"x","par') -> Writer:
        with open(self.path, "a") as f:
            f.write(fragment)
        return self

    def written(self, ago: float) -> Writer:
        """The file's time: ``ago`` seconds before the clock."""
        os.utime(self.path, (self.now - ago, self.now - ago))
        return self
