"""The session store: a small API a harness uses to write native ``tree``
sessions safely (docs/formats.md#tree; docs/architecture.md#what-session-tui-is).

Every write goes through ``Store``: the writer lock, one ``write()`` per
record on ``O_APPEND`` and ``fsync``; a fork is a new file created
exclusively. The harness is the live writer, so its own appends skip the
"changed in the last 2 s" check that protects a running agent from edits.
"""

from __future__ import annotations

import enum
import os
import uuid
from datetime import UTC, datetime
from typing import Any

from ..model.errors import SessionError
from ..model.reading import json_text
from ..model.session.context import context_at
from ..model.session.session import Session
from .refusals import Refused
from .safe_files import create_exclusive
from .store import Store


class _Parent(enum.Enum):
    ACTIVE = enum.auto()  # the default parent: the active leaf


_ACTIVE = _Parent.ACTIVE


def now() -> str:
    """ISO 8601 UTC with milliseconds, as the format wants it."""
    stamp = datetime.now(UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


class TreeSessionStore:
    def __init__(self, path: str | os.PathLike[str]):
        self.path = os.fspath(path)
        self.store = Store(self.path, force=True)
        self.session = Session(self.path, "tree")
        self.session.refresh()

    # -- files --------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        path: str | os.PathLike[str],
        *,
        cwd: str | None = None,
        model: str | None = None,
        parent_session: dict[str, Any] | None = None,
    ) -> TreeSessionStore:
        """A new session file with its header; never replaces an existing file."""
        header: dict[str, Any] = {"type": "session", "version": 1, "id": str(uuid.uuid4()), "createdAt": now()}
        if cwd is not None:
            header["cwd"] = cwd
        if model is not None:
            header["model"] = model
        if parent_session is not None:
            header["parentSession"] = parent_session
        create_exclusive(os.fspath(path), json_text.dumps(header).encode() + b"\n")
        return cls(path)

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> TreeSessionStore:
        store = cls(path)
        if store.session.header is None and store.session.entries:
            raise SessionError(f"{store.path}: not a tree session (no header)")
        return store

    # -- reading ------------------------------------------------------------------
    def refresh(self) -> Session:
        self.session.refresh()
        return self.session

    def active_leaf_id(self) -> str | None:
        leaf = self.refresh().active_leaf()
        if leaf < 0:
            return None
        leaf_id: str = self.session.record(leaf)["id"]  # every tree entry has a string id
        return leaf_id

    def messages_for_active_branch(self) -> list[dict[str, Any]]:
        """The messages the model is sent from the active leaf (summaries applied)."""
        return context_at(self.refresh())

    # -- writing ------------------------------------------------------------------
    def _new_id(self) -> str:
        while True:
            candidate = str(uuid.uuid4())
            if self.session.find(candidate) is None:
                return candidate

    def _parent(self, parent: str | _Parent | None) -> str | None:
        if parent is _ACTIVE:
            return self.active_leaf_id()
        if parent is not None and self.refresh().find(parent) is None:
            raise Refused(f"{self.path}: no entry {parent!r} to append to")
        return parent

    def append_message(self, message: dict[str, Any], parent: str | _Parent | None = _ACTIVE) -> str:
        """Append an OpenAI chat message as an entry (default parent: the
        active leaf); it becomes the active leaf. Returns its id."""
        parent_id = self._parent(parent)
        entry_id = self._new_id()
        self.store.append_lines(
            [{"type": "message", "id": entry_id, "parentId": parent_id, "createdAt": now(), "message": message}]
        )
        return entry_id

    def append_summary(
        self,
        summary: str,
        from_id: str | None = None,
        to_id: str | None = None,
        tokens_before: int | None = None,
        tokens_after: int | None = None,
    ) -> str:
        """Append a summary entry as a child of the active leaf."""
        entry_id = self._new_id()
        record: dict[str, Any] = {
            "type": "summary",
            "id": entry_id,
            "parentId": self._parent(_ACTIVE),
            "createdAt": now(),
            "summary": summary,
        }
        for key, value in (
            ("fromId", from_id),
            ("toId", to_id),
            ("tokensBefore", tokens_before),
            ("tokensAfter", tokens_after),
        ):
            if value is not None:
                record[key] = value
        self.store.append_lines([record])
        return entry_id

    def set_active_leaf(self, entry_id: str) -> None:
        """Append an ``active_leaf`` pointer: nothing is rewritten."""
        if self.refresh().find(entry_id) is None:
            raise Refused(f"{self.path}: no entry {entry_id!r}")
        self.store.append_lines([{"type": "active_leaf", "activeLeafId": entry_id, "createdAt": now()}])

    def fork(self, entry_id: str, new_path: str | os.PathLike[str]) -> TreeSessionStore:
        """A new session file holding the path root → ``entry_id``, records
        copied verbatim, with a header naming its source (docs/formats.md#tree-forks)."""
        session = self.refresh()
        entry = session.find(entry_id)
        if entry is None:
            raise Refused(f"{self.path}: no entry {entry_id!r} to fork at")
        source_id = (session.header or {}).get("id")
        header = {
            "type": "session",
            "version": 1,
            "id": str(uuid.uuid4()),
            "createdAt": now(),
            "parentSession": {"id": source_id, "path": os.path.abspath(self.path), "entryId": entry_id},
        }
        for key in ("cwd", "model"):
            if session.header and key in session.header:
                header[key] = session.header[key]
        body = [session.raw_line(session.tree.entry_line[e]) + b"\n" for e in session.tree.path_to(entry)]
        create_exclusive(os.fspath(new_path), json_text.dumps(header).encode() + b"\n" + b"".join(body))
        return TreeSessionStore(new_path)
