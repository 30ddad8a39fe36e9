"""pi session records for tests: ``header`` (the session line of a file
version), ``entry`` (any entry of the tree, ``e<n>``, timed ``09:12:<n>``)
and ``call`` (an assistant message calling bash, with its usage)."""

from __future__ import annotations


def header(version: int) -> dict:
    return {"type": "session", "version": version, "id": "p-1", "timestamp": "2026-03-14T09:12:00.000Z", "cwd": "/w"}


def entry(n: int, parent: str | None, kind: str = "message", **fields) -> dict:
    return {"type": kind, "id": f"e{n}", "parentId": parent, "timestamp": f"2026-03-14T09:12:{n:02d}.000Z", **fields}


def call(n: int, parent: str | None, command: str) -> dict:
    message = {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": f"c{n}", "name": "bash", "arguments": {"command": command}}],
        "model": "claude-sonnet-4-5",
        "provider": "anthropic",
        "usage": {"input": 10, "output": 5, "cacheRead": 100, "cacheWrite": 0},
    }
    return entry(n, parent, message=message)
