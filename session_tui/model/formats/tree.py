"""`tree`: session-tui's native format (docs/formats.md#tree).

A header line, then an append-only log of ``message`` and ``summary``
entries linked by ``id``/``parentId``, and ``active_leaf`` pointer records.
A record of a type this reader does not know that carries an ``id`` (a newer
writer's ``model_change``, ``label``, ``bookmark``) is a node too (docs/formats.md#tree-file): an
entry the model never sees, transparent on a path, a quiet row.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..entries.tokens import int_or_none
from ..entries.tree import path_of_runs
from ..entries.view import EntryView
from ..errors import STOP_EVERY, check_stop
from ..reading import json_text
from ..reading.records import JSONDecodeError, fast_loads, loads, name_of
from ..reading.segment import LineKind, Segment, Shape
from .base import CONTINUED, Compacted, Format, Session, not_an_object, path_up, unparsable
from .openai_messages import OpenAIMessages, message_view, shape_of
from .tree_tally import tally_entry, tally_usage

SUMMARY_ROLE = "user"
_SUMMARY = Shape.SUMMARY
_OTHER = Shape.OTHER
_CALLS = Shape.CALLS
_RESULT = Shape.RESULT
_QUIET = Shape.QUIET
_UNKNOWN_NODE = Shape.OTHER | Shape.QUIET  # a record of an unknown type with an id
_ENTRY_KIND = bytes([LineKind.ENTRY])


@dataclass
class _KeptPlan:
    """The path to a leaf and its SummaryPlan, for (leaf, entry count) ``key``."""

    key: tuple[int, int] | None = None
    path: Sequence[int] = field(default_factory=list)
    plan: SummaryPlan | None = None


class TreeFormat(OpenAIMessages, Format):
    name = "tree"
    parent_key = "parentId"

    def compaction(self, session: Session, entry: int, record: dict[str, Any]) -> Compacted | None:
        """A ``summary``: its span ``fromId``..``toId`` on the path (without
        them, the whole path before it)."""
        if record.get("type") != "summary":
            return None
        summary = str(record.get("summary") or "")
        path = list(path_up(session, entry))[::-1][:-1]  # before the summary
        first, last = record.get("fromId"), record.get("toId")
        if first is None and last is None:
            return Compacted(summary, path)
        start, stop = session.find(str(first)), session.find(str(last))
        if start is None or start not in path:
            return Compacted(summary, [], CONTINUED)
        end = path.index(stop) if stop in path else len(path) - 1
        return Compacted(summary, path[path.index(start) : end + 1])

    def sniff(self, objs: list[dict[str, Any]], path: str | None = None) -> bool:
        first = objs[0]
        kind = first.get("type")
        if kind == "session":
            # pi's header has `timestamp`; ours has `createdAt`.
            return "createdAt" in first and "timestamp" not in first
        return kind in ("message", "summary", "active_leaf") and "createdAt" in first

    def scan_lines(self, pieces: list[bytes], first_line: int, seg: Segment) -> None:
        # Format.scan_lines with classify() inlined for messages, and every
        # line presumed an entry until shown otherwise: this loop runs once
        # per line of the file.
        kinds = bytearray(_ENTRY_KIND) * len(pieces)
        add_line, add_id, add_shape = seg.entry_lines.append, seg.ids.append, seg.shapes.append
        far = seg.far
        of_role: dict[Any, int] = Shape.OF_ROLE  # keys looked up with any JSON value
        last_id = seg.last_id
        tally = seg.tally  # tokens and the first and last time, so totals need no record read again
        first, last = tally.first, tally.last
        for line, raw in enumerate(pieces, first_line):
            try:
                obj = fast_loads(raw)
            except JSONDecodeError:
                try:
                    obj = loads(raw)  # (its lone-surrogate reading)
                except JSONDecodeError as exc:
                    kinds[line - first_line] = unparsable(raw, exc, line, seg)
                    continue
            if obj.__class__ is not dict:
                kinds[line - first_line] = not_an_object(obj, line, seg)
            elif obj.get("type") == "message" and (eid := obj.get("id")).__class__ is str and eid:
                message = obj.get("message")
                if message.__class__ is dict:
                    shape = of_role.get(name_of(message.get("role")), _OTHER)
                    if message.get("tool_calls"):
                        shape |= _CALLS
                    if (usage := message.get("usage")).__class__ is dict:
                        tally_usage(tally, message, usage, len(seg.shapes))
                else:
                    shape = 0
                when = obj.get("createdAt")
                if when.__class__ is str and when[-1:] == "Z":
                    if first is None or when < first:
                        first = when
                    if last is None or when > last:
                        last = when
                elif when is not None:
                    tally.exact = False
                pid = obj.get("parentId")
                if pid is None or pid != last_id:
                    far.append((len(seg.shapes), pid if pid.__class__ is str else None))
                add_line(line)
                add_id(eid)
                add_shape(shape)
                last_id = eid
            else:
                seg.last_id = last_id
                tally.first, tally.last = first, last
                kinds[line - first_line] = self.classify(obj, line, seg)
                first, last = tally.first, tally.last
                last_id = seg.last_id
        seg.last_id = last_id
        tally.first, tally.last = first, last
        seg.line_kinds.frombytes(kinds)

    tallies_usage = True
    tallies_responses = True

    def classify(self, obj: dict[str, Any], line: int, seg: Segment) -> int:
        kind = obj.get("type")
        if kind == "message" or kind == "summary":
            eid = obj.get("id")
            if eid.__class__ is not str or not eid:
                seg.bad.append((line, f"{kind} record without an id"))
                return LineKind.BAD
            pid = obj.get("parentId")
            shape = shape_of(obj.get("message")) if kind == "message" else _SUMMARY
            seg.add_entry(line, eid, pid if pid.__class__ is str else None, shape)
            tally_entry(seg.tally, obj, len(seg.shapes) - 1 if kind == "message" else None)
            return LineKind.ENTRY
        if kind == "active_leaf":
            seg.pointers.append((line, obj.get("activeLeafId")))
            return LineKind.POINTER
        if kind == "session":
            if seg.header is None:
                seg.header = obj
            return LineKind.HEADER
        eid = obj.get("id")
        if eid.__class__ is str and eid:  # a newer writer's node: later entries may name it as their parent
            pid = obj.get("parentId")
            seg.add_entry(line, eid, pid if pid.__class__ is str else None, _UNKNOWN_NODE)
            tally_entry(seg.tally, obj)
            return LineKind.ENTRY
        return LineKind.UNKNOWN

    def entry_id(self, record: dict[str, Any]) -> str | None:
        return record.get("id")

    def active_leaf(self, session: Session) -> int:
        """The later in file order of the last ``message`` or ``summary``
        entry and the last pointer whose target exists (docs/formats.md#tree-active-leaf); a node of an
        unknown type after them is no leaf."""
        tree = session.tree
        last = tree.count - 1
        while last >= 0 and tree.shape[last] & _QUIET:
            last -= 1
        if last < 0:
            return tree.count - 1
        last_line = tree.entry_line[last]
        for line, target in reversed(session.pointers):
            if line < last_line:
                break
            found = session.find(target) if isinstance(target, str) else None
            if found is not None:
                return found
        return last

    def context(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
    ) -> list[tuple[int, dict[str, Any]]]:
        return build_context(session, leaf, should_stop)[0]

    def context_and_notes(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
    ) -> tuple[list[tuple[int, dict[str, Any]]], list[tuple[int, str]]]:
        return build_context(session, leaf, should_stop)

    def tool_stream(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
    ) -> Iterator[tuple[int, dict[str, Any]]]:
        path, plan = self._plan(session, leaf)
        return pairing_walk(session, path, plan, should_stop)

    def context_notes(self, session: Session, leaf: int) -> list[tuple[int, str]]:
        return self._plan(session, leaf)[1].notes

    @staticmethod
    def _plan(session: Session, leaf: int) -> tuple[Sequence[int], SummaryPlan]:
        """The path to ``leaf`` and its SummaryPlan, kept until the file grows (a check asks twice)."""
        kept = session.memo.of(_KeptPlan)
        if kept.plan is None or kept.key != (leaf, session.tree.count):
            tree = session.tree
            runs = tree.path_runs(leaf)
            kept.path = path_of_runs(runs)
            kept.plan = SummaryPlan(session, kept.path, runs)
            kept.key = (leaf, tree.count)
        return kept.path, kept.plan

    def context_tail(self, session: Session, entries: list[int]) -> list[tuple[int, dict[str, Any]]] | None:
        if any(session.tree.shape[entry] & _SUMMARY for entry in entries):
            return None  # a summary replaces a range before it
        out: list[tuple[int, dict[str, Any]]] = []
        for entry in entries:
            if not session.tree.shape[entry] & _QUIET:
                add_message(session, entry, out)
        return out

    def origin(self, session: Session) -> str | None:
        parent = (session.header or {}).get("parentSession")
        if not isinstance(parent, dict):
            return None
        where = parent.get("path") or parent.get("id")
        return f"{where} at entry {parent.get('entryId')}" if where else None

    def view(self, record: dict[str, Any]) -> EntryView:
        fields: dict[str, Any] = {
            "id": record.get("id"),
            "parent_id": record.get("parentId"),
            "time": record.get("createdAt"),
        }
        kind = record.get("type")
        if kind not in ("message", "summary"):  # a node of a type this reader does not know
            rest = {k: v for k, v in record.items() if k not in ("type", "id", "parentId", "createdAt")}
            return EntryView(
                kind="unknown",
                role=str(kind),
                text=f"{kind} (never sent to the model) " + json_text.dumps(rest),
                **fields,
            )
        if kind == "summary":
            text = record.get("summary")
            return EntryView(
                kind="summary",
                role="summary",
                text=text if isinstance(text, str) else "",
                tokens_before=int_or_none(record.get("tokensBefore")),
                tokens_after=int_or_none(record.get("tokensAfter")),
                **fields,
            )
        message = record.get("message")
        return message_view(message if isinstance(message, dict) else {}, **fields)


def build_context(
    session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
) -> tuple[list[tuple[int, dict[str, Any]]], list[tuple[int, str]]]:
    """Messages for ``leaf`` with summaries applied (docs/formats.md#tree-context), and notes about
    summaries that could not be applied (0-based line, text)."""
    runs = session.tree.path_runs(leaf)
    path = path_of_runs(runs)
    plan = SummaryPlan(session, path, runs)
    return list(walk_context(session, path, plan, should_stop)), plan.notes


class SummaryPlan:
    """Which entries of ``path`` the summaries on it replace (only the
    summary records are read): ``shapes`` and ``hidden`` per position, the summaries that
    ``starts`` at a position, their ``texts``, and ``notes`` on the ones that
    could not be applied."""

    def __init__(self, session: Session, path: Sequence[int], runs: list[tuple[int, int]]) -> None:
        tree = session.tree
        self.shapes = b"".join(tree.shape[start : end + 1].tobytes() for start, end in runs)  # per position
        summaries = [m.start() for m in _ONE.finditer(self.shapes.translate(_IS_SUMMARY))]
        self.notes: list[tuple[int, str]] = []
        self.texts: dict[int, str] = {}
        ranges: dict[int, tuple[int, int]] = {}
        if summaries:
            records = {k: session.record(path[k]) for k in summaries}
            bounds = {
                k: tuple(
                    session.find(v) if isinstance(v, str) else None
                    for v in (records[k].get("fromId"), records[k].get("toId"))
                )
                for k in summaries
            }
            wanted = {e for pair in bounds.values() for e in pair if e is not None}
            position = _positions(runs, wanted)
            for k in summaries:
                record = records[k]
                text = record.get("summary")
                self.texts[k] = text if isinstance(text, str) else ""
                if record.get("fromId") is None and record.get("toId") is None:
                    ranges[k] = (0, k - 1)
                    continue
                a, b = (position.get(e) if e is not None else None for e in bounds[k])
                if a is None or b is None or a > b or b >= k:
                    self.notes.append(
                        (
                            tree.entry_line[path[k]],
                            "summary range fromId..toId is not on the path before it; not applied",
                        )
                    )
                    continue
                ranges[k] = (a, b)
        # A summary inside a later summary's range disappears with that range.
        live: list[tuple[int, int, int]] = []
        for k in reversed(summaries):
            if k in ranges and not any(a <= k <= b for _, a, b in live):
                live.append((k, *ranges[k]))
        self.live = live
        self.hidden = bytearray(len(path))
        self.starts: dict[int, list[int]] = {}
        for k, a, b in live:
            self.hidden[a : b + 1] = b"\x01" * (b + 1 - a)
            self.starts.setdefault(max(a, 0) if b >= a else k, []).append(k)


_PLAIN: dict[str, Any] = {}  # a message that neither calls nor answers a tool (for pairing, unread)
_ONE = re.compile(b"\x01")
_IS_SUMMARY = bytes(int(bool(b & _SUMMARY)) for b in range(256))
# what an entry is to tool pairing, by shape: 0 nothing sent (a summary, no message, a node of an unknown type),
# 1 a plain message, 2 a tool's
_PAIRING_KIND = bytes(0 if not b or b & (_SUMMARY | _QUIET) else 2 if b & (_CALLS | _RESULT) else 1 for b in range(256))
_PAIRING_RUNS = re.compile(b"\x01+|\x02")


def _positions(runs: list[tuple[int, int]], wanted: set[int]) -> dict[int, int]:
    """Where each of ``wanted`` is on a path given as runs of consecutive
    entries (first, last), root first: for those on it."""
    offsets, at = [], 0
    for first, last in runs:
        offsets.append(at)
        at += last - first + 1
    order = sorted(range(len(runs)), key=lambda r: runs[r][0])  # the runs are disjoint: sorted by their first entry
    firsts = [runs[r][0] for r in order]
    found: dict[int, int] = {}
    for entry in wanted:
        k = bisect_right(firsts, entry) - 1
        if k >= 0:
            first, last = runs[order[k]]
            if entry <= last:
                found[entry] = offsets[order[k]] + entry - first
    return found


def pairing_walk(
    session: Session,
    path: Sequence[int],
    plan: SummaryPlan,
    should_stop: Callable[[], bool] | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(entry, message) enough to pair tool calls along ``path``: the records
    that call or answer a tool, read; each run of plain messages between
    them as one ``_PLAIN`` (a plain message closes the calls before it; a
    second one changes nothing), summaries as they start. Scans the shape
    bytes in C, so the Python work is per tool record, not per entry."""
    kinds = bytearray(plan.shapes.translate(_PAIRING_KIND))
    for _summary, a, b in plan.live:
        kinds[a : b + 1] = bytes(b + 1 - a)
    starts = sorted(plan.starts.items())
    next_start = 0
    out: list[tuple[int, dict[str, Any]]] = []
    for n, match in enumerate(_PAIRING_RUNS.finditer(kinds)):
        if not n % 1024:
            check_stop(should_stop, 0)
        at = match.start()
        while next_start < len(starts) and starts[next_start][0] <= at:
            for s in sorted(starts[next_start][1]):
                yield path[s], {"role": SUMMARY_ROLE, "content": plan.texts[s]}
            next_start += 1
        if match.end() - at == 1 and kinds[at] == 2:
            add_message(session, path[at], out)
            yield from out
            out.clear()
        else:
            yield path[at], _PLAIN
    for _, summaries in starts[next_start:]:
        for s in sorted(summaries):
            yield path[s], {"role": SUMMARY_ROLE, "content": plan.texts[s]}


def walk_context(
    session: Session, path: Sequence[int], plan: SummaryPlan, should_stop: Callable[[], bool] | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(entry, message) of the context along ``path``, summaries applied."""
    shapes = session.tree.shape
    hidden, starts, texts = plan.hidden, plan.starts, plan.texts
    out: list[tuple[int, dict[str, Any]]] = []
    for k, entry in enumerate(path):
        if not k % STOP_EVERY:
            check_stop(should_stop, k)
        if k in starts:
            for s in sorted(starts[k]):
                yield path[s], {"role": SUMMARY_ROLE, "content": texts[s]}
        shape = shapes[entry]
        if hidden[k] or shape & (_SUMMARY | _QUIET):
            continue
        add_message(session, entry, out)
        yield from out
        out.clear()


def add_message(session: Session, entry: int, out: list[tuple[int, dict[str, Any]]]) -> None:
    """The message of ``entry`` (without its usage) added to ``out``, if it has one."""
    message = session.record(entry).get("message")
    if isinstance(message, dict):
        out.append((entry, {key: value for key, value in message.items() if key != "usage"}))


FORMAT = TreeFormat()
