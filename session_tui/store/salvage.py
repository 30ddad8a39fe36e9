"""What `fix --drop-bad` keeps of a bad line, and how it records what it removes.

A bad line is removed by a backed-up rewrite, the whole of it saved beside
the file first. What it still holds of whole records is kept in its place:
the record after a run of NUL bytes (a block a crash zeroed), both of two
complete records fused on one line, and the record a writer appended onto a
torn one — found where the line's own first bytes recur, never inside a
record (an inner object is no record of the file).
"""

from __future__ import annotations

import base64

import orjson

from ..model.records import JSONDecodeError, content_after

_SKIP = b"\x00 \t\r"
HEAD = 8  # bytes of a record's start that must recur for a record to be looked for there


def salvage(raw: bytes) -> list[bytes]:
    """The whole JSON objects a bad line holds, in order (empty: none)."""
    found: list[bytes] = []
    head = raw.lstrip(_SKIP)[:HEAD]
    pos, size = 0, len(raw)
    while pos < size:
        while pos < size and raw[pos] in _SKIP:
            pos += 1
        if pos >= size:
            break
        piece = raw[pos:]
        try:
            if isinstance(orjson.loads(piece), dict):
                found.append(piece.rstrip())
            break
        except JSONDecodeError as exc:
            end = exc.pos if content_after(exc) else 0
            if end and _is_object(piece[:end]):
                found.append(piece[:end].rstrip())
                pos += end
                continue
        nxt = raw.find(head, pos + 1) if len(head) == HEAD else -1
        if nxt < 0:
            break
        pos = nxt
    return found


def _is_object(raw: bytes) -> bool:
    try:
        return isinstance(orjson.loads(raw), dict)
    except JSONDecodeError:
        return False


def saved_line(line: int, offset: int, raw: bytes, reason: str, kept: int) -> bytes:
    """One line of ``<name>.bad-<UTC>``: where the bad line was (1-based line,
    byte offset), why it is bad, how many records were kept of it, and its
    bytes exactly (as text when they are UTF-8, else base64)."""
    record: dict = {"line": line, "offset": offset, "length": len(raw), "reason": reason, "records_kept": kept}
    try:
        record["text"] = raw.decode("utf-8")
    except UnicodeDecodeError:
        record["base64"] = base64.b64encode(raw).decode("ascii")
    return orjson.dumps(record) + b"\n"
