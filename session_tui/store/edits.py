"""Edits as plans: exactly which bytes are appended, removed or written,
computed from the model, shown for confirmation, then applied by the Store.

A plan records the file's fingerprint; applying it to a file that changed
since is refused (plan again).
"""

from __future__ import annotations

import os
import re
import time
import uuid
from dataclasses import dataclass, field

import orjson

from ..model import Session
from .session_store import now
from .store import Fingerprint, Refused, Store, create_exclusive, fsync_dir, utc_stamp

LEAF_CUSTOM_TYPE = "session-tui/leaf"
SYNTHETIC_RESULT = "error: no result recorded: the run stopped before the tool returned"


@dataclass
class Plan:
    path: str
    summary: str  # one line for people
    fingerprint: Fingerprint
    append: list[dict] = field(default_factory=list)  # records to append
    rewrite: bytes | None = None  # the whole new content (a backed-up rewrite)
    new_files: list[tuple[str, bytes]] = field(default_factory=list)  # forks: created, never overwritten
    drop_torn: bytes = b""  # the torn fragment to save aside and cut

    def preview(self) -> str:
        out = [self.summary]
        if self.drop_torn:
            out.append(f"save the torn fragment ({len(self.drop_torn)} bytes) to {os.path.basename(self.path)}"
                       f".torn-<UTC time>, then cut it from the file")
        for record in self.append:
            out.append("append: " + orjson.dumps(record).decode())
        if self.rewrite is not None:
            out.append(f"rewrite the file ({self.fingerprint.size:,} → {len(self.rewrite):,} bytes) "
                       "after a backup copy")
        for path, data in self.new_files:
            lines = data.count(b"\n")
            out.append(f"create {path} ({lines:,} lines)")
        return "\n".join(out)


WRITABLE = ("tree", "pi", "chat")  # formats whose write forms are implemented


def _fingerprint(session: Session) -> Fingerprint:
    """The file as the plan sees it; refuses formats it cannot write yet."""
    if session.format.name not in WRITABLE:
        raise Refused(f"{session.path}: editing {session.format.name} files is not supported yet (read-only)")
    return Fingerprint.of(session.path)


def resolve_entry(session: Session, ref: str) -> int:
    """An entry by id, or (formats without ids) by 1-based line number."""
    found = session.find(ref)
    if found is not None:
        return found
    if ref.isdigit():
        from bisect import bisect_left

        k = bisect_left(session.tree.entry_line, int(ref) - 1)
        if k < session.tree.count and session.tree.entry_line[k] == int(ref) - 1:
            return k
    raise Refused(f"{session.path}: no entry {ref!r}")


def _entry_id(session: Session) -> str:
    """A new id in the style of the format, unused in the file."""
    while True:
        candidate = uuid.uuid4().hex[:8] if session.format.name == "pi" else str(uuid.uuid4())
        if session.find(candidate) is None:
            return candidate


def _pi_time() -> int:
    return int(time.time() * 1000)


def _leaf_record(session: Session, target: int) -> dict:
    """The record that makes ``target`` the active leaf, in the form the
    format's own tool accepts on resume."""
    if session.format.linear:
        raise Refused(f"{session.path}: a {session.format.name} file is one linear branch: there is no leaf to "
                      "move in place; fork at that entry instead")
    target_id = session.record(target)["id"]
    if session.format.name == "tree":
        return {"type": "active_leaf", "activeLeafId": target_id, "createdAt": now()}
    if session.format.name == "pi":  # pi: whatever is last is the leaf; a custom entry is out of the context
        return {"type": "custom", "id": _entry_id(session), "parentId": target_id, "timestamp": now(),
                "customType": LEAF_CUSTOM_TYPE}
    raise Refused(f"{session.path}: a {session.format.name} file is one linear branch: there is no leaf to "
                  "move in place; fork at that entry instead")


def _result_records(session: Session, owner: int, calls: list[str]) -> list[dict]:
    """One synthetic error result per dangling call, chained after the leaf."""
    fmt = session.format.name
    names = {c.id: c.name for c in session.format.view(session.record(owner)).tool_calls}
    parent = session.record(session.active_leaf()).get("id") if fmt != "chat" else None
    out = []
    for call_id in calls:
        if fmt == "chat":
            out.append({"role": "tool", "tool_call_id": call_id, "content": SYNTHETIC_RESULT})
            continue
        entry_id = _entry_id(session)
        if fmt == "pi":
            out.append({"type": "message", "id": entry_id, "parentId": parent, "timestamp": now(),
                        "message": {"role": "toolResult", "toolCallId": call_id, "toolName": names.get(call_id, ""),
                                    "content": [{"type": "text", "text": SYNTHETIC_RESULT}], "isError": True,
                                    "timestamp": _pi_time()}})
        else:
            out.append({"type": "message", "id": entry_id, "parentId": parent, "createdAt": now(),
                        "message": {"role": "tool", "tool_call_id": call_id, "content": SYNTHETIC_RESULT}})
        parent = entry_id
    return out


# -- plans ----------------------------------------------------------------------
def plan_set_leaf(session: Session, entry: int) -> Plan:
    _fingerprint(session)  # refuses read-only formats first
    record = _leaf_record(session, entry)
    return Plan(session.path, f"make line {session.line_of(entry)} ({session.record(entry).get('id')}) the "
                "active leaf", _fingerprint(session), append=[record])


def fork_path(source: str) -> str:
    """``<stem>.fork-<n>.jsonl`` beside the source, the first that is free."""
    stem = source[: -len(".jsonl")] if source.endswith(".jsonl") else source
    stem = re.sub(r"\.fork-\d+$", "", stem)
    n = 1
    while os.path.lexists(f"{stem}.fork-{n}.jsonl"):
        n += 1
    return f"{stem}.fork-{n}.jsonl"


def plan_fork(session: Session, entry: int, out: str | None = None) -> Plan:
    _fingerprint(session)  # refuses read-only formats first
    out = out or fork_path(session.path)
    if os.path.lexists(out):
        raise Refused(f"{out}: already exists; not overwritten")
    path = session.tree.path_to(entry)
    body = b"".join(session.raw_line(session.tree.entry_line[e]) + b"\n" for e in path)
    files: list[tuple[str, bytes]] = []
    source = session.header or {}
    if session.format.name == "tree":
        header = {"type": "session", "version": 1, "id": str(uuid.uuid4()), "createdAt": now(),
                  "parentSession": {"id": source.get("id"), "path": os.path.abspath(session.path),
                                    "entryId": session.record(entry)["id"]}}
        for key in ("cwd", "model"):
            if key in source:
                header[key] = source[key]
        files.append((out, orjson.dumps(header) + b"\n" + body))
    elif session.format.name == "pi":  # pi's own /fork: the source path in the header
        header = {"type": "session", "version": source.get("version", 3), "id": str(uuid.uuid4()),
                  "timestamp": now(), "cwd": source.get("cwd", ""), "parentSession": os.path.abspath(session.path)}
        files.append((out, orjson.dumps(header) + b"\n" + body))
    else:
        files.append((out, body))
        meta = {"parentId": os.path.basename(session.path)[: -len(".jsonl")], "forkedAt": now(),
                "parentLine": session.line_of(entry)}
        files.append((out[: -len(".jsonl")] + ".meta.json", orjson.dumps(meta, option=orjson.OPT_INDENT_2) + b"\n"))
    return Plan(session.path, f"fork at line {session.line_of(entry)}: {len(path)} entries into {out}",
                _fingerprint(session), new_files=files)


def _trailing_dangling(session: Session):
    """The dangling calls of the crash shape (the last call-making message of
    the branch, with some results missing): (assistant entry, [call ids])."""
    dangling, _ = session.tool_issues()
    if not dangling:
        raise Refused(f"{session.path}: no dangling tool call: nothing to do")
    owners = {d.entry for d in dangling}
    leaf_path = session.active_path()
    last_owner = max(owners, key=leaf_path.index)
    after = leaf_path[leaf_path.index(last_owner) + 1:]
    if len(owners) > 1 or any(not (session.tree.shape[e] & 16) for e in after):  # 16: Shape.RESULT
        raise Refused(f"{session.path}: a dangling call in the middle of the branch (line "
                      f"{session.line_of(min(owners, key=leaf_path.index))}): cut or fork instead")
    return last_owner, [d.call_id for d in dangling if d.entry == last_owner]


def _with_torn(session: Session, plan: Plan, drop_torn: bool) -> Plan:
    if session.lines.torn:
        if not drop_torn:
            raise Refused(f"{session.path}: ends in a torn line; drop it first (--drop-torn)")
        plan.drop_torn = session.lines.torn
    return plan


def plan_close(session: Session, drop_torn: bool = False) -> Plan:
    _fingerprint(session)  # refuses read-only formats first
    owner, calls = _trailing_dangling(session)
    plan = Plan(session.path, f"close {len(calls)} dangling call(s) of line {session.line_of(owner)} with error "
                "results", _fingerprint(session), append=_result_records(session, owner, calls))
    return _with_torn(session, plan, drop_torn)


def plan_cut(session: Session, drop_torn: bool = False) -> Plan:
    _fingerprint(session)  # refuses read-only formats first
    owner, calls = _trailing_dangling(session)
    if not session.format.linear:
        up = session.tree.parent[owner]
        if up < 0:
            raise Refused(f"{session.path}: the dangling call is on the first entry: nothing to move back to")
        plan = Plan(session.path, f"move the active leaf back to line {session.line_of(up)}, before the call on "
                    f"line {session.line_of(owner)} (nothing is deleted)", _fingerprint(session),
                    append=[_leaf_record(session, up)])
        return _with_torn(session, plan, drop_torn)
    start = session.lines.line_starts[session.tree.entry_line[owner]]
    with open(session.path, "rb") as f:
        keep = f.read(start)
    return Plan(session.path, f"remove the calling message (line {session.line_of(owner)}) and the results after "
                "it", _fingerprint(session), rewrite=keep)


def plan_drop_torn(session: Session) -> Plan:
    _fingerprint(session)  # refuses read-only formats first
    if not session.lines.torn:
        raise Refused(f"{session.path}: no torn last line: nothing to do")
    return Plan(session.path, f"drop the torn last line (line {len(session.lines) + 1})", _fingerprint(session),
                drop_torn=session.lines.torn)


# -- applying -------------------------------------------------------------------
@dataclass
class Done:
    """What an applied plan did: enough to undo it."""

    plan: Plan
    created: list[str]  # forks, backups, saved fragments
    after: Fingerprint | None  # the file right after the edit (None: the edit left it alone)


def apply(plan: Plan, force: bool = False) -> Done:
    """Carry out ``plan``."""
    created = _apply(plan, force)
    changes_file = bool(plan.drop_torn or plan.append or plan.rewrite is not None)
    return Done(plan, created, Fingerprint.of(plan.path) if changes_file else None)


def plan_undo(done: Done) -> Plan:
    """Put the file back as it was before ``done`` (a backed-up rewrite),
    if nothing else changed it since. The old content is rebuilt only now:
    a rewrite's backup holds it; otherwise it is the file up to where the
    edit appended, plus any torn fragment it cut."""
    plan = done.plan
    if done.after is None:
        raise Refused("a fork is a file of its own: nothing to undo in the session (delete the fork if unwanted)")
    if plan.rewrite is not None:
        backup = next(p for p in done.created if ".bak-" in os.path.basename(p))
        with open(backup, "rb") as f:
            before = f.read()
    else:
        with open(plan.path, "rb") as f:
            before = f.read(plan.fingerprint.size - len(plan.drop_torn)) + plan.drop_torn
    return Plan(plan.path, f"undo: {plan.summary}", done.after, rewrite=before)


def _apply(plan: Plan, force: bool) -> list[str]:
    store = Store(plan.path, force=force)
    created: list[str] = []
    expected = plan.fingerprint
    if plan.drop_torn:
        with store.locked():
            store.check_quiet()
            store.verify(expected)
            saved = f"{plan.path}.torn-{utc_stamp()}"
            create_exclusive(saved, plan.drop_torn)
            created.append(saved)
            fd = os.open(plan.path, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0))
            try:
                os.ftruncate(fd, expected.size - len(plan.drop_torn))
                os.fsync(fd)
            finally:
                os.close(fd)
            fsync_dir(os.path.dirname(os.path.abspath(plan.path)))
        expected = Fingerprint.of(plan.path)
        store.force = True  # the file just changed: ours
    if plan.append:
        store.append_lines(plan.append, expected=expected)
    if plan.rewrite is not None:
        created.append(store.rewrite(plan.rewrite, expected=expected))
    for path, data in plan.new_files:
        create_exclusive(path, data)
        created.append(path)
    return created
