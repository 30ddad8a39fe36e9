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
from typing import Any

from ..model.reading import json_text
from ..model.reading.records import JSONDecodeError, content_after
from ..model.reading.records import loads as json_loads

_SKIP = b"\x00 \t\r"
HEAD = 8  # bytes of a record's start that must recur for a record to be looked for there
MAX_TRIES = 64  # places tried in one line: a huge torn line costs a bounded number of parses


def salvage(raw: bytes) -> list[bytes]:
    """The whole records a bad line holds, in order (empty: none).

    At the line's start (after NUL bytes and blanks) a record is taken when
    it parses whole, or when it ends where another record starts (two
    fused). Past a torn record, a record is looked for only where the line's
    own first bytes recur, and taken only if it runs to the end of the line:
    an object inside the torn record (a content block) is followed by more
    of that record, never taken. At most MAX_TRIES places are tried."""
    found: list[bytes] = []
    view = memoryview(raw)
    head = raw.lstrip(_SKIP)[:HEAD]
    size, pos, at_start, tries = len(raw), 0, True, 0
    while pos < size and tries < MAX_TRIES:
        tries += 1
        while pos < size and raw[pos] in _SKIP:
            pos += 1
        if pos >= size:
            break
        try:
            if isinstance(json_loads(view[pos:]), dict):
                found.append(raw[pos:].rstrip())
            break
        except JSONDecodeError as exc:
            end = pos + exc.pos if at_start and content_after(exc) else 0
            rest = raw[end:].lstrip(_SKIP) if end else b""
            if end and len(head) == HEAD and rest.startswith(head) and _is_object(view[pos:end]):
                found.append(raw[pos:end].rstrip())
                pos = end  # the next record starts here: a line start again
                continue
        nxt = raw.find(head, pos + 1) if len(head) == HEAD else -1
        if nxt < 0:
            break
        pos, at_start = nxt, False
    return found


def _is_object(raw: memoryview) -> bool:
    try:
        return isinstance(json_loads(raw), dict)
    except JSONDecodeError:
        return False


def saved_line(line: int, offset: int, raw: bytes, reason: str, kept: int) -> bytes:
    """One line of ``<name>.bad-<UTC>``: where the bad line was (1-based line,
    byte offset), why it is bad, how many records were kept of it, and its
    bytes exactly (as text when they are UTF-8, else base64)."""
    record: dict[str, Any] = {
        "line": line,
        "offset": offset,
        "length": len(raw),
        "reason": reason,
        "records_kept": kept,
    }
    try:
        record["text"] = raw.decode("utf-8")
    except UnicodeDecodeError:
        record["base64"] = base64.b64encode(raw).decode("ascii")
    return json_text.dumps(record).encode() + b"\n"
