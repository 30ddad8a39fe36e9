"""`tree`: session-tui's native format (formats.md §1).

A header line, then an append-only log of ``message`` and ``summary``
entries linked by ``id``/``parentId``, and ``active_leaf`` pointer records.
"""

from __future__ import annotations

from ..entry_view import EntryView
from ..records import JSONDecodeError, loads
from ..segment import LineKind, Shape
from ..usage import usage_counts
from .base import STOP_EVERY, Format, check_stop, not_an_object, unparsable
from .openai_messages import OpenAIMessages, message_view, shape_of

SUMMARY_ROLE = "user"
_SUMMARY = Shape.SUMMARY
_OTHER = Shape.OTHER
_CALLS = Shape.CALLS
_RESULT = Shape.RESULT
_ENTRY_KIND = bytes([LineKind.ENTRY])


class TreeFormat(OpenAIMessages, Format):
    name = "tree"

    def sniff(self, objs: list[dict], path: str | None = None) -> bool:
        first = objs[0]
        kind = first.get("type")
        if kind == "session":
            # pi's header has `timestamp`; ours has `createdAt`.
            return "createdAt" in first and "timestamp" not in first
        return kind in ("message", "summary", "active_leaf") and "createdAt" in first

    def scan_lines(self, pieces: list[bytes], first_line: int, seg) -> None:
        # Format.scan_lines with classify() inlined for messages, and every
        # line presumed an entry until shown otherwise: this loop runs once
        # per line of the file.
        kinds = bytearray(_ENTRY_KIND) * len(pieces)
        add_line, add_id, add_shape = seg.entry_lines.append, seg.ids.append, seg.shapes.append
        far = seg.far
        of_role = Shape.OF_ROLE
        last_id = seg._last_id
        tally = seg.tally  # tokens and the first and last time, so totals need no record read again
        first, last = tally.first, tally.last
        for line, raw in enumerate(pieces, first_line):
            try:
                obj = loads(raw)
            except JSONDecodeError as exc:
                kinds[line - first_line] = unparsable(raw, exc, line, seg)
                continue
            if obj.__class__ is not dict:
                kinds[line - first_line] = not_an_object(obj, line, seg)
            elif obj.get("type") == "message" and (eid := obj.get("id")).__class__ is str and eid:
                message = obj.get("message")
                if message.__class__ is dict:
                    shape = of_role.get(message.get("role"), _OTHER)
                    if message.get("tool_calls"):
                        shape |= _CALLS
                    if (usage := message.get("usage")).__class__ is dict:
                        tokens_in, tokens_out = usage_counts(usage)
                        tally.input_tokens += tokens_in
                        tally.output_tokens += tokens_out
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
                seg._last_id = last_id
                tally.first, tally.last = first, last
                kinds[line - first_line] = self.classify(obj, line, seg)
                first, last = tally.first, tally.last
                last_id = seg._last_id
        seg._last_id = last_id
        tally.first, tally.last = first, last
        seg.line_kinds.frombytes(kinds)

    tallies_usage = True

    def classify(self, obj: dict, line: int, seg) -> int:
        kind = obj.get("type")
        if kind == "message" or kind == "summary":
            eid = obj.get("id")
            if eid.__class__ is not str or not eid:
                seg.bad.append((line, f"{kind} record without an id"))
                return LineKind.BAD
            pid = obj.get("parentId")
            shape = shape_of(obj.get("message")) if kind == "message" else _SUMMARY
            seg.add_entry(line, eid, pid if pid.__class__ is str else None, shape)
            tally_entry(seg.tally, obj)
            return LineKind.ENTRY
        if kind == "active_leaf":
            seg.pointers.append((line, obj.get("activeLeafId")))
            return LineKind.POINTER
        if kind == "session":
            if seg.header is None:
                seg.header = obj
            return LineKind.HEADER
        return LineKind.UNKNOWN

    def entry_id(self, record: dict) -> str | None:
        return record.get("id")

    def active_leaf(self, session) -> int:
        """The later in file order of the last entry and the last pointer
        whose target exists (§1.5)."""
        tree = session.tree
        if not tree.count:
            return -1
        last_line = tree.entry_line[tree.count - 1]
        for line, target in reversed(session.pointers):
            if line < last_line:
                break
            found = session.find(target) if isinstance(target, str) else None
            if found is not None:
                return found
        return tree.count - 1

    def context(self, session, leaf: int, should_stop=None) -> list[tuple[int, dict]]:
        return build_context(session, leaf, should_stop)[0]

    def context_and_notes(self, session, leaf: int, should_stop=None):
        return build_context(session, leaf, should_stop)

    def tool_stream(self, session, leaf: int, should_stop=None):
        path, plan = self._plan(session, leaf)
        return walk_context(session, path, plan, should_stop, read=False)

    def context_notes(self, session, leaf: int) -> list[tuple[int, str]]:
        return self._plan(session, leaf)[1].notes

    @staticmethod
    def _plan(session, leaf: int):
        """The path to ``leaf`` and its SummaryPlan, kept until the file grows (a check asks twice)."""
        kept = session.memo.get("plan")
        if kept is None or kept[:2] != (leaf, session.tree.count):
            path = session.tree.path_to(leaf)
            kept = session.memo["plan"] = (leaf, session.tree.count, path, SummaryPlan(session, path))
        return kept[2:]

    def context_tail(self, session, entries: list[int]) -> list[tuple[int, dict]] | None:
        if any(session.tree.shape[entry] & _SUMMARY for entry in entries):
            return None  # a summary replaces a range before it
        out: list[tuple[int, dict]] = []
        for entry in entries:
            add_message(session, entry, out)
        return out

    def origin(self, session) -> str | None:
        parent = (session.header or {}).get("parentSession")
        if not isinstance(parent, dict):
            return None
        where = parent.get("path") or parent.get("id")
        return f"{where} at entry {parent.get('entryId')}" if where else None

    def view(self, record: dict) -> EntryView:
        fields = {"id": record.get("id"), "parent_id": record.get("parentId"), "time": record.get("createdAt")}
        if record.get("type") == "summary":
            text = record.get("summary")
            return EntryView(kind="summary", role="summary", text=text if isinstance(text, str) else "",
                             tokens_before=_int(record.get("tokensBefore")),
                             tokens_after=_int(record.get("tokensAfter")), **fields)
        message = record.get("message")
        return message_view(message if isinstance(message, dict) else {}, **fields)


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def build_context(session, leaf: int, should_stop=None) -> tuple[list[tuple[int, dict]], list[tuple[int, str]]]:
    """Messages for ``leaf`` with summaries applied (§1.6), and notes about
    summaries that could not be applied (0-based line, text)."""
    path = session.tree.path_to(leaf)
    plan = SummaryPlan(session, path)
    return list(walk_context(session, path, plan, should_stop)), plan.notes


class SummaryPlan:
    """Which entries of ``path`` the summaries on it replace (only the
    summary records are read): ``hidden`` per position, the summaries that
    ``starts`` at a position, their ``texts``, and ``notes`` on the ones that
    could not be applied."""

    def __init__(self, session, path) -> None:
        tree = session.tree
        shapes = tree.shape
        summaries = [k for k, e in enumerate(path) if shapes[e] & _SUMMARY]
        self.notes: list[tuple[int, str]] = []
        self.texts: dict[int, str] = {}
        ranges: dict[int, tuple[int, int]] = {}
        if summaries:
            records = {k: session.record(path[k]) for k in summaries}
            bounds = {k: tuple(session.find(v) if isinstance(v, str) else None
                               for v in (records[k].get("fromId"), records[k].get("toId"))) for k in summaries}
            wanted = {e for pair in bounds.values() for e in pair if e is not None}
            position = {e: k for k, e in enumerate(path) if e in wanted}  # the range ends only: a small dict
            for k in summaries:
                record = records[k]
                text = record.get("summary")
                self.texts[k] = text if isinstance(text, str) else ""
                if record.get("fromId") is None and record.get("toId") is None:
                    ranges[k] = (0, k - 1)
                    continue
                a, b = (position.get(e) if e is not None else None for e in bounds[k])
                if a is None or b is None or a > b or b >= k:
                    self.notes.append((tree.entry_line[path[k]],
                                       "summary range fromId..toId is not on the path before it; not applied"))
                    continue
                ranges[k] = (a, b)
        # A summary inside a later summary's range disappears with that range.
        live: list[tuple[int, int, int]] = []
        for k in reversed(summaries):
            if k in ranges and not any(a <= k <= b for _, a, b in live):
                live.append((k, *ranges[k]))
        self.hidden = bytearray(len(path))
        self.starts: dict[int, list[int]] = {}
        for k, a, b in live:
            self.hidden[a:b + 1] = b"\x01" * (b + 1 - a)
            self.starts.setdefault(max(a, 0) if b >= a else k, []).append(k)


_PLAIN: dict = {}  # a message that neither calls nor answers a tool (for pairing, unread)


def walk_context(session, path, plan: SummaryPlan, should_stop=None, read: bool = True):
    """(entry, message) of the context along ``path``; with ``read`` false,
    only the records that call or answer a tool are read, the others stand
    as ``_PLAIN`` (enough to pair tool calls, at a fraction of the reads)."""
    shapes = session.tree.shape
    hidden, starts, texts = plan.hidden, plan.starts, plan.texts
    out: list[tuple[int, dict]] = []
    for k, entry in enumerate(path):
        if not k % STOP_EVERY:
            check_stop(should_stop, k)
        if k in starts:
            for s in sorted(starts[k]):
                yield path[s], {"role": SUMMARY_ROLE, "content": texts[s]}
        shape = shapes[entry]
        if hidden[k] or shape & _SUMMARY:
            continue
        if read or shape & (_CALLS | _RESULT):
            add_message(session, entry, out)
            yield from out
            out.clear()
        elif shape:  # (a record whose message is not an object has shape 0: no message, read or not)
            yield entry, _PLAIN


def tally_entry(tally, record: dict) -> None:
    """What an entry read the slow way adds to the scan's tally (the hot loop inlines this)."""
    message = record.get("message")
    if message.__class__ is dict and (usage := message.get("usage")).__class__ is dict:
        tokens_in, tokens_out = usage_counts(usage)
        tally.input_tokens += tokens_in
        tally.output_tokens += tokens_out
    when = record.get("createdAt")
    if when.__class__ is str and when[-1:] == "Z":
        if tally.first is None or when < tally.first:
            tally.first = when
        if tally.last is None or when > tally.last:
            tally.last = when
    elif when is not None:
        tally.exact = False


def add_message(session, entry: int, out: list) -> None:
    """The message of ``entry`` (without its usage) added to ``out``, if it has one."""
    message = session.record(entry).get("message")
    if isinstance(message, dict):
        out.append((entry, {key: value for key, value in message.items() if key != "usage"}))


FORMAT = TreeFormat()
