"""`gemini`: Gemini CLI 0.61 recordings, append only. A repair appends one
``{"$set": {"messages": [...]}}`` snapshot, the record Gemini CLI itself
writes to replace its conversation: every earlier byte stays, and the
client loads the snapshot as the conversation. ``fix`` (``--close``)
writes the one it resumes: the conversation without the ``user`` records
that repeat the function responses their ``gemini`` message already
carries (0.61 sends both and the API answers 400). A call Gemini CLI did
not finish is not in the file, so there is no call to close. A leaf move
is a fork (Gemini CLI resumes the end of the file): a new file of a header
and that same snapshot, of the conversation up to the leaf."""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime
from typing import Any

from ...model.formats.gemini.history import fold
from ...model.formats.gemini.reader import without_twice_sent
from ...model.reading import json_text
from ...model.session.session import Session
from ..plan import Plan
from ..refusals import NothingToDo, Refused
from .base import Form, fork_plan, planned_on, with_torn


class GeminiForm(Form):
    name = "gemini"

    def results(
        self, session: Session, owner: int, calls: list[str], parent_id: str | None = None
    ) -> list[dict[str, Any]]:
        raise Refused(f"{session.path}: Gemini CLI records a call only with its result: there is none to add")

    def fork(
        self, session: Session, entry: int, out: str | None, insert: dict[int, list[dict[str, Any]]] | None = None
    ) -> Plan:
        new_id = str(uuid.uuid4())
        now = datetime.now(UTC)
        name = f"session-{now.strftime('%Y-%m-%dT%H-%M')}-{new_id[:8]}.jsonl"
        out = out or os.path.join(os.path.dirname(os.path.abspath(session.path)), name)
        stamp = now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
        source = session.header or {}
        header = {"sessionId": new_id, "projectHash": source.get("projectHash", ""), "startTime": stamp}
        header |= {"lastUpdated": stamp, "kind": "main"}
        found = without_twice_sent(session, entry)  # (with them 0.61 answers 400, as on the original)
        messages = found[0] if found is not None else [record for _, record in fold(session, entry).messages.values()]
        data = b"".join(
            json_text.dumps(record).encode() + b"\n"
            for record in (header, {"$set": {"messages": messages, "lastUpdated": stamp}})
        )
        return fork_plan(session, entry, [(out, data)])

    def close(self, session: Session, drop_torn: bool) -> Plan:
        found = without_twice_sent(session)
        if found is None:
            raise NothingToDo(f"{session.path}: no function response Gemini CLI would send twice: nothing to do")
        messages, dropped = found
        plan = Plan(
            session.path,
            f"append a snapshot of the conversation without the {dropped} user record(s) of function responses "
            "that Gemini CLI 0.61 would send a second time",
            planned_on(session),
            append=[{"$set": {"messages": messages}}],
        )
        return with_torn(session, plan, drop_torn)

    def cut(self, session: Session, drop_torn: bool) -> Plan:
        raise Refused(f"{session.path}: Gemini CLI records no call without its result: nothing to cut back to")


FORM = GeminiForm()
