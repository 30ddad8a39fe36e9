"""`copilot`: GitHub Copilot CLI 1.0.102 session events (docs/formats.md,
"Copilot CLI"): append only, in the events Copilot CLI itself writes.

* Close: one ``tool.execution_complete`` per dangling call, as Copilot CLI
  appends one when it resumes a file with an interrupted call (``success:
  false``, ``error{message: "Tool execution was interrupted …", code:
  "interrupted"}``, ``model: "resumed"``, ``interactionId: "resume"``), each
  the child of the event before it (the first of the file's last event).
  Copilot then sends each as "The execution of this tool, or a previous tool
  was interrupted." (its own text for a recorded interruption).
* No fork: a Copilot session is a folder (``<id>/events.jsonl`` beside
  ``workspace.yaml``, checkpoints and file snapshots, and a row in
  ``session-store.db``); session-tui writes no new one. No leaf to move (it
  resumes the file's last event) and no cut.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from ...model.formats.copilot.reader import INTERRUPTED
from ...model.reading.segment import Shape
from ...model.session.session import Session
from ..plan import Plan
from ..refusals import Refused
from ..session_store import now
from .base import Form, dangling_by_owner, inside


class CopilotForm(Form):
    name = "copilot"

    def leaf_record(self, session: Session, target: int) -> dict[str, Any]:
        raise Refused(
            f"{session.path}: Copilot CLI stores no leaf: resume continues from the file's last event, so "
            "the leaf cannot move in place"
        )

    def cut(self, session: Session, drop_torn: bool) -> Plan:
        owner, _ = dangling_by_owner(session)[0]
        raise Refused(
            f"{session.path}: Copilot CLI resumes from the file's last event and session-tui writes no "
            f"Copilot session folder: close the call (line {session.line_of(owner)}) instead"
        )

    def fork(
        self, session: Session, entry: int, out: str | None, insert: dict[int, list[dict[str, Any]]] | None = None
    ) -> Plan:
        raise Refused(
            f"{session.path}: a Copilot CLI session is a folder (events, workspace.yaml, checkpoints, its row in "
            "session-store.db): session-tui does not fork one; to resume it, copy its <id>/ folder into "
            "~/.copilot/session-state/ (or export it)"
        )

    def results(
        self, session: Session, owner: int, calls: list[str], parent_id: str | None = None
    ) -> list[dict[str, Any]]:
        names = {c.id for c in session.format.view(session.record(owner)).tool_calls}
        missing = [c for c in calls if c not in names]
        if missing:
            line = session.line_of(owner)
            raise Refused(f"{session.path}: the call {missing[0]} is not in the event on line {line}")
        parent = parent_id or session.record(session.active_leaf())["id"]
        out = []
        for call_id in calls:
            data = {
                "toolCallId": call_id,
                "model": "resumed",
                "interactionId": "resume",
                "success": False,
                "error": {"message": INTERRUPTED, "code": "interrupted"},
            }
            event = {"type": "tool.execution_complete", "data": data, "id": str(uuid.uuid4())}
            event.update(timestamp=now(), parentId=parent)
            out.append(event)
            parent = event["id"]
        return out

    def answered_through(self, session: Session, path: Sequence[int], k: int) -> int:
        """Past the results already there and the events the model never sees."""
        shapes = session.tree.shape
        while k + 1 < len(path) and shapes[path[k + 1]] & (Shape.RESULT | Shape.QUIET):
            k += 1
        return k

    @staticmethod
    def trailing(session: Session) -> tuple[int, list[str]]:
        """(the calling entry, its dangling call ids) when it is the branch's
        last response and only results and quiet events follow it."""
        by_owner = dangling_by_owner(session)
        path = session.active_path()
        owner, calls = by_owner[-1]
        shapes = session.tree.shape
        after = path[path.index(owner) + 1 :]
        if len(by_owner) > 1 or any(not shapes[e] & (Shape.RESULT | Shape.QUIET) for e in after):
            raise inside(session, by_owner[0][0])
        return owner, calls


FORM = CopilotForm()
