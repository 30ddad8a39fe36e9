"""Secrets replaced by their marks: in a string, a record, a JSONL file.

Each secret becomes ``[REDACTED:<kind>:<first 8 hex of its sha256>]`` (the
same secret, the same mark) inside the decoded string values; keys and the
structure stay as they were, and a line is written again (compact JSON)
only when something in it was replaced: every other line keeps its bytes.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from typing import Any

import orjson

from ..reading import json_text
from ..reading.records import loads as json_loads
from .secrets import Secret, candidate_lines, find_in_strings, find_secrets, has_candidate, mark


class Redactor:
    """Replaces secrets and counts them (``count``, ``kinds``)."""

    def __init__(self) -> None:
        self.count = 0
        self.kinds: Counter[str] = Counter()

    def text(self, text: str, name: str | None = None) -> str:
        """``text`` with its secrets replaced (``name``: the field holding it)."""
        return self._replaced(text, find_secrets(text, name))

    def _replaced(self, text: str, found: list[Secret]) -> str:
        if not found:
            return text
        out, at = [], 0
        for secret in found:
            out += [text[at : secret.start], mark(secret.kind, secret.value)]
            at = secret.end
            self.kinds[secret.kind] += 1
        self.count += len(found)
        out.append(text[at:])
        return "".join(out)

    def value(self, value: Any) -> Any:
        """A JSON value with the secrets in its strings replaced; the value
        given is never changed (a copy is, when there is something to replace)."""
        if isinstance(value, str):
            return self.text(value)
        if not isinstance(value, (dict, list)):
            return value
        encoded = json_text.dumps(value).encode()
        if not has_candidate(encoded):
            return value
        copy = json_loads(encoded)
        self._in_place(copy)
        return copy

    def _in_place(self, root: dict[str, Any] | list[Any]) -> list[tuple[str, str]]:
        """Replace the secrets in ``root``'s strings (and keys); return each
        changed string, (before, after)."""
        slots: list[tuple[Any, Any, bool]] = []  # (container, key or index, the key itself) of each string
        items: list[tuple[str | None, str]] = []  # (field name, string)
        todo: list[dict[str, Any] | list[Any]] = [root]  # no recursion: any depth a session holds
        while todo:
            node = todo.pop()
            pairs = node.items() if isinstance(node, dict) else enumerate(node)
            for key, child in pairs:
                if isinstance(key, str):  # a key can be a secret too (a map of tokens)
                    slots.append((node, key, True))
                    items.append((None, key))
                if isinstance(child, str):
                    slots.append((node, key, False))
                    items.append((key if isinstance(key, str) else None, child))
                elif isinstance(child, (dict, list)):
                    todo.append(child)
        renamed: dict[int, tuple[dict[str, Any], dict[str, str]]] = {}
        changes: list[tuple[str, str]] = []
        for (node, key, is_key), (_, text), found in zip(slots, items, find_in_strings(items), strict=True):
            if not found:
                continue
            changes.append((text, self._replaced(text, found)))
            if is_key:
                renamed.setdefault(id(node), (node, {}))[1][key] = changes[-1][1]
            else:
                node[key] = changes[-1][1]
        for node, names in renamed.values():  # keys renamed in place, their order kept
            items_now = list(node.items())
            node.clear()
            node.update((names.get(k, k), v) for k, v in items_now)
        return changes

    def line(self, raw: bytes, candidate: bool = False) -> bytes:
        """One JSONL line (no newline) with its secrets replaced; unchanged
        bytes when there is nothing to replace. A line that is not JSON has
        them replaced in its text. ``candidate``: the prefilter found
        something in it already."""
        if not candidate and not has_candidate(raw):
            return raw
        before = self.count
        try:
            record = json_loads(raw)
        except orjson.JSONDecodeError:
            text = raw.decode("utf-8", "surrogateescape")
            redacted = self.text(text)
            return raw if redacted is text else redacted.encode("utf-8", "surrogateescape")
        if isinstance(record, str):
            record = self.text(record)
            changes = [(json_loads(raw), record)]
        elif isinstance(record, (dict, list)):
            changes = self._in_place(record)
        else:
            changes = []
        if self.count == before:
            return raw
        return _in_raw(raw, changes) or json_text.dumps(record).encode()

    def jsonl(self, data: bytes) -> bytes:
        """A JSONL file's bytes with the secrets of each line replaced; line
        ends kept; only the lines that may hold one are decoded."""
        out, at = [], 0
        for start, end in candidate_lines(data):
            stop = end - 1 if end > start and data[end - 1 : end] == b"\r" else end
            out += [data[at:start], self.line(data[start:stop], candidate=True)]
            at = stop
        out.append(data[at:])
        return b"".join(out)

    def file(self, path: str, data: bytes) -> bytes:
        """A session file's bytes (JSONL), or a sidecar's (one JSON document)."""
        return self.document(data) if path.endswith(".json") else self.jsonl(data)

    def document(self, data: bytes) -> bytes:
        """One JSON document (a sidecar) with its secrets replaced, written
        as it was (indented or not) when it changes; not JSON: as text."""
        if not has_candidate(data):
            return data
        try:
            value = json_loads(data)
        except orjson.JSONDecodeError:
            return self.line(data)
        before = self.count
        value = self.value(value)
        if self.count == before:
            return data
        return (json_text.dumps(value, indent=b"\n " in data) + ("\n" if data.endswith(b"\n") else "")).encode()


def _in_raw(raw: bytes, changes: list[tuple[str, str]]) -> bytes | None:
    """``raw`` with each changed string replaced where it is written, every
    other byte kept (numbers beyond 64 bits, repeated keys, spacing); None
    when a string is written otherwise than orjson writes it (``\\/``, ``\\u``
    escapes): then the record is written again."""
    for before, after in changes:
        written = json_text.dumps(before).encode()
        if written not in raw:
            return None
        raw = raw.replace(written, json_text.dumps(after).encode())
    return raw


def redacted_name(path: str) -> str:
    """``path`` with each secret in its file name replaced by a mark fit for
    a file name (``REDACTED-<kind>-<sha8>``): what ``--redact`` names a file it writes."""
    directory, name = os.path.split(path)
    masked = Redactor().text(name)
    return path if masked == name else os.path.join(directory, _MARK_IN_NAME.sub(r"REDACTED-\1-\2", masked))


_MARK_IN_NAME = re.compile(r"\[REDACTED:([a-z0-9-]+):([0-9a-f]{8})\]")


def masked_text(text: str) -> str:
    """``text`` with each secret replaced by its mark: the ``Mask`` that
    ``--redact`` hands down to whatever shows or cuts session text."""
    return Redactor().text(text)


def masked_printed(text: str) -> str:
    """``text`` with each secret replaced by its mark, as the one writer of
    the command line masks what it prints (``inert_output``): the text may
    be inert already, so a secret split by an invisible character shown as
    its placeholder (``<200B>``), or written over lines shown as ``␊``, is
    read as it reads and masked where it is written."""
    shown = list(_SHOWN_HIDING.finditer(text))
    if not shown:
        return masked_text(text)
    plain: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    at = 0
    for found in [*shown, None]:
        stop = len(text) if found is None else found.start()
        plain += text[at:stop]
        starts += range(at, stop)
        ends += range(at + 1, stop + 1)
        if found is not None:
            plain.append("\n" if found.group() == "\u240a" else chr(int(found.group()[1:-1], 16)))
            starts.append(found.start())
            ends.append(found.end())
            at = found.end()
    out, at = [], 0
    for secret in find_secrets("".join(plain)):
        if secret.end > secret.start:
            out += [text[at : starts[secret.start]], mark(secret.kind, secret.value)]
            at = ends[secret.end - 1]
    out.append(text[at:])
    return "".join(out)


# the placeholders ``inert`` shows for the characters that hide a secret's (``secrets._INVISIBLE_CHARS``), and ␊
_SHOWN_HIDING = re.compile("<(?:AD|061C|180E|200[B-F]|202[A-E]|206[0-46-9]|FEFF)>|\u240a")
