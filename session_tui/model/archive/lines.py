"""How a session file's bytes become the archive's rows: read in pieces of
whole lines, each line's columns (its text, or its bytes when it is not
UTF-8 or holds a NUL; its record where jsonb takes it), secrets masked in a
line and in a path, and the 64-bit numbers of a file's identity as
PostgreSQL's bigint holds them."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import orjson

from ..privacy.redact import Redactor, redacted_name

BATCH = 8 << 20  # bytes of a file's lines per transaction
JSONB_MAX = 64 << 20  # a longer line is kept as text only (jsonb has limits of its own)
_SIGNED = 1 << 63
#: what may be the end of a secret cut in two, at the end of a torn line
_LAST_WORD = re.compile(rb"[A-Za-z0-9_\-+/=.:~]+\Z")


def redact_line(redactor: Redactor, raw: bytes) -> bytes:
    if raw.endswith(b"\r"):
        return redactor.line(raw[:-1]) + b"\r"
    return redactor.line(raw)


def redacted_name_of_path(path: str) -> str:
    """``path`` with a secret in any of its parts masked as a file name is (``REDACTED-<kind>-<sha8>``)."""
    return "/".join(redacted_name(part) if part else part for part in path.split("/"))


def columns(line: bytes) -> tuple[str | None, bytes | None, str | None]:
    """(text, raw bytes, jsonb text) of one stored line: its text when it
    is UTF-8 without NUL, else its bytes; its record where it parses as JSON
    that jsonb accepts (no ``\\u0000``: jsonb refuses it)."""
    if b"\x00" in line:
        return None, line, None
    try:
        text = line.decode()
    except UnicodeDecodeError:
        return None, line, None
    if len(line) > JSONB_MAX or b"\\u0000" in line or not line.lstrip(b" \t").startswith((b"{", b"[")):
        return text, None, None
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return text, None, None
    return text, None, text


def chunks(fd: int, start: int, size: int) -> Iterator[tuple[bytes, bool]]:
    """The file's bytes from ``start`` to ``size`` in pieces of whole lines
    (about BATCH bytes; a longer line whole), the last piece with what
    follows the last newline; each with whether it is the last."""
    pos = start
    carry = b""
    while pos < size or carry:
        data = os.pread(fd, min(BATCH, size - pos), pos) if pos < size else b""
        pos += len(data)
        if not data and pos < size:  # (the file shrank while read: what was read is all there is)
            size = pos
        buf = carry + data
        if pos >= size:
            yield buf, True
            return
        cut = buf.rfind(b"\n")
        if cut < 0:
            carry = buf  # a line longer than a batch: read on
            continue
        carry = buf[cut + 1 :]
        yield buf[: cut + 1], False
    yield b"", True  # (nothing new: the row still says so)


def signed(value: int) -> int:
    """An unsigned 64-bit number (a device, an inode) as PostgreSQL's bigint holds it."""
    return value - (1 << 64) if value >= _SIGNED else value


def redacted_lines(complete: bytes, raws: list[bytes]) -> list[bytes]:
    """The lines ``raws`` (``complete``: them joined) with their secrets masked, one for one."""
    redactor = Redactor()
    lines = redactor.jsonl(complete + b"\n").split(b"\n")[:-1]
    if len(lines) == len(raws):
        return lines
    return [redact_line(redactor, raw) for raw in raws]  # (never: a mark holds no newline)


def redacted_tail(tail: bytes) -> bytes:
    """An unterminated last line masked: whole if it is a whole record, else
    cut before its last word (a secret cut in two is not recognised)."""
    line = redact_line(Redactor(), tail)
    try:
        orjson.loads(line)
        return line  # a whole record, only its newline missing
    except orjson.JSONDecodeError:
        return _LAST_WORD.sub(b"", line)
