"""What every write form provides, and the parts they share.

A form knows how one format's own tool expects its file to change: the
record that moves the active leaf, the synthetic results that close
dangling calls, the files of a fork, and going back before a dangling
call (docs/formats.md#consequences-for-session-tui). It returns plans; the Store applies them.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from ...model.reading import json_text
from ...model.reading.segment import Shape
from ...model.session.context import tool_issues
from ...model.session.session import Session
from ...model.words import calls_without_result
from ..fingerprint import Fingerprint
from ..plan import Plan
from ..refusals import DanglingInside, NothingToDo, Refused

SYNTHETIC_RESULT = "error: no result recorded: the run stopped before the tool returned"


def new_id(session: Session, make: Callable[[], str] = lambda: str(uuid.uuid4())) -> str:
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


def path_bytes(
    session: Session,
    entry: int,
    insert: dict[int, list[dict[str, Any]]] | None = None,
    transform: Callable[[dict[str, Any], bool], dict[str, Any]] | None = None,
) -> bytes:
    """The records of the path root → ``entry``, one per line: verbatim,
    but for ``insert`` (path entry -> new records put right after it; the
    path's next entry is re-chained onto the last of them) and
    ``transform(record, copied)``, applied to every record when given
    (``copied``: from the source, not inserted)."""
    insert = insert or {}
    fmt = session.format
    out: list[bytes] = []
    chain_to: str | None = None
    for e in session.tree.path_to(entry):
        if chain_to is None and transform is None:
            out.append(session.raw_line(session.tree.entry_line[e]) + b"\n")
        else:
            record = session.record(e)
            if chain_to is not None and fmt.parent_key:  # chain_to is only set when there is one
                record[fmt.parent_key] = chain_to
                chain_to = None
            out.append(json_text.dumps(transform(record, True) if transform else record).encode() + b"\n")
        for record in insert.get(e, ()):
            out.append(json_text.dumps(transform(record, False) if transform else record).encode() + b"\n")
            chain_to = fmt.entry_id(record) if fmt.parent_key else None
    return b"".join(out)


def planned_on(session: Session) -> Fingerprint:
    """The file as the session read it, which a plan is made from: an edit
    is refused if it changed since, but for what an agent appended (a
    rewrite carries that over)."""
    identity = session.lines.identity
    return Fingerprint.as_read(
        session.path, session.lines.end + len(session.lines.torn), identity[1] if identity else None
    )


def read_as_indexed(session: Session, committed: int | None = None) -> bytes:
    """The file's first ``committed`` bytes (default: all its committed
    lines), refused unless the file is still the one the session read: the
    same file (device, inode), as long or, ending in a whole line, longer
    (what was appended is the rewrite's to carry over), the same torn
    fragment at its end (a fragment written on since may be a line someone
    was still writing). A plan built from an older read would drop or cut
    what was written since."""
    lines = session.lines
    committed = lines.end if committed is None else committed
    with open(session.path, "rb") as f:
        st = os.fstat(f.fileno())
        read = lines.end + len(lines.torn)
        grew_ok = st.st_size == read or (st.st_size > read and not lines.torn)
        same = lines.identity in (None, (st.st_dev, st.st_ino)) and grew_ok
        if same and lines.torn:
            same = os.pread(f.fileno(), len(lines.torn), lines.end) == lines.torn
        data = f.read(committed) if same else b""
    if not same:
        raise Refused(f"{session.path}: the file changed since it was read: reload it and plan again")
    return data


def spliced_bytes(
    session: Session,
    after: dict[int, list[bytes]] | None = None,
    replace: dict[int, bytes] | None = None,
    drop: set[int] | frozenset[int] = frozenset(),
    keep_torn: bool = True,
) -> bytes:
    """The file's bytes with new lines ``after`` committed lines (0-based
    line -> lines, without newlines), lines replaced and lines dropped;
    every other byte as it is, the torn tail kept unless ``keep_torn`` is
    false. The basis of every rewrite that edits lines in place."""
    after, replace = after or {}, replace or {}
    lines = session.lines
    data = read_as_indexed(session)
    starts = lines.line_starts
    out: list[bytes] = []
    for line in range(len(starts)):
        stop = starts[line + 1] if line + 1 < len(starts) else lines.end
        if line not in drop:
            piece = replace[line] + b"\n" if line in replace else data[starts[line] : stop]
            if line in after and not piece.endswith(b"\n"):  # a last record that lacked its newline
                piece += b"\n"
            out.append(piece)
        out.extend(new + b"\n" for new in after.get(line, ()))
    if keep_torn and lines.torn:
        out.append(lines.torn)
    return b"".join(out)


def fork_plan(session: Session, entry: int, files: list[tuple[str, bytes]]) -> Plan:
    """The plan that creates ``files`` (the session file first)."""
    return Plan(
        session.path,
        f"fork at line {session.line_of(entry)}: {len(session.tree.path_to(entry))} entries into {files[0][0]}",
        planned_on(session) if not session.remote else Fingerprint(0, 0, 0, ""),  # (only read there)
        new_files=files,
    )


def dangling_by_owner(session: Session) -> list[tuple[int, list[str]]]:
    """(calling entry, [dangling call ids]) along the active branch, root
    first; NothingToDo when every call is answered."""
    dangling, _ = tool_issues(session)
    if not dangling:
        raise NothingToDo(f"{session.path}: no dangling tool call: nothing to do")
    position = {e: k for k, e in enumerate(session.active_path())}
    owners: dict[int, list[str]] = {}
    for d in dangling:
        owners.setdefault(d.entry, []).append(d.call_id)
    return sorted(owners.items(), key=lambda item: position[item[0]])


def inside(session: Session, owner: int) -> DanglingInside:
    return DanglingInside(
        f"{session.path}: a dangling call in the middle of the branch (line "
        f"{session.line_of(owner)}), with later messages after it"
    )


def trailing_dangling(session: Session) -> tuple[int, list[str]]:
    """The dangling calls of the crash shape (the last call-making message of
    the branch, with some results missing): (assistant entry, [call ids])."""
    owners = dangling_by_owner(session)
    leaf_path = session.active_path()
    last_owner = owners[-1][0]
    after = leaf_path[leaf_path.index(last_owner) + 1 :]
    if len(owners) > 1 or any(not (session.tree.shape[e] & Shape.RESULT) for e in after):
        raise inside(session, owners[0][0])
    return owners[-1]


def with_torn(session: Session, plan: Plan, drop_torn: bool) -> Plan:
    """An append after a torn line needs the fragment cut first, if allowed."""
    if session.lines.torn:
        if not drop_torn:
            raise Refused(f"{session.path}: ends in a torn line; drop it first (--drop-torn)")
        read_as_indexed(session, 0)  # the fragment cut is the one read, and nothing follows it
        plan.drop_torn = session.lines.torn
    return plan


class Form:
    """The write form of one format. The defaults suit an append-only tree
    with a leaf record (tree, pi); other formats override what differs."""

    name = ""
    #: a session kept as rows of a database (opencode): edits change rows, not a file
    edits_rows = False
    #: (calling entry, dangling call ids) of the crash shape, or Refused
    trailing = staticmethod(trailing_dangling)

    def leaf_record(self, session: Session, target: int) -> dict[str, Any]:
        """The record that makes ``target`` the active leaf, in the form the
        format's own tool accepts on resume."""
        raise Refused(
            f"{session.path}: {self.name} files are one linear branch: there is no leaf to move in "
            "place; fork at that entry instead"
        )

    def results(
        self, session: Session, owner: int, calls: list[str], parent_id: str | None = None
    ) -> list[dict[str, Any]]:
        """One synthetic error result per dangling call of ``owner``, chained
        after the entry ``parent_id`` (default: the active leaf), to append."""
        raise NotImplementedError

    def answered_through(self, session: Session, path: Sequence[int], k: int) -> int:
        """The position on ``path`` after which results for the calls of
        ``path[k]`` go: past the results already there."""
        shape = session.tree.shape
        while k + 1 < len(path) and shape[path[k + 1]] & Shape.RESULT:
            k += 1
        return k

    def fork(
        self, session: Session, entry: int, out: str | None, insert: dict[int, list[dict[str, Any]]] | None = None
    ) -> Plan:
        """New files holding the path root → ``entry`` (``out``: the session
        file), with ``insert``'s records after their entries (``path_bytes``)."""
        raise NotImplementedError

    def close(self, session: Session, drop_torn: bool) -> Plan:
        """Answer the dangling calls: at the end of the branch by appending
        ``results`` (after cutting a torn line, if allowed); in the middle of
        it, as ``close_inside`` does."""
        try:
            owner, calls = self.trailing(session)
        except DanglingInside:
            return self.close_inside(session)
        plan = Plan(
            session.path,
            f"close {calls_without_result(len(calls))} of line {session.line_of(owner)} with error results",
            planned_on(session),
            append=self.results(session, owner, calls),
        )
        return with_torn(session, plan, drop_torn)

    def inserts(self, session: Session) -> tuple[Sequence[int], dict[int, list[dict[str, Any]]]]:
        """(the active path, path entry -> the results to put right after it)
        for every dangling call on the branch, each after its call and the
        results already there, chained on from there."""
        path = session.active_path()
        position = {e: k for k, e in enumerate(path)}
        insert: dict[int, list[dict[str, Any]]] = {}
        fmt = session.format
        for owner, calls in dangling_by_owner(session):
            after = path[self.answered_through(session, path, position[owner])]
            there = insert.setdefault(after, [])
            parent_id = fmt.entry_id(there[-1]) if there else fmt.entry_id(session.record(after))
            there.extend(self.results(session, owner, calls, parent_id))
        return path, insert

    def close_inside(self, session: Session) -> Plan:
        """A dangling call inside the branch, in a format whose entries are
        linked by id: the file is left as it is, and a fork of the branch
        gets the results right after each call, the later entries re-chained
        onto them."""
        path, insert = self.inserts(session)
        plan = self.fork(session, path[-1], None, insert=insert)
        calls = sum(map(len, insert.values()))
        first = session.line_of(min(insert, key=path.index))
        fills = session.format.fills_dangling
        plan.summary = (
            f"fork the branch with error results inserted for {calls_without_result(calls)}, the first after "
            f"line {first}, into {plan.new_files[0][0]}; this file is not changed"
            + (f" ({fills}: the fork makes the file itself whole)" if fills else "")
        )
        return plan

    def cut(self, session: Session, drop_torn: bool) -> Plan:
        """Go back to before the (first) dangling call: here, by moving the leaf."""
        owner, _ = dangling_by_owner(session)[0]
        up = session.tree.parent[owner]
        if up < 0:
            raise Refused(f"{session.path}: the dangling call is on the first entry: nothing to move back to")
        plan = Plan(
            session.path,
            f"move the active leaf back to line {session.line_of(up)}, before the call on "
            f"line {session.line_of(owner)} (nothing is deleted)",
            planned_on(session),
            append=[self.leaf_record(session, up)],
        )
        return with_torn(session, plan, drop_torn)

    def rewrite(
        self,
        session: Session,
        summary: str,
        fingerprint: Fingerprint,
        after: dict[int, list[bytes]] | None = None,
        replace: dict[int, bytes] | None = None,
        drop: set[int] | frozenset[int] = frozenset(),
    ) -> Plan:
        """A backed-up rewrite of the file with its lines edited
        (``spliced_bytes``); ``fingerprint`` was taken before reading."""
        return Plan(session.path, summary, fingerprint, rewrite=spliced_bytes(session, after, replace, drop))

    def drop_torn(self, session: Session) -> Plan:
        """Save the torn last line aside and cut it (the file has one)."""
        fingerprint = planned_on(session)
        read_as_indexed(session, 0)  # the fragment cut is the one read, and nothing follows it
        return Plan(
            session.path,
            f"drop the torn last line (line {len(session.lines) + 1})",
            fingerprint,
            drop_torn=session.lines.torn,
        )
