"""Codex rollout records for tests: ``line`` (one timestamped record),
``rollout`` (a whole rollout's bytes after a ``session_meta``) and
``token_count`` (the event Codex writes after each response: the
session's cumulative total and the last response's own usage)."""

from __future__ import annotations

import orjson

THREAD = "019cebe5-0000-7000-8000-000000000000"


def line(kind: str, payload: dict, second: int = 0) -> dict:
    """A rollout record of ``kind`` timed ``10:30:<second>``."""
    return {"timestamp": f"2026-03-14T10:30:{second:02d}.000Z", "type": kind, "payload": payload}


def rollout(*items: tuple[str, dict]) -> bytes:
    """A rollout: its ``session_meta``, then each (kind, payload) a second after the one before."""
    lines = [line("session_meta", {"id": THREAD, "cwd": "/tmp"}, 12)]
    lines += [line(kind, payload, 13 + n) for n, (kind, payload) in enumerate(items)]
    return b"".join(orjson.dumps(record) + b"\n" for record in lines)


def token_count(
    total_in: int, total_out: int, last_in: int, last_out: int, *, cached: int = 0, last_cached: int = 0
) -> dict:
    """The payload of a ``token_count`` event: ``total_*`` cumulative, ``last_*`` the last response's."""

    def block(i: int, c: int, o: int) -> dict:
        return {
            "input_tokens": i,
            "cached_input_tokens": c,
            "output_tokens": o,
            "reasoning_output_tokens": 0,
            "total_tokens": i + o,
        }

    return {
        "type": "token_count",
        "rate_limits": None,
        "info": {
            "total_token_usage": block(total_in, cached, total_out),
            "last_token_usage": block(last_in, last_cached, last_out),
            "model_context_window": 272000,
        },
    }
