"""`tree`, session-tui's own format (docs/formats.md#tree-writing): append only.
A leaf move appends an ``active_leaf`` pointer; results are ``tool``
message entries chained after the leaf; a fork is a new file whose header
names its source (``parentSession``)."""

from __future__ import annotations

import os
import uuid
from typing import Any

from ...model.reading import json_text
from ...model.session.session import Session
from ..plan import Plan
from ..session_store import now
from .base import SYNTHETIC_RESULT, Form, fork_path, fork_plan, new_id, path_bytes


class TreeForm(Form):
    name = "tree"

    def leaf_record(self, session: Session, target: int) -> dict[str, Any]:
        return {"type": "active_leaf", "activeLeafId": session.record(target)["id"], "createdAt": now()}

    def results(
        self, session: Session, owner: int, calls: list[str], parent_id: str | None = None
    ) -> list[dict[str, Any]]:
        parent = parent_id or session.record(session.active_leaf()).get("id")
        called = session.record(owner).get("createdAt")  # dated at its call, not at the repair
        out = []
        for call_id in calls:
            entry_id = new_id(session)
            out.append(
                {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "createdAt": called if isinstance(called, str) else now(),
                    "message": {"role": "tool", "tool_call_id": call_id, "content": SYNTHETIC_RESULT},
                }
            )
            parent = entry_id
        return out

    def fork(
        self, session: Session, entry: int, out: str | None, insert: dict[int, list[dict[str, Any]]] | None = None
    ) -> Plan:
        out = out or fork_path(session.path)
        source = session.header or {}
        header = {
            "type": "session",
            "version": 1,
            "id": str(uuid.uuid4()),
            "createdAt": now(),
            "parentSession": {
                "id": source.get("id"),
                "path": os.path.abspath(session.path),
                "entryId": session.record(entry)["id"],
            },
        }
        for key in ("cwd", "model"):
            if key in source:
                header[key] = source[key]
        return fork_plan(
            session, entry, [(out, json_text.dumps(header).encode() + b"\n" + path_bytes(session, entry, insert))]
        )


FORM = TreeForm()
