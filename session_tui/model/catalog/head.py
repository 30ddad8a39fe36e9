"""The newest remembered rows of the folders a picker last showed: its first
frame, without the whole cache.

The catalog's cache of 10,000 files is 23 ms to parse, 22 ms to check into
rows and 16 ms to sort, all before the picker's first frame could be drawn.
Beside it (``catalog-head.json``) are kept, for each of the last few sets of
folders the picker was opened on, their HEAD_ROWS newest rows in the cache's
own form and how many files the cache holds under them: the first frame
shows those, and the whole cache is read after it. The file is written with
the cache (same folder, same atomic write) and read with the same checks
(its rows are untrusted until each has its shape).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import orjson

from ..cache_dir import write_cache_file
from ..reading import json_text
from ..reading.own_writes import one_look
from ..reading.records import loads as json_loads
from .session_info import SessionInfo

HEAD_ROWS = 200  # more than a screen of rows: the first page is in order
HEADS_KEPT = 8  # sets of folders remembered
HEAD_VERSION = 1


def head_path(cache_path: str) -> str:
    stem, ext = os.path.splitext(cache_path)
    return f"{stem}-head{ext}"


def _heads(cache_path: str) -> list[object]:
    try:
        with open(head_path(cache_path), "rb") as f:
            return _parsed(f.read())
    except OSError:
        return []


def _parsed(data: bytes) -> list[object]:
    try:
        document = json_loads(data)
    except orjson.JSONDecodeError:
        return []
    if (
        not isinstance(document, dict)
        or document.get("version") != HEAD_VERSION
        or not isinstance(document.get("heads"), list)
    ):
        return []
    heads: list[object] = document["heads"]
    return heads


def read_head(
    cache_path: str, roots: Sequence[str], info_of: Callable[[str, object], SessionInfo | None]
) -> tuple[list[SessionInfo], int] | None:
    """The newest rows remembered under exactly ``roots`` and how many files
    the cache holds there; None: none kept for them (or a row that is not
    well-formed: the whole cache is read instead)."""
    return _found(_heads(cache_path), roots, info_of)


def head_of(
    data: bytes, roots: Sequence[str], info_of: Callable[[str, object], SessionInfo | None]
) -> tuple[list[SessionInfo], int] | None:
    """``read_head`` of a head document's bytes (``head_document``: a child's walk, ``first_rows.py``)."""
    return _found(_parsed(data), roots, info_of)


def _found(
    heads: list[object], roots: Sequence[str], info_of: Callable[[str, object], SessionInfo | None]
) -> tuple[list[SessionInfo], int] | None:
    for head in heads:
        if not (isinstance(head, list) and len(head) == 3 and head[0] == list(roots)):
            continue
        _, count, rows = head
        if type(count) is not int or count < 0 or not isinstance(rows, dict):
            return None
        infos = [info_of(path, row) for path, row in rows.items() if isinstance(path, str)]
        if len(infos) != len(rows) or any(info is None for info in infos):
            return None
        return [info for info in infos if info is not None], count
    return None


def write_head(
    cache_path: str, roots: Sequence[str], infos: list[SessionInfo], row_of: Callable[[SessionInfo], object]
) -> None:
    """Keep the newest HEAD_ROWS of ``infos`` (every remembered file under
    ``roots``) as the head of ``roots``, first among the heads kept."""
    others = [h for h in _heads(cache_path) if not (isinstance(h, list) and h and h[0] == list(roots))]
    data = {"version": HEAD_VERSION, "heads": [_head(roots, infos, row_of), *others[: HEADS_KEPT - 1]]}
    write_cache_file(head_path(cache_path), json_text.dumps(data).encode())


def head_document(roots: Sequence[str], infos: list[SessionInfo], row_of: Callable[[SessionInfo], object]) -> bytes:
    """The head of ``roots`` alone, as ``head_of`` reads it."""
    return json_text.dumps({"version": HEAD_VERSION, "heads": [_head(roots, infos, row_of)]}).encode()


def _head(roots: Sequence[str], infos: list[SessionInfo], row_of: Callable[[SessionInfo], object]) -> list[object]:
    with one_look():  # (each row's last activity asks session-tui's own writes: read once)
        newest = sorted(infos, key=lambda info: -info.last_activity)[:HEAD_ROWS]
    return [list(roots), len(infos), {info.path: row_of(info) for info in newest}]
