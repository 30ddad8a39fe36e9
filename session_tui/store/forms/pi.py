"""`pi` (docs/formats.md#pi): append only, in pi's own entry forms. Whatever is
last becomes pi's leaf, so a leaf move appends a ``custom`` entry (outside
the model's context) as a child of the target; results are ``toolResult``
messages with ``isError``; a fork's header names the source file, as pi's
own ``/fork`` does. Ids are 8 hex digits, unique in the file."""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

from ...model.formats.pi.reader import LEAF_CUSTOM_TYPE
from ...model.reading import json_text
from ...model.session.session import Session
from ..plan import Plan
from ..session_store import now
from .base import SYNTHETIC_RESULT, Form, fork_path, fork_plan, new_id, path_bytes


def _pi_id(session: Session) -> str:
    return new_id(session, lambda: uuid.uuid4().hex[:8])


class PiForm(Form):
    name = "pi"

    def leaf_record(self, session: Session, target: int) -> dict[str, Any]:
        return {
            "type": "custom",
            "id": _pi_id(session),
            "parentId": session.record(target)["id"],
            "timestamp": now(),
            "customType": LEAF_CUSTOM_TYPE,
        }

    def results(
        self, session: Session, owner: int, calls: list[str], parent_id: str | None = None
    ) -> list[dict[str, Any]]:
        call = session.record(owner)
        names = {c.id: c.name for c in session.format.view(call).tool_calls}
        parent = parent_id or session.record(session.active_leaf()).get("id")
        called = call.get("timestamp")  # dated at its call: the tool did not run while the file lay crashed
        message = call.get("message")
        called_ms = message.get("timestamp") if isinstance(message, dict) else None
        out = []
        for call_id in calls:
            entry_id = _pi_id(session)
            out.append(
                {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": called if isinstance(called, str) else now(),
                    "message": {
                        "role": "toolResult",
                        "toolCallId": call_id,
                        "toolName": names.get(call_id, ""),
                        "content": [{"type": "text", "text": SYNTHETIC_RESULT}],
                        "isError": True,
                        "timestamp": called_ms if type(called_ms) is int else int(time.time() * 1000),
                    },
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
            "version": source.get("version", 3),
            "id": str(uuid.uuid4()),
            "timestamp": now(),
            "cwd": source.get("cwd", ""),
            "parentSession": os.path.abspath(session.path),
        }
        return fork_plan(
            session, entry, [(out, json_text.dumps(header).encode() + b"\n" + path_bytes(session, entry, insert))]
        )


FORM = PiForm()
