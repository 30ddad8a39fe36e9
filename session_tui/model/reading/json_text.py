"""JSON text of a value read from a session, at any depth a session can hold.

Reading takes values nested up to 1024 levels (orjson's limit); orjson writes
at most 254. What orjson refuses is written here level by level, without
recursion, exactly as orjson would have written it; a string holding a lone
surrogate (valid JSON, see ``records.loads``) is written with that surrogate
as its ``\\uXXXX`` escape, as it was read.
"""

from __future__ import annotations

import json
import re

import orjson

_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(value: object, *, indent: bool = False) -> str:
    """``value`` as JSON text, compact or (``indent``) indented by 2 as orjson writes it."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else None).decode()
    except orjson.JSONEncodeError:
        return _deep(value, indent)


def _deep(value: object, indent: bool) -> str:
    out: list[str] = []
    # values to write (with their depth) and text to copy, next last
    todo: list[str | tuple[object, int]] = [(value, 0)]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        value, depth = item
        if not isinstance(value, (dict, list)) or not value:
            out.append(_scalar(value))
            continue
        is_dict = isinstance(value, dict)
        pad, colon = ("\n" + "  " * (depth + 1), ": ") if indent else ("", ":")
        parts: list[str | tuple[object, int]] = []
        pairs = value.items() if isinstance(value, dict) else enumerate(value)
        for n, (key, child) in enumerate(pairs):
            parts.append(("," if n else "") + pad + (_scalar(key) + colon if is_dict else ""))
            parts.append((child, depth + 1))
        out.append("{" if is_dict else "[")
        todo.append(("\n" + "  " * depth if indent else "") + ("}" if is_dict else "]"))
        todo.extend(reversed(parts))
    return "".join(out)


def _scalar(value: object) -> str:
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        if not isinstance(value, str):
            raise
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))
