"""`qwen`: Qwen Code 0.24 chat recordings (docs/formats.md, "Qwen Code"):
append only, in the records Qwen Code itself writes.

* Close: one ``tool_result`` record per dangling call, as Qwen Code writes
  a finished call's: a user message with one ``functionResponse{id, name,
  response: {error}}`` part and ``toolCallResult{callId, status: "error"}``,
  its envelope (``sessionId``, ``cwd``, ``version``) copied from the calling
  record; the first is the child of the file's last record (Qwen Code
  resumes the chain that ends there), the next chain after it.
* Fork: a new ``<uuid>.jsonl`` in the same chats folder (``--resume`` finds
  it by that id), the path's records copied with their uuids under the new
  ``sessionId``; a call dangling inside the branch gets its results right
  after the responses already there, the later records re-chained onto them.
* No leaf to move (Qwen Code resumes the end of the file) and no cut: a fork
  at the record before the call goes back without deleting anything.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from typing import Any

from ...model.reading.segment import Shape
from ...model.session.session import Session
from ..plan import Plan
from ..refusals import Refused
from ..session_store import now
from .base import SYNTHETIC_RESULT, Form, dangling_by_owner, fork_plan, inside, path_bytes

ENVELOPE = ("sessionId", "cwd", "version")
#: marks a record session-tui wrote (Qwen Code keeps unknown fields and never sends them)
ADDED_BY = {"addedBy": "session-tui"}


class QwenForm(Form):
    name = "qwen"

    def leaf_record(self, session: Session, target: int) -> dict[str, Any]:
        raise Refused(
            f"{session.path}: Qwen Code stores no leaf: resume continues from the file's last record, so "
            "the leaf cannot move in place; fork at that entry instead"
        )

    def cut(self, session: Session, drop_torn: bool) -> Plan:
        owner, _ = dangling_by_owner(session)[0]
        raise Refused(
            f"{session.path}: Qwen Code resumes from the file's last record: going back before the call "
            f"(line {session.line_of(owner)}) means a fork at the record before it; or close the call"
        )

    def results(
        self, session: Session, owner: int, calls: list[str], parent_id: str | None = None
    ) -> list[dict[str, Any]]:
        caller = session.record(owner)
        names = {c.id: c.name for c in session.format.view(caller).tool_calls}
        missing = [c for c in calls if c not in names]
        if missing:
            line = session.line_of(owner)
            raise Refused(f"{session.path}: the call {missing[0]} is not in the record on line {line}")
        parent = parent_id or session.record(session.active_leaf())["uuid"]
        out = []
        for call_id in calls:
            record: dict[str, Any] = {"uuid": str(uuid.uuid4()), "parentUuid": parent}
            record.update((key, caller[key]) for key in ENVELOPE[:1] if key in caller)
            # dated at its call: the tool did not run for as long as the file lay crashed
            record.update({"timestamp": caller.get("timestamp") or now(), "type": "tool_result"})
            record["provenance"] = "tool_result"
            record.update((key, caller[key]) for key in ENVELOPE[1:] if key in caller)
            response = {"id": call_id, "name": names[call_id], "response": {"error": SYNTHETIC_RESULT}}
            record["message"] = {"role": "user", "parts": [{"functionResponse": response}]}
            record["toolCallResult"] = {"callId": call_id, "status": "error", "executionStatus": "error"}
            record.update(ADDED_BY)
            out.append(record)
            parent = record["uuid"]
        return out

    def fork(
        self, session: Session, entry: int, out: str | None, insert: dict[int, list[dict[str, Any]]] | None = None
    ) -> Plan:
        new_id = str(uuid.uuid4())
        out = out or os.path.join(os.path.dirname(os.path.abspath(session.path)), f"{new_id}.jsonl")

        def moved(record: dict[str, Any], copied: bool) -> dict[str, Any]:  # into the new session
            record["sessionId"] = new_id
            return record

        return fork_plan(session, entry, [(out, path_bytes(session, entry, insert, moved))])

    def answered_through(self, session: Session, path: Sequence[int], k: int) -> int:
        """Past the results already there and the records outside the context (telemetry)."""
        shapes = session.tree.shape
        while k + 1 < len(path) and shapes[path[k + 1]] & (Shape.RESULT | Shape.QUIET):
            k += 1
        return k

    @staticmethod
    def trailing(session: Session) -> tuple[int, list[str]]:
        """(the calling entry, its dangling call ids) when it is the branch's
        last response and nothing but results and telemetry follow it."""
        by_owner = dangling_by_owner(session)
        path = session.active_path()
        owner, calls = by_owner[-1]
        shapes = session.tree.shape
        after = path[path.index(owner) + 1 :]
        if len(by_owner) > 1 or any(not shapes[e] & (Shape.RESULT | Shape.QUIET) for e in after):
            raise inside(session, by_owner[0][0])
        return owner, calls


FORM = QwenForm()
