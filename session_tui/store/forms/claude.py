"""`claude`, Claude Code transcripts (docs/formats.md#claude, #consequences-for-session-tui): append only, in
the forms Claude Code itself writes and accepts on resume.

* Close: one ``user`` record per dangling call holding a ``tool_result``
  block with ``is_error: true``, its envelope (``sessionId``, ``cwd``,
  ``version``, ``gitBranch``, …) copied from the calling record,
  ``sourceToolAssistantUUID`` naming it; the first is the child of the
  branch's last record (the calling record, or a result already there), the
  next ones chain after it, so all results sit right after the response
  (docs/formats.md#claude). Thinking blocks are never touched.
* Fork: a new ``<uuid>.jsonl`` in the same project folder (Claude Code
  offers any UUID-named file there on ``--resume``), the path's records
  copied with their uuids, the new ``sessionId`` and ``forkedFrom``
  naming the source record, as Claude Code's own fork does.
* No leaf to move (resume picks the newest leaf) and no cut: a fork at the
  record before the call goes back without deleting anything.
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

TOOL_USE_RESULT = "Error: " + SYNTHETIC_RESULT.removeprefix("error: ")  # how Claude Code words a tool error
#: the fields Claude Code writes on a user tool result that are about the
#: session, not the record: copied from the call's record where it has them
#: (an assistant record's own fields, madeBy, requestId, apiBlockIndex, …, never are)
ENVELOPE = ("isSidechain", "agentId", "userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch", "slug")
#: marks a record session-tui wrote (Claude Code keeps unknown fields and never sends them)
ADDED_BY = {"addedBy": "session-tui"}


def _prompt_of(session: Session, entry: int) -> str | None:
    """The ``promptId`` of the turn ``entry`` is in: the nearest record above it that has one."""
    tree, node = session.tree, entry
    for _ in range(10_000):
        if node < 0:
            return None
        found = session.record(node).get("promptId")
        if isinstance(found, str):
            return found
        node = tree.parent[node]
    return None


class ClaudeForm(Form):
    name = "claude"

    def leaf_record(self, session: Session, target: int) -> dict[str, Any]:
        raise Refused(
            f"{session.path}: Claude Code stores no leaf: resume continues from the newest record, so "
            "the leaf cannot move in place; fork at that entry instead"
        )

    def cut(self, session: Session, drop_torn: bool) -> Plan:
        owner, _ = dangling_by_owner(session)[0]
        raise Refused(
            f"{session.path}: Claude Code resumes from the newest record: going back before the call "
            f"(line {session.line_of(owner)}) means a fork at the record before it; or close the call"
        )

    def results(
        self, session: Session, owner: int, calls: list[str], parent_id: str | None = None
    ) -> list[dict[str, Any]]:
        callers = self._callers(session, owner, calls)
        parent = parent_id or session.record(session.active_leaf())["uuid"]
        out = []
        for call_id in calls:
            caller = callers[call_id]
            record: dict[str, Any] = {"parentUuid": parent}
            record.update((key, caller[key]) for key in ENVELOPE[:1] if key in caller)
            prompt = _prompt_of(session, owner)
            if prompt is not None:
                record["promptId"] = prompt
            record.update(
                {
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": call_id,
                                "content": SYNTHETIC_RESULT,
                                "is_error": True,
                            }
                        ],
                    },
                    "uuid": str(uuid.uuid4()),
                    # dated at its call: the tool did not run for as long as the file lay crashed
                    "timestamp": caller.get("timestamp") or now(),
                    "toolUseResult": TOOL_USE_RESULT,
                    "sourceToolAssistantUUID": caller["uuid"],
                    **ADDED_BY,
                }
            )
            record.update((key, caller[key]) for key in ENVELOPE[1:] if key in caller)
            out.append(record)
            parent = record["uuid"]
        return out

    def fork(
        self, session: Session, entry: int, out: str | None, insert: dict[int, list[dict[str, Any]]] | None = None
    ) -> Plan:
        if session.record(entry).get("isSidechain") is True:
            raise Refused(
                f"{session.path}: a sub-agent transcript is not a session Claude Code resumes; fork the "
                "session that spawned it instead"
            )
        new_id = str(uuid.uuid4())
        out = out or os.path.join(os.path.dirname(os.path.abspath(session.path)), f"{new_id}.jsonl")

        def moved(
            record: dict[str, Any], copied: bool
        ) -> dict[str, Any]:  # into the new session, naming where it came from
            if copied:
                record["forkedFrom"] = {"sessionId": record.get("sessionId"), "messageUuid": record.get("uuid")}
            record["sessionId"] = new_id
            return record

        return fork_plan(session, entry, [(out, path_bytes(session, entry, insert, moved))])

    def answered_through(self, session: Session, path: Sequence[int], k: int) -> int:
        """Past the rest of the response (one record per content block, the
        same ``message.id``), the results and records outside the context."""
        shapes, view = session.tree.shape, session.format.view
        step = view(session.record(path[k])).step
        while k + 1 < len(path):
            nxt = path[k + 1]
            if not (
                shapes[nxt] & (Shape.RESULT | Shape.QUIET)
                or (step is not None and view(session.record(nxt)).step == step)
            ):
                break
            k += 1
        return k

    # -- the crash shape --------------------------------------------------------------
    @staticmethod
    def trailing(session: Session) -> tuple[int, list[str]]:
        """(last calling entry, dangling call ids) when the dangling calls all
        belong to the branch's last response and nothing but results and
        records outside the model's context follow it."""
        by_owner = dangling_by_owner(session)
        path = session.active_path()
        position = {e: k for k, e in enumerate(path)}
        owners = [owner for owner, _ in by_owner]
        steps = {session.format.view(session.record(e)).step for e in owners}
        shapes = session.tree.shape
        after = path[position[owners[-1]] + 1 :]
        conversational = [
            e
            for e in after
            if not shapes[e] & Shape.RESULT and shapes[e] & Shape.ROLE_MASK in (Shape.USER, Shape.ASSISTANT)
        ]
        if (len(owners) > 1 and (len(steps) > 1 or None in steps)) or conversational:
            raise inside(session, owners[0])
        return owners[-1], [call for _, calls in by_owner for call in calls]

    @staticmethod
    def _callers(session: Session, owner: int, calls: list[str]) -> dict[str, dict[str, Any]]:
        """The record making each call: ``owner`` or an earlier line of the same response."""
        found: dict[str, dict[str, Any]] = {}
        node = owner
        while node >= 0 and len(found) < len(calls):
            record = session.record(node)
            if record.get("type") != "assistant":
                break
            ids = {c.id for c in session.format.view(record).tool_calls}
            found.update((c, record) for c in calls if c in ids and c not in found)
            node = session.tree.parent[node]
        missing = [c for c in calls if c not in found]
        if missing:
            raise Refused(
                f"{session.path}: the call {missing[0]} is not in the response before line {session.line_of(owner)}"
            )
        return found


FORM = ClaudeForm()
