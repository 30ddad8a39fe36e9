"""The secrets of a session file: each one's line, entry, kind and masked preview.

The file is read in large blocks; one regular expression finds the lines
that may hold a secret (``secrets.candidate_lines``), and only those are decoded
and their string values scanned (nested values and JSON inside strings
such as tool arguments included; keys are context, never scanned). A line
that is not JSON (a bad line, a torn tail) is scanned as text.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from ..entries.tree import SessionTree
from ..errors import Cancelled
from ..reading.line_index import LineIndex
from ..reading.records import BOM
from ..reading.records import loads as json_loads
from .secrets import Secret, candidate_lines, find_in_strings, find_secrets, preview


class Session(Protocol):
    """What the scan reads of a session (``session.Session`` has it)."""

    lines: LineIndex
    tree: SessionTree

    def pread(self, length: int, offset: int) -> bytes: ...


BLOCK = 8 << 20  # bytes read at a time


@dataclass(frozen=True)
class Finding:
    line: int  # 1-based physical line
    entry: int | None  # the entry's index in the session (0-based, file order); None: not an entry
    kind: str
    preview: str  # masked: never the secret

    def as_json(self) -> dict[str, Any]:
        return {"line": self.line, "entry": self.entry, "kind": self.kind, "preview": self.preview}


def strings(value: Any) -> Iterator[tuple[str | None, str]]:
    """Every string value in ``value`` with the name of the field holding it
    (None in a list), keys left out; no recursion (any depth)."""
    todo = [value]
    while todo:
        node = todo.pop()
        pairs: Any = node.items() if isinstance(node, dict) else ((None, child) for child in node)
        for name, child in pairs:
            if isinstance(child, str):
                yield name, child
            elif isinstance(child, (dict, list)):
                todo.append(child)


def line_secrets(raw: bytes) -> list[Secret]:
    """The secrets in the string values of one raw line (no newline)."""
    try:
        value = json_loads(raw)
    except orjson.JSONDecodeError:
        return find_secrets(raw.decode("utf-8", "replace"))
    if isinstance(value, str):
        return find_secrets(value)
    if not isinstance(value, (dict, list)):
        return []
    return value_secrets(value)


def value_secrets(value: dict[str, Any] | list[Any]) -> list[Secret]:
    """The secrets in the strings of a record, each string's own (its offsets are in it)."""
    return [secret for found in find_in_strings(list(strings(value))) for secret in found]


def scan_blocks(blocks: Iterator[bytes]) -> Iterator[tuple[int, Secret]]:
    """(1-based line, secret) over a file given as consecutive blocks; the
    last line needs no newline."""
    line, carry = 1, b""
    for block in blocks:
        data = carry + block
        cut = data.rfind(b"\n") + 1
        line = yield from _scan(data, cut, line)
        carry = data[cut:]
    if carry:
        yield from _scan(carry, len(carry), line)


def _scan(data: bytes, stop: int, line: int) -> Generator[tuple[int, Secret], None, int]:
    """Scan the lines of ``data[:stop]``, the first being ``line``; return
    the number of the line after them (a generator's return value)."""
    at = 0
    for start, end in candidate_lines(data, 0, stop):
        line += data.count(b"\n", at, start)
        at = start
        raw = data[start:end].removesuffix(b"\r")
        if line == 1:
            raw = raw.removeprefix(BOM)
        for secret in line_secrets(raw):
            yield line, secret
    return line + data.count(b"\n", at, stop)


def session_secrets(session: Session, should_stop: Callable[[], bool] | None = None) -> list[Finding]:
    """Every secret in the session's file as indexed (its complete lines,
    then a torn last line), in file order. ``should_stop`` is polled
    between blocks (raises Cancelled)."""

    def blocks() -> Iterator[bytes]:
        offset, end = 0, session.lines.end
        while offset < end:
            if should_stop is not None and should_stop():
                raise Cancelled()
            data = session.pread(min(BLOCK, end - offset), offset)
            if not data:
                return
            offset += len(data)
            yield data

    entry_line = session.tree.entry_line
    count = session.tree.count

    def entry_of(line: int) -> int | None:
        k = bisect_left(entry_line, line - 1)
        return k if k < count and entry_line[k] == line - 1 else None

    found = [
        Finding(line, entry_of(line), secret.kind, preview(secret.value, secret.kind))
        for line, secret in scan_blocks(blocks())
    ]
    if session.lines.torn:
        line = len(session.lines) + 1
        found += [Finding(line, None, s.kind, preview(s.value, s.kind)) for s in line_secrets(session.lines.torn)]
    return found
