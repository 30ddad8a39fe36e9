"""`codex`, Codex CLI rollouts (docs/formats.md#codex, #consequences-for-session-tui): only whole lines are
appended, in the forms Codex itself writes and accepts on resume.

* Close: one ``response_item`` output per dangling call, with the text
  ``aborted`` — the output Codex inserts itself at send time
  (``normalize.rs``): ``custom_tool_call`` → ``custom_tool_call_output``;
  ``function_call`` and ``local_shell_call`` → ``function_call_output``. A
  file with ``ordinal``s gets the next ones (``ordinal.rs`` resumes from the
  last record's). A call followed by later turns is closed in a fork of
  the history with the output right after the call, where Codex puts it
  when it sends the history (it needs no fix to resume; the fork makes the
  file itself whole); appended here it would come after those turns.
* Fork: a new ``rollout-<local time>-<thread id>.jsonl`` beside the source,
  whose ``session_meta`` copies the source's with a new ``id`` and
  ``forked_from_id``, then every line of the source after its own header
  up to the entry, verbatim (``event_msg`` lines included: turns and
  rollbacks are rebuilt from them).
* No leaf to move, and no cut: a call is never deleted (docs/formats.md#consequences-for-session-tui).
"""

from __future__ import annotations

import os
import time
import uuid
from datetime import datetime
from typing import Any

from ...model.formats.codex.reader import CALLS, OUTPUTS
from ...model.reading import json_text
from ...model.reading.records import BadLine, parse_object
from ...model.reading.segment import LineKind
from ...model.session.context import context_items
from ...model.session.session import Session
from ...model.words import calls_without_result
from ..plan import Plan
from ..refusals import DanglingInside, Refused
from ..session_store import now
from .base import Form, dangling_by_owner, fork_plan, planned_on, with_torn

ABORTED = "aborted"
OUTPUT_OF = {
    "function_call": "function_call_output",
    "local_shell_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
}
TAIL_ITEMS = (*CALLS, *OUTPUTS, "reasoning")  # what may follow a dangling call at the end of a turn


def uuid7() -> str:
    """A time-ordered UUID (version 7), as Codex names threads."""
    rand = int.from_bytes(os.urandom(10), "big")  # 12 + 62 random bits around the version and variant
    value = (time.time_ns() // 1_000_000) << 80 | 7 << 76 | (rand >> 62 & 0xFFF) << 64 | 2 << 62 | rand & (1 << 62) - 1
    return str(uuid.UUID(int=value))


def next_ordinal(session: Session) -> tuple[str | None, int] | None:
    """Where the records carry ``ordinal`` (None: top level, else "payload")
    and the next value, from the last record as Codex resumes; None if they
    carry none."""
    lines = session.lines
    for line in range(len(lines) - 1, -1, -1):
        if lines.line_kinds[line] in (LineKind.BAD, LineKind.BLANK):
            continue
        try:
            record = parse_object(session.raw_line(line))
        except BadLine:
            continue
        payload = record.get("payload")
        if not isinstance(payload, dict):
            payload = {}
        for place, holder in ((None, record), ("payload", payload)):
            value = holder.get("ordinal")
            if isinstance(value, int) and not isinstance(value, bool):
                return place, value + 1
        return None
    return None


def trailing_calls(session: Session) -> list[tuple[str, str]]:
    """(call id, call type) of the dangling calls, if nothing but tool calls,
    outputs and reasoning follows the first of them in the history."""
    open_ids = {call for _, calls in dangling_by_owner(session) for call in calls}
    items = context_items(session)
    first = next(
        k for k, (_, item) in enumerate(items) if item.get("type") in CALLS and item.get("call_id") in open_ids
    )
    if any(item.get("type") not in TAIL_ITEMS for _, item in items[first + 1 :]):
        raise DanglingInside(
            f"{session.path}: the dangling call on line {session.line_of(items[first][0])} is "
            "followed by later turns; an output appended here would come after them"
        )
    return [
        (item["call_id"], item["type"])
        for _, item in items[first:]
        if item.get("type") in CALLS and item.get("call_id") in open_ids
    ]


def _output(session: Session, call_id: str, kind: str | None) -> dict[str, Any]:
    """The ``aborted`` output record of a call of type ``kind``."""
    if kind not in OUTPUT_OF:
        raise Refused(f"{session.path}: no output form known for a dangling {kind} ({call_id}): fork before it instead")
    return {
        "timestamp": now(),
        "type": "response_item",
        "payload": {"type": OUTPUT_OF[kind], "call_id": call_id, "output": ABORTED},
    }


class CodexForm(Form):
    name = "codex"

    def leaf_record(self, session: Session, target: int) -> dict[str, Any]:
        raise Refused(f"{session.path}: codex has no leaf pointer; fork at that entry instead")

    def close(self, session: Session, drop_torn: bool) -> Plan:
        try:
            calls = trailing_calls(session)
        except DanglingInside:
            return self.close_inside(session)
        place, ordinal = next_ordinal(session) or (None, None)
        records = []
        for call_id, kind in calls:
            payload = _output(session, call_id, kind)["payload"]
            record: dict[str, Any] = {"timestamp": now()}
            if ordinal is not None:
                (record if place is None else payload)["ordinal"] = ordinal
                ordinal += 1
            records.append({**record, "type": "response_item", "payload": payload})
        plan = Plan(
            session.path,
            f"close {calls_without_result(len(records))} with an '{ABORTED}' output, as Codex would send it",
            planned_on(session),
            append=records,
        )
        return with_torn(session, plan, drop_torn)

    def cut(self, session: Session, drop_torn: bool) -> Plan:
        raise Refused(
            f"{session.path}: codex rollouts are append-only and a call is never deleted: close it with "
            "an 'aborted' output, or fork before it"
        )

    def close_inside(self, session: Session) -> Plan:
        """A fork of the history with an ``aborted`` output right after each
        dangling call, where Codex puts it when it sends the history."""
        if next_ordinal(session) is not None:
            raise Refused(
                f"{session.path}: Codex numbers these records (ordinal): an output inserted inside would "
                f"break the numbering; {self.fills_note(session)}"
            )
        kinds = {item.get("call_id"): item.get("type") for _, item in context_items(session)}
        insert: dict[int, list[dict[str, Any]]] = {}
        for owner, calls in dangling_by_owner(session):
            insert[owner] = [_output(session, call_id, kinds.get(call_id, "")) for call_id in calls]
        plan = self.fork(session, session.active_leaf(), None, insert=insert)
        first = session.line_of(min(insert))
        plan.summary = (
            f"fork the history with 'aborted' outputs inserted for "
            f"{calls_without_result(sum(map(len, insert.values())))}, the first after line {first}, "
            f"into {plan.new_files[0][0]}; this file is not changed "
            f"({self.fills_note(session)}: the fork makes the file itself whole)"
        )
        return plan

    @staticmethod
    def fills_note(session: Session) -> str:
        return session.format.fills_dangling or "Codex sends an output for it on resume"

    def fork(
        self, session: Session, entry: int, out: str | None, insert: dict[int, list[dict[str, Any]]] | None = None
    ) -> Plan:
        source = session.header
        lines = session.lines
        header_line = next((n for n in range(len(lines)) if lines.line_kinds[n] == LineKind.HEADER), None)
        if source is None or header_line is None:
            raise Refused(f"{session.path}: no session_meta line to copy")
        thread, stamp = uuid7(), now()
        payload = {**source["payload"], "id": thread, "timestamp": stamp, "forked_from_id": source["payload"].get("id")}
        header = {**source, "timestamp": stamp, "payload": payload}
        after = {session.tree.entry_line[e]: records for e, records in (insert or {}).items()}
        body = b"".join(
            session.raw_line(n) + b"\n" + b"".join(json_text.dumps(r).encode() + b"\n" for r in after.get(n, ()))
            for n in range(header_line + 1, session.tree.entry_line[entry] + 1)
            if lines.line_kinds[n] not in (LineKind.BAD, LineKind.BLANK)
        )
        out = out or os.path.join(
            os.path.dirname(os.path.abspath(session.path)),
            f"rollout-{datetime.now().strftime('%Y-%m-%dT%H-%M-%S')}-{thread}.jsonl",
        )
        return fork_plan(session, entry, [(out, json_text.dumps(header).encode() + b"\n" + body)])


FORM = CodexForm()
