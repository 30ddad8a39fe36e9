"""The compaction inspector: for each compaction, the span of the history it
summarised, the tokens before and after it, and what the summary dropped:
the file paths and commands used in that span whose exact text does not
occur in the summary.

The span: Claude Code, the path that ends at the boundary's
``logicalParentUuid``, back to the previous boundary; pi, the path entries
before ``firstKeptEntryId`` back to the previous compaction's
``firstKeptEntryId``; the tree format, ``fromId``..``toId`` on the path (the
whole path before it without them). A span whose start is not in the file
(a continued session) is empty and says so."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import check_stop
from .totals import responses_of

if TYPE_CHECKING:  # pragma: no cover
    from ..session.session import Session

PATH_KEYS = ("file_path", "path", "notebook_path")
COMMAND_KEYS = ("command", "cmd")
CONTINUED = "its start is not in this file (a continued session)"


@dataclass(frozen=True)
class Used:
    text: str
    entry: int  # the entry whose tool call used it

    def as_json(self, session: Session) -> dict[str, Any]:
        return {"text": self.text, "line": session.line_of(self.entry), "entry": _entry_id(session, self.entry)}


@dataclass
class Compaction:
    entry: int
    summary: str
    tokens_before: int | None
    tokens_after: int | None
    span: list[int] = field(default_factory=list)  # the entries it summarised, root side first
    note: str = ""  # why the span is empty
    dropped_paths: list[Used] = field(default_factory=list)
    dropped_commands: list[Used] = field(default_factory=list)

    def as_json(self, session: Session) -> dict[str, Any]:
        data: dict[str, Any] = {
            "line": session.line_of(self.entry),
            "entry": _entry_id(session, self.entry),
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "span": {
                "first_line": session.line_of(self.span[0]) if self.span else None,
                "last_line": session.line_of(self.span[-1]) if self.span else None,
                "entries": len(self.span),
            },
            "dropped": {
                "paths": [u.as_json(session) for u in self.dropped_paths],
                "commands": [u.as_json(session) for u in self.dropped_commands],
            },
        }
        if self.note:
            data["span"]["note"] = self.note
        return data


def _entry_id(session: Session, entry: int) -> str:
    return session.format.entry_id(session.record(entry)) or f"L{session.line_of(entry)}"


def compactions(
    session: Session, should_stop: Callable[[], bool] | None = None, entries: Iterable[int] | None = None
) -> list[Compaction]:
    """Every compaction of the file, in file order (of ``entries`` only, where given)."""
    name = session.format.name
    found: list[Compaction] = []
    responses = sorted(responses_of(session, should_stop), key=lambda r: r.entry)
    for entry in range(session.tree.count) if entries is None else sorted(entries):
        check_stop(should_stop, entry)
        record = session.record(entry)
        kind = record.get("type")
        if name == "claude" and kind == "system" and record.get("subtype") == "compact_boundary":
            item = _claude(session, entry)
        elif name == "pi" and kind == "compaction":
            item = _pi(session, entry, record)
        elif name == "tree" and kind == "summary":
            item = _tree(session, entry, record)
        else:
            continue
        item.tokens_before = session.format.view(record).tokens_before
        after = next((r for r in responses if r.entry > entry), None)
        item.tokens_after = after.context if after is not None else None
        item.dropped_paths, item.dropped_commands = _dropped(session, item)
        found.append(item)
    return found


def _path_up(session: Session, start: int) -> Iterator[int]:
    node = start
    while node >= 0:
        yield node
        node = session.tree.parent[node]


def _claude(session: Session, entry: int) -> Compaction:
    children = [c for c in session.tree.children(entry)]
    summary = "\n".join(session.format.view(session.record(c)).text for c in children[:1])
    item = Compaction(entry, summary, None, None)
    parent = session.tree.parent[entry]
    if parent < 0:
        item.note = CONTINUED
        return item
    span: list[int] = []
    for node in _path_up(session, parent):
        record = session.record(node)
        if record.get("type") == "system" and record.get("subtype") == "compact_boundary":
            break  # the previous boundary: the span starts after it
        span.append(node)
    item.span = span[::-1]
    return item


def _pi(session: Session, entry: int, record: dict[str, Any]) -> Compaction:
    item = Compaction(entry, str(record.get("summary") or ""), None, None)
    path = list(_path_up(session, entry))[::-1]  # root side first, the compaction last
    kept = session.find(str(record.get("firstKeptEntryId") or ""))
    if kept is None or kept not in path:
        item.note = CONTINUED
        return item
    start = 0
    for k, node in enumerate(path[: path.index(kept)]):
        earlier = session.record(node)
        if earlier.get("type") == "compaction" and node != entry:
            before = session.find(str(earlier.get("firstKeptEntryId") or ""))
            start = path.index(before) if before in path else k + 1
    item.span = [n for n in path[start : path.index(kept)] if session.record(n).get("type") != "compaction"]
    return item


def _tree(session: Session, entry: int, record: dict[str, Any]) -> Compaction:
    item = Compaction(entry, str(record.get("summary") or ""), None, None)
    path = list(_path_up(session, entry))[::-1][:-1]  # before the summary
    first, last = record.get("fromId"), record.get("toId")
    if first is None and last is None:
        item.span = path
        return item
    start, stop = session.find(str(first)), session.find(str(last))
    if start is None or start not in path:
        item.note = CONTINUED
        return item
    end = path.index(stop) if stop in path else len(path) - 1
    item.span = path[path.index(start) : end + 1]
    return item


def _dropped(session: Session, item: Compaction) -> tuple[list[Used], list[Used]]:
    paths: dict[str, Used] = {}
    commands: dict[str, Used] = {}
    for entry in item.span:
        for call in session.format.view(session.record(entry)).tool_calls:
            arguments = _arguments(call.arguments)
            for key, value in arguments.items():
                text = _text(value)
                if not text or text in item.summary:
                    continue
                if key in PATH_KEYS:
                    paths.setdefault(text, Used(text, entry))
                elif key in COMMAND_KEYS:
                    commands.setdefault(text, Used(text, entry))
    return list(paths.values()), list(commands.values())


def _arguments(raw: str) -> dict[str, Any]:
    try:
        found = json.loads(raw)
    except (ValueError, TypeError):
        return {}
    return found if isinstance(found, dict) else {}


def _text(value: object) -> str:
    """A path or command as its client would type it: a string as it is, an
    argv list (Codex's ``["bash", "-lc", "…"]``) by its script."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        if len(value) == 3 and value[1] in ("-lc", "-c"):
            return str(value[2]).strip()
        return " ".join(value)
    return ""
