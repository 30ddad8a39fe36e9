"""What every write form provides, and the parts they share.

A form knows how one format's own tool expects its file to change: the
record that moves the active leaf, the synthetic results that close
dangling calls, the files of a fork, and going back before a dangling
call (formats.md §10). It returns plans; the Store applies them.
"""

from __future__ import annotations

import os
import re
import uuid

from ...model.segment import Shape
from ...model.session import Session
from ..plan import Plan
from ..store import Fingerprint, Refused

SYNTHETIC_RESULT = "error: no result recorded: the run stopped before the tool returned"


def new_id(session: Session, make=lambda: str(uuid.uuid4())) -> str:
    """A new entry id from ``make``, unused in the file."""
    while True:
        candidate = make()
        if session.find(candidate) is None:
            return candidate


def fork_path(source: str) -> str:
    """``<stem>.fork-<n>.jsonl`` beside the source, the first that is free."""
    stem = source[: -len(".jsonl")] if source.endswith(".jsonl") else source
    stem = re.sub(r"\.fork-\d+$", "", stem)
    n = 1
    while os.path.lexists(f"{stem}.fork-{n}.jsonl"):
        n += 1
    return f"{stem}.fork-{n}.jsonl"


def path_bytes(session: Session, entry: int) -> bytes:
    """The records of the path root → ``entry``, verbatim, one per line."""
    return b"".join(session.raw_line(session.tree.entry_line[e]) + b"\n" for e in session.tree.path_to(entry))


def fork_plan(session: Session, entry: int, files: list[tuple[str, bytes]]) -> Plan:
    """The plan that creates ``files`` (the session file first)."""
    return Plan(session.path, f"fork at line {session.line_of(entry)}: {len(session.tree.path_to(entry))} entries "
                f"into {files[0][0]}", Fingerprint.of(session.path), new_files=files)


def trailing_dangling(session: Session) -> tuple[int, list[str]]:
    """The dangling calls of the crash shape (the last call-making message of
    the branch, with some results missing): (assistant entry, [call ids])."""
    dangling, _ = session.tool_issues()
    if not dangling:
        raise Refused(f"{session.path}: no dangling tool call: nothing to do")
    owners = {d.entry for d in dangling}
    leaf_path = session.active_path()
    last_owner = max(owners, key=leaf_path.index)
    after = leaf_path[leaf_path.index(last_owner) + 1:]
    if len(owners) > 1 or any(not (session.tree.shape[e] & Shape.RESULT) for e in after):
        raise Refused(f"{session.path}: a dangling call in the middle of the branch (line "
                      f"{session.line_of(min(owners, key=leaf_path.index))}): cut or fork instead")
    return last_owner, [d.call_id for d in dangling if d.entry == last_owner]


def with_torn(session: Session, plan: Plan, drop_torn: bool) -> Plan:
    """An append after a torn line needs the fragment cut first, if allowed."""
    if session.lines.torn:
        if not drop_torn:
            raise Refused(f"{session.path}: ends in a torn line; drop it first (--drop-torn)")
        plan.drop_torn = session.lines.torn
    return plan


class Form:
    """The write form of one format. The defaults suit an append-only tree
    with a leaf record (tree, pi); other formats override what differs."""

    name = ""
    #: (calling entry, dangling call ids) of the crash shape, or Refused
    trailing = staticmethod(trailing_dangling)

    def leaf_record(self, session: Session, target: int) -> dict:
        """The record that makes ``target`` the active leaf, in the form the
        format's own tool accepts on resume."""
        raise Refused(f"{session.path}: {self.name} files are one linear branch: there is no leaf to move in "
                      "place; fork at that entry instead")

    def results(self, session: Session, owner: int, calls: list[str]) -> list[dict]:
        """One synthetic error result per dangling call of ``owner``, to append."""
        raise NotImplementedError

    def fork(self, session: Session, entry: int, out: str | None) -> Plan:
        """New files holding the path root → ``entry`` (``out``: the session file)."""
        raise NotImplementedError

    def close(self, session: Session, drop_torn: bool) -> Plan:
        """Answer the dangling calls at the end of the branch: here, by
        appending ``results`` (after cutting a torn line, if allowed)."""
        owner, calls = self.trailing(session)
        plan = Plan(session.path, f"close {len(calls)} dangling call(s) of line {session.line_of(owner)} with error "
                    "results", Fingerprint.of(session.path), append=self.results(session, owner, calls))
        return with_torn(session, plan, drop_torn)

    def cut(self, session: Session, drop_torn: bool) -> Plan:
        """Go back to before the dangling call: here, by moving the leaf."""
        owner, _ = self.trailing(session)
        up = session.tree.parent[owner]
        if up < 0:
            raise Refused(f"{session.path}: the dangling call is on the first entry: nothing to move back to")
        plan = Plan(session.path, f"move the active leaf back to line {session.line_of(up)}, before the call on "
                    f"line {session.line_of(owner)} (nothing is deleted)", Fingerprint.of(session.path),
                    append=[self.leaf_record(session, up)])
        return with_torn(session, plan, drop_torn)

    def drop_torn(self, session: Session) -> Plan:
        """Save the torn last line aside and cut it (the file has one)."""
        return Plan(session.path, f"drop the torn last line (line {len(session.lines) + 1})",
                    Fingerprint.of(session.path), drop_torn=session.lines.torn)
