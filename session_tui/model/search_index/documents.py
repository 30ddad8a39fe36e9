"""What is indexed of a record: every string in it (message text, thinking,
tool names and arguments, results of any size, summaries), and the fields
a query filters on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..checked_paths import UUID
from ..entries.view import EntryView, parse_time
from ..reading.record_text import text_of

KINDS = ("message", "call", "result", "summary")


@dataclass(frozen=True)
class Document:
    line: int  # 0-based physical line
    offset: int
    length: int
    entry_id: str  # the entry's id, or ``L<line>`` for a format without ids
    role: str
    kind: str  # message, call, result, summary
    tool: str | None  # the tool it calls, or answers
    error: bool
    time: float | None
    text: str


def document(
    line: int, offset: int, length: int, record: dict[str, Any], view: EntryView, tools: dict[str, str]
) -> Document:
    """The document of the entry on ``line``; ``tools``: call id → tool name
    of the calls seen so far (a result names the tool it answers)."""
    for call in view.tool_calls:
        tools[call.id] = call.name
    if view.role == "summary" or view.kind == "summary":
        kind = "summary"
    elif view.result_for is not None:
        kind = "result"
    elif view.tool_calls:
        kind = "call"
    else:
        kind = "message"
    tool = view.tool_calls[0].name if view.tool_calls else tools.get(view.result_for or "")
    return Document(
        line=line,
        offset=offset,
        length=length,
        entry_id=view.id or f"L{line + 1}",
        role="tool" if view.result_for is not None else view.role,
        kind=kind,
        tool=tool,
        error=view.is_error,
        time=parse_time(view.time),
        text=text_of(record),
    )


def packed_entry(entry: str) -> str | bytes:
    """An entry's id as the index keeps it: a uuid written as ``str(UUID)``
    writes it (lower case, dashed) in its 16 bytes, any other id as it is."""
    return bytes.fromhex(entry.replace("-", "")) if UUID.fullmatch(entry) else entry  # (UUID(): 2.5x longer)


def entry_of(kept: str | bytes) -> str:
    """The entry's id from what ``packed_entry`` kept."""
    if isinstance(kept, str):
        return kept
    h = kept.hex()  # as str(UUID(bytes=kept)) writes it, 3x quicker
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
