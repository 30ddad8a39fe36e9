"""`chat`, plain OpenAI chat JSONL (formats.md §2): one linear branch, no
leaf to move. Results are appended ``tool`` messages; going back before a
dangling call is a backed-up rewrite without it; a fork copies the prefix
into a new file with a ``.meta.json`` naming its source (the source's own
sidecar is left alone)."""

from __future__ import annotations

import os

import orjson

from ...model.session import Session
from ..plan import Plan
from ..session_store import now
from ..store import Fingerprint
from .base import SYNTHETIC_RESULT, Form, fork_path, fork_plan, path_bytes, trailing_dangling


class ChatForm(Form):
    name = "chat"

    def results(self, session: Session, owner: int, calls: list[str]) -> list[dict]:
        return [{"role": "tool", "tool_call_id": call_id, "content": SYNTHETIC_RESULT} for call_id in calls]

    def fork(self, session: Session, entry: int, out: str | None) -> Plan:
        out = out or fork_path(session.path)
        meta = {"parentId": os.path.basename(session.path)[: -len(".jsonl")], "forkedAt": now(),
                "parentLine": session.line_of(entry)}
        return fork_plan(session, entry, [(out, path_bytes(session, entry)),
                                          (out[: -len(".jsonl")] + ".meta.json",
                                           orjson.dumps(meta, option=orjson.OPT_INDENT_2) + b"\n")])

    def cut(self, session: Session, drop_torn: bool) -> Plan:
        owner, _ = trailing_dangling(session)
        start = session.lines.line_starts[session.tree.entry_line[owner]]
        with open(session.path, "rb") as f:
            keep = f.read(start)
        return Plan(session.path, f"remove the calling message (line {session.line_of(owner)}) and the results "
                    "after it", Fingerprint.of(session.path), rewrite=keep)


FORM = ChatForm()
