"""Gemini CLI 0.61 records for tests, in the shapes of the real recorded files
(tests/data/live-2026-12-03/gemini): a ``header``, ``user`` prompts, ``gemini``
responses (written once when their text is done and again, under the same
id, with ``toolCalls`` and their results once the calls finish: a running
call is not in the file), ``responses`` (the ``user`` record of function
responses after them), ``updated`` (the ``$set`` of ``lastUpdated`` after
each record), ``rewind`` and ``line``."""

from __future__ import annotations

from typing import Any

import orjson

SESSION = "3be2e30e-b363-4b93-b41c-b3c4022d25f5"
PROJECT = "51164804a96ff13dcd6c3efc3560965342169d3f1a20845548e79db984d245d9"
MODEL = "gemini-2.5-pro"


def header(at: str, session_id: str = SESSION) -> dict[str, Any]:
    return {"sessionId": session_id, "projectHash": PROJECT, "startTime": at, "lastUpdated": at, "kind": "main"}


def updated(at: str) -> dict[str, Any]:
    return {"$set": {"lastUpdated": at}}


def rewind(message_id: str) -> dict[str, Any]:
    return {"$rewindTo": message_id}


def user(message_id: str, at: str, text: str) -> dict[str, Any]:
    return {"id": message_id, "timestamp": at, "type": "user", "content": [{"text": text}]}


def call(
    call_id: str, name: str, args: dict[str, Any], at: str, output: str = "ok", error: bool = False
) -> dict[str, Any]:
    """A finished call as ``toolCalls`` holds it: its id with Gemini CLI's ``<tool>__`` prefix."""
    response = {"error": output} if error else {"output": output}
    return {
        "id": f"{name}__{call_id}",
        "name": name,
        "args": args,
        "result": [{"functionResponse": {"id": f"{name}__{call_id}", "name": name, "response": response}}],
        "status": "error" if error else "success",
        "timestamp": at,
        "resultDisplay": output,
        "description": str(args.get("command", name)),
        "displayName": "Shell" if name == "run_shell_command" else name,
        "renderOutputAsMarkdown": False,
    }


def gemini(
    message_id: str,
    at: str,
    text: str = "",
    calls: list[dict[str, Any]] | None = None,
    input_tokens: int = 340,
    output_tokens: int = 22,
    thoughts: str = "",
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": message_id,
        "timestamp": at,
        "type": "gemini",
        "content": text,
        "thoughts": [{"subject": "", "description": thoughts, "timestamp": at}] if thoughts else [],
        "tokens": {
            "input": input_tokens,
            "output": output_tokens,
            "cached": 0,
            "thoughts": 0,
            "tool": 0,
            "total": input_tokens + output_tokens,
        },
        "model": MODEL,
    }
    if calls:
        record["toolCalls"] = calls
    return record


def responses(message_id: str, at: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``user`` record of the calls' function responses, as written after their ``gemini`` record."""
    return {
        "id": message_id,
        "timestamp": at,
        "type": "user",
        "content": [part for c in calls for part in c["result"]],
    }


def line(record: dict[str, Any]) -> bytes:
    return orjson.dumps(record) + b"\n"
