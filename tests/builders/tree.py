"""Small builders of tree/chat lines for model tests."""

from __future__ import annotations

import orjson


def header(sid: str = "s-1") -> bytes:
    return orjson.dumps({"type": "session", "version": 1, "id": sid, "createdAt": "2026-03-14T11:05:00.000Z"}) + b"\n"


def message(eid: str, parent: str | None, role: str = "user", content: str | None = "hi", **extra) -> bytes:
    msg = {"role": role, "content": content, **extra}
    return (
        orjson.dumps(
            {"type": "message", "id": eid, "parentId": parent, "createdAt": "2026-03-14T11:05:00.000Z", "message": msg}
        )
        + b"\n"
    )


def summary(eid: str, parent: str | None, text: str = "sum", from_id=None, to_id=None, **extra) -> bytes:
    rec = {
        "type": "summary",
        "id": eid,
        "parentId": parent,
        "createdAt": "2026-03-14T11:05:00.000Z",
        "summary": text,
        **extra,
    }
    if from_id is not None:
        rec["fromId"] = from_id
    if to_id is not None:
        rec["toId"] = to_id
    return orjson.dumps(rec) + b"\n"


def pointer(target: str) -> bytes:
    record = {"type": "active_leaf", "activeLeafId": target, "createdAt": "2026-03-14T11:06:00.000Z"}
    return orjson.dumps(record) + b"\n"


def call(eid: str, parent: str | None, *call_ids: str) -> bytes:
    calls = [{"id": c, "type": "function", "function": {"name": "run", "arguments": "{}"}} for c in call_ids]
    return message(eid, parent, "assistant", None, tool_calls=calls)


def result(eid: str, parent: str | None, call_id: str, content: str = "ok") -> bytes:
    return message(eid, parent, "tool", content, tool_call_id=call_id)


def chain(n: int, prefix: str = "m") -> bytes:
    """A header and a linear chain of ``n`` user messages m0 → m1 → …"""
    out = [header()]
    for i in range(n):
        out.append(message(f"{prefix}{i}", f"{prefix}{i - 1}" if i else None, content=f"message {i}"))
    return b"".join(out)


def fresh(data: bytes) -> bytes:
    """``data`` with the builders' fixed time replaced by now: entries an agent writes as it goes."""
    from datetime import UTC, datetime

    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return data.replace(b"2026-03-14T11:05:00.000Z", now.encode())
