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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import check_stop
from .totals import responses_of

if TYPE_CHECKING:  # pragma: no cover
    from ..session.session import Session

PATH_KEYS = ("file_path", "path", "notebook_path")
COMMAND_KEYS = ("command", "cmd")


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
    found: list[Compaction] = []
    responses = sorted(responses_of(session, should_stop), key=lambda r: r.entry)
    for entry in range(session.tree.count) if entries is None else sorted(entries):
        check_stop(should_stop, entry)
        record = session.record(entry)
        compacted = session.format.compaction(session, entry, record)
        if compacted is None:
            continue
        item = Compaction(entry, compacted.summary, None, None, compacted.span, compacted.note)
        item.tokens_before = session.format.view(record).tokens_before
        after = next((r for r in responses if r.entry > entry), None)
        item.tokens_after = after.context if after is not None else None
        item.dropped_paths, item.dropped_commands = _dropped(session, item)
        found.append(item)
    return found


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
