"""`opencode`: opencode 1.18.33 sessions, rows of its database
(docs/formats.md, "opencode"). Edits change opencode's own ``part`` rows,
in one transaction (``store.database_edit``).

* Close: each tool part left ``pending`` / ``running`` (a kill mid-tool)
  becomes what opencode itself writes when it aborts a call
  (``SessionProcessor.cleanup``): ``status: "error"``, ``error: "Tool
  execution aborted"``, ``metadata.interrupted: true``, ``time.end``. On
  resume opencode then sends the output the call had written so far (its
  ``metadata.output``) as the call's result, else the error. The rows'
  ``time_updated`` stays the agent's: session-tui's edit is not the agent
  at work.
* No leaf to move (opencode resumes the session's last message), no cut
  and no fork here: ``opencode --session ID --fork`` forks a session.
"""

from __future__ import annotations

import time
from typing import Any

from ...model.formats.opencode.database import written_file
from ...model.formats.opencode.reader import OPEN_STATES
from ...model.session.session import Session
from ...model.words import plural
from ..database_edit import DatabaseEdit, RowUpdate
from ..fingerprint import Fingerprint
from ..plan import Plan
from ..refusals import Refused
from .base import Form, dangling_by_owner

ABORTED = "Tool execution aborted"  # opencode's own error for a call it aborted


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _aborted(data: dict[str, Any], now_ms: int) -> dict[str, Any]:
    state = _dict(data.get("state"))
    started = _dict(state.get("time")).get("start")
    closed = {
        **state,
        "status": "error",
        "error": ABORTED,
        "metadata": {**_dict(state.get("metadata")), "interrupted": True},
        "time": {"start": started if isinstance(started, int) else now_ms, "end": now_ms},
    }
    return {**data, "state": closed}


class OpencodeForm(Form):
    name = "opencode"
    edits_rows = True  # a session of a database: its rows change, not a file

    def close(self, session: Session, drop_torn: bool) -> Plan:
        db, session_id = written_file(session.path)
        if session_id is None:
            raise Refused(f"{session.path}: not a session of an opencode database")
        now_ms = int(time.time() * 1000)
        edit = DatabaseEdit(db, session_id)
        lines = []
        for owner, _calls in dangling_by_owner(session):
            record = session.record(owner)
            data = _dict(record.get("data"))
            if record.get("type") != "part" or _dict(data.get("state")).get("status") not in OPEN_STATES:
                raise Refused(f"{session.path}: line {session.line_of(owner)} is not an open opencode tool part")
            edit.updates.append(RowUpdate(str(record["id"]), data, _aborted(data, now_ms)))
            lines.append(str(session.line_of(owner)))
        summary = (
            f"close {plural(len(lines), 'open tool part')} (line {', '.join(lines)}) as opencode closes a call it "
            "aborted"
        )
        return Plan(session.path, summary, Fingerprint.of(db), database=edit)

    def leaf_record(self, session: Session, target: int) -> dict[str, Any]:
        raise Refused(f"{session.path}: opencode resumes a session from its last message: no leaf to move")

    def cut(self, session: Session, drop_torn: bool) -> Plan:
        raise Refused(f"{session.path}: session-tui does not cut an opencode session; close the call instead")

    def fork(
        self, session: Session, entry: int, out: str | None, insert: dict[int, list[dict[str, Any]]] | None = None
    ) -> Plan:
        raise Refused(
            f"{session.path}: session-tui does not fork an opencode session; opencode does: "
            "opencode --session <id> --fork"
        )


FORM = OpencodeForm()
