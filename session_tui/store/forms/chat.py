"""`chat`, plain OpenAI chat JSONL (docs/formats.md#chat): one linear branch, no
leaf to move. Results are appended ``tool`` messages; going back before a
dangling call is a backed-up rewrite without it; a fork copies the prefix
into a new file with a ``.meta.json`` naming its source (the source's own
sidecar is left alone)."""

from __future__ import annotations

import os
from typing import Any

from ...model.reading import json_text
from ...model.session.session import Session
from ...model.words import calls_without_result
from ..plan import Plan
from ..session_store import now
from .base import (
    SYNTHETIC_RESULT,
    Form,
    dangling_by_owner,
    fork_path,
    fork_plan,
    path_bytes,
    planned_on,
    read_as_indexed,
)


class ChatForm(Form):
    name = "chat"

    def results(
        self, session: Session, owner: int, calls: list[str], parent_id: str | None = None
    ) -> list[dict[str, Any]]:
        return [{"role": "tool", "tool_call_id": call_id, "content": SYNTHETIC_RESULT} for call_id in calls]

    def close_inside(self, session: Session) -> Plan:
        """One branch per file: the results go right after each call (and the
        results already there), by a backed-up rewrite."""
        fingerprint = planned_on(session)
        path, insert = self.inserts(session)
        after = {
            session.tree.entry_line[e]: [json_text.dumps(r).encode() for r in records] for e, records in insert.items()
        }
        first = session.line_of(min(insert, key=path.index))
        return self.rewrite(
            session,
            f"insert error results for {calls_without_result(sum(map(len, insert.values())))}, "
            f"the first after line {first}",
            fingerprint,
            after,
        )

    def fork(
        self, session: Session, entry: int, out: str | None, insert: dict[int, list[dict[str, Any]]] | None = None
    ) -> Plan:
        out = out or fork_path(session.path)
        meta = {
            "parentId": os.path.basename(session.path)[: -len(".jsonl")],
            "forkedAt": now(),
            "parentLine": session.line_of(entry),
        }
        return fork_plan(
            session,
            entry,
            [
                (out, path_bytes(session, entry, insert)),
                (out[: -len(".jsonl")] + ".meta.json", json_text.dumps(meta, indent=True).encode() + b"\n"),
            ],
        )

    def cut(self, session: Session, drop_torn: bool) -> Plan:
        owner, _ = dangling_by_owner(session)[0]
        fingerprint = planned_on(session)
        start = session.lines.line_starts[session.tree.entry_line[owner]]
        keep = read_as_indexed(session, start)
        after = len(session.lines) - session.tree.entry_line[owner] - 1
        return Plan(
            session.path,
            f"remove the calling message (line {session.line_of(owner)}) and the {after} "
            "line(s) after it (kept in the backup)",
            fingerprint,
            rewrite=keep,
        )


FORM = ChatForm()
