"""`astorlm`, astorLM's ``<id>.jsonl`` + ``<id>.meta.json`` (docs/formats.md#astorlm,
docs/formats.md#consequences-for-session-tui). astorLM loads a session all or nothing (one unparsable line and it
starts over), so every change is a backed-up atomic rewrite of both files,
the messages first, then the meta with ``updatedAt`` = now; a torn last
line is always left out of the rewrite (saved aside, and in the backup).

* Close: after the assistant message whose ``tool_use`` blocks are
  unanswered, one ``user`` message of ``tool_result`` blocks with
  ``is_error`` (the shape astorLM's loop writes: one message answers every
  call); if a results message already answers some of them, the missing
  blocks are added to it instead.
* Cut: the calling message and what follows it are left out.
* Fork: a new ``<uuid>.jsonl`` + ``<uuid>.meta.json`` pair with
  ``parentId`` = the source id, messages copied verbatim, as astorLM's own
  ``fork`` does. One linear history per file: no leaf to move.
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

from ...model.reading import json_text
from ...model.reading.segment import Shape
from ...model.session.session import Session
from ...model.words import calls_without_result
from ..fingerprint import Fingerprint
from ..plan import Plan, Rewrite
from ..refusals import Refused
from .base import (
    SYNTHETIC_RESULT,
    Form,
    dangling_by_owner,
    fork_plan,
    path_bytes,
    planned_on,
    read_as_indexed,
    spliced_bytes,
)

# the meta is pretty-printed with 2 spaces and no final newline, as astorLM writes it (json_text, indent)


def _now_ms() -> int:
    return int(time.time() * 1000)


def _refuse_bad(session: Session) -> None:
    if session.bad:
        raise Refused(
            f"{session.path}: line {session.bad[0][0] + 1} is not a message (astorLM would load the "
            "session as empty): drop the bad lines first"
        )


def _committed(session: Session) -> bytes:
    """The file's complete lines, each ending in a newline."""
    _refuse_bad(session)
    data = read_as_indexed(session)
    return data + b"\n" if data and not data.endswith(b"\n") else data


def _meta_path(session: Session, path: str) -> str:
    """The ``.meta.json`` beside ``path`` (the astorlm format always names one)."""
    meta_path = session.format.sidecar_path(path)
    if meta_path is None:
        raise Refused(f"{path}: a {session.format.name} session has no meta file")
    return meta_path


def _rewrite(session: Session, summary: str, data: bytes, read_as: Fingerprint) -> Plan:
    """A rewrite of the messages to ``data``, then of the meta with
    ``updatedAt`` = now (``read_as``: the file's fingerprint, taken before
    ``data`` was read)."""
    meta_path = _meta_path(session, session.path)
    try:
        fingerprint = Fingerprint.of(meta_path)
    except FileNotFoundError:
        raise Refused(f"{meta_path}: missing: astorLM would not load this session") from None
    found = session.sidecar()
    if found is None:
        raise Refused(f"{meta_path}: not a JSON object: astorLM would not load this session")
    meta = {**found[1], "updatedAt": _now_ms()}
    return Plan(
        session.path,
        summary,
        read_as,
        rewrite=data,
        drop_torn=session.lines.torn,
        also=[Rewrite(meta_path, json_text.dumps(meta, indent=True).encode(), fingerprint)],
    )


class AstorlmForm(Form):
    name = "astorlm"

    def close(self, session: Session, drop_torn: bool) -> Plan:
        """Every dangling call on the branch, at its end or inside it: the
        results message right after the call takes the missing blocks, or a
        new one is put there."""
        _refuse_bad(session)
        fingerprint = planned_on(session)
        owners = dangling_by_owner(session)
        path = session.active_path()
        position = {e: k for k, e in enumerate(path)}
        replace: dict[int, bytes] = {}
        after: dict[int, list[bytes]] = {}
        for owner, calls in owners:
            blocks = [
                {"type": "tool_result", "tool_use_id": call_id, "content": SYNTHETIC_RESULT, "is_error": True}
                for call_id in calls
            ]
            k = position[owner]
            answer = path[k + 1] if k + 1 < len(path) else None
            if answer is not None and session.tree.shape[answer] & Shape.RESULT:  # it takes the others too
                record = session.record(answer)
                record["content"] = [*record["content"], *blocks]
                replace[session.tree.entry_line[answer]] = json_text.dumps(record).encode()
            else:
                record = {"role": "user", "content": blocks}
                if "id" in session.record(owner):
                    record = {"id": str(uuid.uuid4()), **record}
                after[session.tree.entry_line[owner]] = [json_text.dumps(record).encode()]
        n_calls = sum(len(c) for _, c in owners)
        where = (
            f"of line {session.line_of(owners[0][0])}"
            if len(owners) == 1
            else f"after lines {', '.join(str(session.line_of(o)) for o, _ in owners)}"
        )
        return self.rewrite(
            session, f"close {calls_without_result(n_calls)} {where} with error results", fingerprint, after, replace
        )

    def rewrite(
        self,
        session: Session,
        summary: str,
        fingerprint: Fingerprint,
        after: dict[int, list[bytes]] | None = None,
        replace: dict[int, bytes] | None = None,
        drop: set[int] | frozenset[int] = frozenset(),
    ) -> Plan:
        """Both files; the torn last line is left out (saved aside)."""
        return _rewrite(session, summary, spliced_bytes(session, after, replace, drop, keep_torn=False), fingerprint)

    def cut(self, session: Session, drop_torn: bool) -> Plan:
        owner, _ = dangling_by_owner(session)[0]
        start = session.lines.line_starts[session.tree.entry_line[owner]]
        fingerprint = planned_on(session)
        return _rewrite(
            session,
            f"remove the calling message (line {session.line_of(owner)}) and what follows it",
            _committed(session)[:start],
            fingerprint,
        )

    def drop_torn(self, session: Session) -> Plan:
        fingerprint = planned_on(session)
        return _rewrite(
            session, f"drop the torn last line (line {len(session.lines) + 1})", _committed(session), fingerprint
        )

    def fork(
        self, session: Session, entry: int, out: str | None, insert: dict[int, list[dict[str, Any]]] | None = None
    ) -> Plan:
        if out is not None and not out.endswith(".jsonl"):
            raise Refused(f"{out}: an astorlm session file is named <id>.jsonl")
        source = session.sidecar()
        source_meta = source[1] if source else {}
        source_id = source_meta.get("id") or os.path.basename(session.path)[: -len(".jsonl")]
        out = out or os.path.join(os.path.dirname(os.path.abspath(session.path)), f"{uuid.uuid4()}.jsonl")
        stamp = _now_ms()
        copied = {k: v for k, v in source_meta.items() if k not in ("id", "parentId", "createdAt", "updatedAt")}
        meta = {
            "id": os.path.basename(out)[: -len(".jsonl")],
            "parentId": source_id,
            "metadata": {},
            **copied,
            "createdAt": stamp,
            "updatedAt": stamp,
        }
        return fork_plan(
            session,
            entry,
            [
                (out, path_bytes(session, entry, insert)),
                (_meta_path(session, out), json_text.dumps(meta, indent=True).encode()),
            ],
        )


FORM = AstorlmForm()
