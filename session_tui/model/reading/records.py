"""Turning one physical line into a JSON object, or saying why it is bad."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

BOM = b"\xef\xbb\xbf"
JSONDecodeError = orjson.JSONDecodeError
#: orjson's own ``loads``, for a loop over every line that calls ``loads`` only
#: where it raises (one Python call less per line)
fast_loads = orjson.loads


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(raw: bytes | str | memoryview) -> Any:
    """One JSON value, parsed by orjson; a value holding a lone surrogate
    escape (``"\\ud83d"``, half an emoji cut from tool output) is valid JSON
    for the clients (Node, Python's json) and is read the same way here,
    the surrogate kept in the string. Anything else orjson refuses stays
    refused, with orjson's reason."""
    try:
        return orjson.loads(raw)
    except JSONDecodeError as exc:
        if "surrogate" not in str(exc):
            raise
        try:
            import json  # (rare: a lone surrogate; not loaded before a first frame)

            return json.loads(bytes(raw) if isinstance(raw, memoryview) else raw, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            raise exc from None


class BadLine(Exception):
    """A line that is not one JSON object; ``str()`` is the reason."""


def is_blank(raw: bytes) -> bool:
    return not raw.strip()


def content_after(error: Exception) -> bool:
    """Whether a parse failed only because more follows a whole JSON value
    (orjson's wording has changed between versions)."""
    text = str(error)
    return "trailing characters" in text or "unexpected content after document" in text


def describe_bad(raw: bytes, error: Exception | None) -> str:
    """A short, human reason for a line that did not parse as one object."""
    if b"\x00" in raw:
        return f"NUL bytes in line ({raw.count(0)} of {len(raw)} bytes)"
    if error is None:
        return "not a JSON object"
    text = str(error)
    head = raw[:8]
    if len(head) == 8 and raw.find(head, 1) > 0:
        return "two records fused on one line (a torn write, then the next record appended to it)"
    if content_after(error):
        return "two JSON values fused on one line (" + text.split(":", 1)[-1].strip() + ")"
    if "UTF-8" in text or "utf-8" in text:
        return "invalid UTF-8"
    return "invalid JSON: " + text


def parse_object(raw: bytes) -> dict[str, Any]:
    """Parse one line; raise BadLine with a reason unless it is a JSON object."""
    try:
        obj = loads(raw)
    except JSONDecodeError as exc:
        raise BadLine(describe_bad(raw, exc)) from None
    if type(obj) is not dict:
        raise BadLine(f"JSON {type(obj).__name__} is not an object")
    return obj


SIDECAR_MAX_BYTES = 1 << 20


def read_object_file(path: str) -> dict[str, Any] | None:
    """The JSON object a small file (a sidecar) holds, or None when it is
    missing, unreadable or not one object; at most SIDECAR_MAX_BYTES read."""
    try:
        with open(path, "rb") as f:
            return parse_object(f.read(SIDECAR_MAX_BYTES).strip())
    except (OSError, BadLine):
        return None


def name_of(value: object) -> str | None:
    """A JSON value used as a name to look up (a role, a record type): a
    string, or None for any other type (a list there is damage, not a key)."""
    return value if type(value) is str else None


#: ``read(offset, length)``: bytes of a file (``Source.read``)
Read = Callable[[int, int], bytes]


def first_objects(read: Read, size: int, limit: int, max_bytes: int) -> tuple[list[dict[str, Any]], bool]:
    """The JSON objects of the first lines of a file of ``size`` bytes, up
    to ``limit`` of them from its first ``max_bytes`` (lines that are not
    one object skipped; a last line without its newline counted when no
    object came before it), and whether the whole file was read for them."""
    objs: list[dict[str, Any]] = []
    pos = 0
    buf = b""
    while len(objs) < limit and pos < min(size, max_bytes):
        block = read(pos, min(64 << 10 << min(pos >> 16, 4), size - pos))  # 64 KiB, growing
        if not block:
            break
        buf += block
        pos += len(block)
        *complete, buf = buf.split(b"\n")
        for raw in complete:
            if not objs and raw.startswith(BOM):
                raw = raw[len(BOM) :]
            try:
                objs.append(parse_object(raw))
            except BadLine:
                continue
    if not objs and buf.strip():
        try:  # a single record without its newline
            objs.append(parse_object(buf.removeprefix(BOM)))
        except BadLine:
            pass
    return objs, pos >= size


def line_start_at(read: Read, offset: int) -> int:
    """The first line start at or after ``offset``."""
    if offset <= 0:
        return 0
    pos = offset - 1
    while True:
        block = read(pos, 1 << 16)
        if not block:
            return pos
        cut = block.find(b"\n")
        if cut >= 0:
            return pos + cut + 1
        pos += len(block)
