"""`codex`: OpenAI Codex CLI rollouts (docs/formats.md#codex).

Every line ``{"timestamp", "type", "payload"}``; the first ``session_meta`` is
the header. Linear: no ids, no parent links. The model-visible history is
rebuilt as Codex does: turns split at ``task_started``, the newest N user
turns dropped by ``thread_rolled_back``, a ``compacted`` record with
``replacement_history`` as the new base, a later ``session_meta`` with
``history_base`` (a rewind: the thread goes on in another file, from its
first ``end_ordinal_exclusive`` lines; ``codex_thread``) as a cut there.
Calls pair with outputs by ``call_id`` anywhere after them (parallel calls
interleave).

Legacy rollouts (Codex CLI before the ``session_meta`` wrapper, 2025) are
read too: a bare ``{id, timestamp, instructions, git}`` first line,
``{"record_type": "state"}`` lines and bare response items. Today's Codex
does not resume them: it starts a new conversation without their history.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ...entries.tokens import Response
from ...entries.view import EntryView, ToolCall, content_text
from ...errors import check_stop
from ...reading import json_text
from ...reading.records import BadLine, name_of, parse_object
from ...reading.records import loads as json_loads
from ...reading.segment import LineKind, Segment, Shape
from ..base import LinearFile, Sent, Session
from . import tokens
from .client import CLIENT
from .tokens import RECORD_KINDS

CALLS = ("function_call", "custom_tool_call", "local_shell_call", "tool_search_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output", "tool_search_output")
EVENT_ROWS = ("thread_rolled_back", "turn_aborted")
TURN_STARTS = ("task_started", "turn_started")
# keys looked up with any JSON value
_ROLES: dict[Any, int] = {
    "user": Shape.USER,
    "assistant": Shape.ASSISTANT,
    "developer": Shape.DEVELOPER,
    "system": Shape.SYSTEM,
}
ABORTED = "aborted"  # the output Codex sends for a call whose output is not in the file
# keys looked up with any JSON value
_OUTPUT_OF: dict[Any, str] = {"custom_tool_call": "custom_tool_call_output", "tool_search_call": "tool_search_output"}
WRAPPERS = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")


def _rewound_to(record: dict[str, Any]) -> int | None:
    """The line a rewind's segment goes on from (its ``session_meta``'s
    ``history_base.end_ordinal_exclusive``); None for any other record."""
    payload = record.get("payload")
    base = payload.get("history_base") if record.get("type") == "session_meta" and isinstance(payload, dict) else None
    end = base.get("end_ordinal_exclusive") if isinstance(base, dict) else None
    return end if isinstance(end, int) and not isinstance(end, bool) else None


def _legacy_header(obj: dict[str, Any]) -> bool:
    return "type" not in obj and "id" in obj and "timestamp" in obj and ("instructions" in obj or "git" in obj)


def _item(record: dict[str, Any]) -> dict[str, Any] | None:
    """The response item a record holds: a ``response_item``'s payload, or
    a legacy rollout's bare item; None for anything else."""
    kind = record.get("type")
    if kind == "response_item":
        payload = record.get("payload")
        return payload if isinstance(payload, dict) else {}
    if isinstance(kind, str) and kind not in WRAPPERS and "payload" not in record:
        return record
    return None


def _records(
    session: Session, start: int, stop: int, should_stop: Callable[[], bool] | None = None
) -> Iterator[tuple[int, dict[str, Any], dict[str, Any]]]:
    """(line, record, its payload or {}) of the entry and metadata lines in [start, stop)."""
    kinds = session.lines.line_kinds
    for n in range(start, stop):
        check_stop(should_stop, n)
        if kinds[n] not in RECORD_KINDS:
            continue
        try:
            record = parse_object(session.raw_line(n))
        except BadLine:
            continue
        payload = record.get("payload")
        yield n, record, payload if isinstance(payload, dict) else {}


def _text(content: object) -> str:
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", ""))
            if isinstance(p, dict) and "text" in p
            else (f"[{p.get('type')}]" if isinstance(p, dict) else str(p))
            for p in content
        )
    return content_text(content)


@dataclass
class _OffBranch:
    """The entries undone by rollbacks, as of line ``seen``."""

    seen: int = 0
    found: set[int] | None = None


class CodexFormat(LinearFile):
    name = "codex"
    marks_errors = True
    results_anywhere = True
    client = CLIENT
    fills_dangling = 'Codex will send the output "aborted" for it on resume'
    torn_tail = ("warning", "Codex skips it on resume")

    def sniff(self, objs: list[dict[str, Any]], path: str | None = None) -> bool:
        first = objs[0]
        return (first.get("type") == "session_meta" and isinstance(first.get("payload"), dict)) or _legacy_header(first)

    def legacy(self, session: Session) -> bool:
        """A rollout from before the ``session_meta`` wrapper."""
        return session.header is not None and _legacy_header(session.header)

    def read_only(self, session: Session) -> str | None:
        return (
            "a legacy Codex rollout (before session_meta): today's Codex does not resume it, so no repair "
            "would take effect"
            if self.legacy(session)
            else None
        )

    def classify(self, obj: dict[str, Any], line: int, seg: Segment) -> int:
        kind = obj.get("type")
        payload = found if isinstance(found := obj.get("payload"), dict) else {}
        if kind == "session_meta" or (kind is None and _legacy_header(obj)):
            if seg.header is None:
                seg.header = obj
                return LineKind.HEADER
            if _rewound_to(obj) is None:
                return LineKind.META
            shape = Shape.OTHER  # a rewind: shown as a row
        elif kind is None and "record_type" in obj:  # legacy state snapshots
            return LineKind.META
        elif (response_item := _item(obj)) is not None:
            item = response_item.get("type")
            payload = response_item
            if item == "message":
                shape = _ROLES.get(name_of(payload.get("role")), Shape.OTHER)
            elif item in CALLS:
                shape = Shape.ASSISTANT | Shape.CALLS
            elif item in OUTPUTS:
                shape = Shape.TOOL | Shape.RESULT
            else:
                shape = Shape.OTHER
        elif kind == "compacted":
            shape = Shape.SUMMARY
        elif kind == "turn_context" or (kind == "event_msg" and payload.get("type") in EVENT_ROWS):
            shape = Shape.OTHER
        elif kind == "event_msg":
            return LineKind.META  # UI copies of messages, token counts, lifecycle: not rows
        else:
            return LineKind.UNKNOWN
        seg.entry_lines.append(line)
        seg.shapes.append(shape)
        return LineKind.ENTRY

    def origin(self, session: Session) -> str | None:
        payload = (session.header or {}).get("payload")
        parent = payload.get("forked_from_id") if isinstance(payload, dict) else None
        return f"session {parent}" if isinstance(parent, str) and parent else None

    def entry_id(self, record: dict[str, Any]) -> str | None:
        return None

    # -- the model-visible history ---------------------------------------------------
    def context(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
    ) -> list[tuple[int, dict[str, Any]]]:
        """(entry, response item) pairs: Codex's reconstruction up to ``leaf``."""
        return self._rebuild(session, leaf, should_stop, [])

    def context_tail(self, session: Session, entries: list[int]) -> list[tuple[int, dict[str, Any]]] | None:
        """The items of the lines after the last leaf up to the new one; None
        when one of them rolls back or compacts (the turns before change)."""
        from bisect import bisect_right

        if not entries:
            return []
        tree = session.tree
        out: list[tuple[int, dict[str, Any]]] = []
        first = tree.entry_line[entries[0] - 1] + 1 if entries[0] else 0
        for n, record, payload in _records(session, first, tree.entry_line[entries[-1]] + 1):
            if record.get("type") == "compacted" or payload.get("type") == "thread_rolled_back" or _rewound_to(record):
                return None
            item = _item(record)
            if item is not None:
                out.append((bisect_right(tree.entry_line, n) - 1, item))
        return out

    def off_branch(self, session: Session, should_stop: Callable[[], bool] | None = None) -> set[int]:
        """Entries of turns undone by ``thread_rolled_back`` or by a rewind: shown greyed."""
        lines = session.lines
        kept = session.memo.of(_OffBranch)
        seen, found = kept.seen, kept.found
        end = session.tree.entry_line[session.tree.count - 1] + 1 if session.tree.count else 0  # lines rebuilt
        if found is not None and not any(
            b"thread_rolled_back" in (raw := session.raw_line(n)) or b"history_base" in raw
            for n in range(seen, end)
            if lines.line_kinds[n] in RECORD_KINDS
        ):
            return found  # no rollback since: the same turns are undone
        dropped: list[int] = []
        if session.tree.count:
            self._rebuild(session, session.tree.count - 1, should_stop, dropped)
        kept.seen, kept.found = end, set(dropped)
        return set(dropped)

    def _rebuild(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None, dropped: list[int]
    ) -> list[tuple[int, dict[str, Any]]]:
        from bisect import bisect_right

        tree = session.tree
        turns: list[list[tuple[int, dict[str, Any]]]] = [[]]
        for n, record, payload in _records(session, 0, tree.entry_line[leaf] + 1, should_stop):
            kind = record.get("type")
            if kind == "event_msg" and payload.get("type") in TURN_STARTS:
                turns.append([])
                continue
            entry = bisect_right(tree.entry_line, n) - 1
            if kind == "event_msg" and payload.get("type") == "thread_rolled_back":
                self._roll_back(turns, payload.get("num_turns"), dropped)
            elif (end := _rewound_to(record)) is not None:
                for k, turn in enumerate(turns):
                    dropped.extend(e for e, _ in turn if tree.entry_line[e] >= end)
                    turns[k] = [(e, i) for e, i in turn if tree.entry_line[e] < end]
            elif kind == "compacted":
                replacement = payload.get("replacement_history")
                if isinstance(replacement, list):
                    turns = [[(entry, item) for item in replacement if isinstance(item, dict)]]
                else:
                    kept = [(e, i) for turn in turns for e, i in turn if i.get("role") == "user"]
                    turns = [
                        kept
                        + [
                            (
                                entry,
                                {
                                    "type": "message",
                                    "role": "user",
                                    "content": [{"type": "input_text", "text": str(payload.get("message", ""))}],
                                },
                            )
                        ]
                    ]
                turns.append([])
            elif (item := _item(record)) is not None:
                turns[-1].append((entry, item))
        return [pair for turn in turns for pair in turn]

    def resume(self, session: Session, items: list[tuple[int, dict[str, Any]]]) -> list[Sent]:
        """What Codex sends: for each call whose output is nowhere after it,
        an output "aborted" right after the call (mid-history too). A legacy
        rollout is not resumed: Codex starts a new conversation."""
        if self.legacy(session):
            return []
        answered = {self.tool_result_id(item) for _, item in items} - {None}
        out: list[Sent] = []
        for entry, item in items:
            out.append(Sent(entry, item))
            for call_id in self.tool_call_ids(item):
                if call_id not in answered:
                    out.append(
                        Sent(
                            entry,
                            {
                                "type": _OUTPUT_OF.get(name_of(item.get("type")), "function_call_output"),
                                "call_id": call_id,
                                "output": ABORTED,
                            },
                            CLIENT.title,
                        )
                    )
        return out

    @staticmethod
    def _roll_back(turns: list[list[tuple[int, dict[str, Any]]]], count: object, dropped: list[int]) -> None:
        """Drop the newest ``count`` turns that hold a user message."""
        left = count if isinstance(count, int) else 0
        k = len(turns) - 1
        while left > 0 and k >= 0:
            if any(item.get("role") == "user" for _, item in turns[k]):
                dropped.extend(entry for entry, _ in turns[k])
                del turns[k]
                left -= 1
            k -= 1
        if not turns:
            turns.append([])

    def tool_call_ids(self, message: dict[str, Any]) -> list[str]:
        return [message["call_id"]] if message.get("type") in CALLS and isinstance(message.get("call_id"), str) else []

    def tool_result_id(self, message: dict[str, Any]) -> str | None:
        call = message.get("call_id")
        return call if message.get("type") in OUTPUTS and isinstance(call, str) else None

    # -- token usage: event_msg token_count lines (META, not entries; codex/tokens.py) ------
    def entry_tokens(self, session: Session, entry: int) -> dict[str, Any] | None:
        return tokens.entry_tokens(session, entry)

    responses_by_entry = False  # (read from the token_count lines between the entries)

    def responses(self, session: Session, should_stop: Callable[[], bool] | None = None) -> list[Response]:
        return tokens.responses(session, should_stop)

    # -- view -----------------------------------------------------------------------
    def view(self, record: dict[str, Any]) -> EntryView:
        kind = record.get("type")
        payload = found if isinstance(found := record.get("payload"), dict) else {}
        time = record.get("timestamp")
        if kind == "compacted":
            return EntryView(kind="summary", role="summary", text=str(payload.get("message", "")), time=time)
        if (end := _rewound_to(record)) is not None:
            return EntryView(
                kind="rewind",
                role="event",
                time=time,
                text=f"rewound: the thread goes on after line {end}, in a new file",
            )
        if kind == "turn_context":
            return EntryView(
                kind="turn_context",
                role="turn_context",
                time=time,
                text=f"turn: model {payload.get('model', '?')}, cwd {payload.get('cwd', '?')}",
            )
        if kind == "event_msg":
            event = payload.get("type")
            text = (
                f"rolled back {payload.get('num_turns')} turn(s)"
                if event == "thread_rolled_back"
                else f"turn aborted: {payload.get('reason', '')}"
            )
            return EntryView(kind=str(event), role="event", text=text, time=time)
        legacy = _item(record)
        if legacy is not None and kind != "response_item":
            payload = legacy
        item = payload.get("type")
        if item == "message":
            return EntryView(
                kind="message", role=str(payload.get("role", "?")), text=_text(payload.get("content")), time=time
            )
        if item == "reasoning":
            summary = payload.get("summary")
            return EntryView(
                kind="reasoning",
                role="reasoning",
                time=time,
                text="[reasoning] " + _text(summary if isinstance(summary, list) else []),
            )
        if item in CALLS:
            arguments = payload.get("arguments", payload.get("input", payload.get("action")))
            if not isinstance(arguments, str):
                arguments = json_text.dumps(arguments)
            name = payload.get("name") or ("shell" if item == "local_shell_call" else item)
            return EntryView(
                kind="message",
                role="assistant",
                time=time,
                tool_calls=[ToolCall(str(payload.get("call_id", "")), str(name), arguments)],
            )
        if item in OUTPUTS:
            output = payload.get("output")
            text, code = command_output(output if isinstance(output, str) else _text(output))
            return EntryView(
                kind="message",
                role="tool",
                time=time,
                result_for=self.tool_result_id(payload),
                text=text if code in (None, 0) else f"[exit {code}] {text}",
                is_error=code not in (None, 0),
            )
        return EntryView(kind=str(item), role=str(item), text=f"{item} item", time=time)


# What Codex wraps a command's output in: ``exec_command`` (0.1xx) writes a
# header and then the output; older shells wrote JSON with the exit code in
# its metadata, or "Exit code: N" before the output.
_EXEC_HEADER = re.compile(
    r"(?:Chunk ID: [^\n]*\n)?(?:Wall time: [^\n]*\n)?(?:Process exited with code (-?\d+)\n)?"
    r"(?:Process running with session ID [^\n]*\n)?(?:Original token count: [^\n]*\n)?Output:\n"
)
_EXIT_CODE = re.compile(r"Exit code: (-?\d+)\n(?:Wall time: [^\n]*\n)?(?:Total output lines: [^\n]*\n)?Output:\n")


def command_output(output: str) -> tuple[str, int | None]:
    """A tool output as Codex recorded it: (the command's output, its exit
    code or None) for a command's; (the text, None) for any other."""
    for header in (_EXEC_HEADER, _EXIT_CODE):
        found = header.match(output)
        if found and found.end() > 0:
            code = found.group(1)
            return output[found.end() :], int(code) if code is not None else None
    if output.startswith("{") and '"exit_code"' in output:
        try:
            value = json_loads(output)
        except ValueError:
            return output, None
        meta = value.get("metadata") if isinstance(value, dict) else None
        if isinstance(meta, dict) and type(meta.get("exit_code")) is int and isinstance(value.get("output"), str):
            return value["output"], meta["exit_code"]
    return output, None


FORMAT = CodexFormat()
