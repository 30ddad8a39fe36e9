"""Edits as plans: exactly which bytes are appended, removed or written,
computed from the model, shown for confirmation, then applied by the Store.

What a plan writes is the format's own form (``forms``, picked by
``session.format.name``); this module plans, applies and undoes. A plan
records the file's fingerprint; applying it to a file that changed since
is refused (plan again).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from ..model.reading import json_text
from ..model.reading.archived import archive_refusal
from ..model.reading.segment import LineKind
from ..model.reading.source import is_url
from ..model.session.search import entry_at_line
from ..model.session.session import Session
from ..model.words import plural
from .fingerprint import Fingerprint
from .forms import FORMS
from .forms.base import SYNTHETIC_RESULT, Form, planned_on
from .plan import Plan, Rewrite
from .refusals import NothingToDo, Refused, WriteFailed
from .safe_files import create_exclusive, open_nofollow, utc_stamp
from .salvage import salvage, saved_line
from .store import Store

__all__ = [
    "SYNTHETIC_RESULT",
    "WRITABLE",
    "Done",
    "Plan",
    "apply",
    "plan_close",
    "plan_cut",
    "plan_drop_bad",
    "plan_drop_torn",
    "plan_fork",
    "plan_set_leaf",
    "plan_undo",
    "resolve_entry",
]

WRITABLE = tuple(FORMS)  # formats whose write forms are implemented


def form_of(session: Session) -> Form:
    """The write form of the session's format; refuses read-only formats."""
    form = FORMS.get(session.format.name)
    if form is None:
        raise Refused(f"{session.path}: editing {session.format.name} files is not supported yet (read-only)")
    reason = session.format.read_only(session)
    if len(session.files) > 1 and not form.edits_rows:
        reason = f"a session written over {len(session.files)} files (a Codex thread with rewinds) is read-only here"
    if reason:
        raise Refused(f"{session.path}: {reason}; nothing was changed")
    return form


def resolve_entry(session: Session, ref: str) -> int:
    """An entry by id, by ``L<line>`` (the entry on that 1-based line), or
    (formats without ids) by 1-based line number; a linear file whose
    records carry ids (astorlm) is searched for it."""
    found = session.find(ref)
    if found is not None:
        return found
    if ref[:1] in "Ll" and ref[1:].isdigit():
        on_line = entry_at_line(session, int(ref[1:]) - 1)
        if on_line is not None:
            return on_line
        raise Refused(f"{session.path}: line {ref[1:]} is not an entry")
    if ref.isdigit():
        on_line = entry_at_line(session, int(ref) - 1)
        if on_line is not None:
            return on_line
    elif session.format.linear:
        for entry in range(session.tree.count):
            if session.format.entry_id(session.record(entry)) == ref:
                return entry
    raise Refused(f"{session.path}: no entry {ref!r}")


# -- plans ----------------------------------------------------------------------
def plan_set_leaf(session: Session, entry: int) -> Plan:
    form = form_of(session)
    if entry == session.active_leaf():  # another pointer to it would draw a fork that is not there
        raise NothingToDo(f"{session.path}: line {session.line_of(entry)} is already the active leaf: nothing to do")
    record = form.leaf_record(session, entry)
    return Plan(
        session.path,
        f"make line {session.line_of(entry)} ({session.record(entry).get('id')}) the active leaf",
        planned_on(session),
        append=[record],
    )


def plan_fork(session: Session, entry: int, out: str | None = None, folder: str | None = None) -> Plan:
    """A new session file holding the path root → ``entry``: at ``out``, or
    named as its client names a new session, beside the source or in
    ``folder`` (where the client looks for its sessions)."""
    if session.remote and (out is None or is_url(out)) and folder is None:
        archived = archive_refusal(session.path, "its fork is written here only with -o LOCAL_PATH")
        raise Refused(archived or f"{session.path}: a fork of a remote file is written here: give -o LOCAL_PATH")
    plan = form_of(session).fork(session, entry, out)
    if folder is not None and out is None:
        first, data = plan.new_files[0]
        moved = os.path.join(folder, os.path.basename(first))
        plan = replace(plan, summary=plan.summary.replace(first, moved), new_files=[(moved, data), *plan.new_files[1:]])
    for path, _ in plan.new_files:
        if os.path.lexists(path):
            raise Refused(f"{path}: already exists; not overwritten")
    return plan


def plan_close(session: Session, drop_torn: bool = False) -> Plan:
    return form_of(session).close(session, drop_torn)


def plan_cut(session: Session, drop_torn: bool = False) -> Plan:
    return form_of(session).cut(session, drop_torn)


def plan_drop_bad(session: Session) -> Plan:
    """Remove the bad lines (NUL runs, invalid JSON or UTF-8, fused records,
    non-objects) by a backed-up rewrite, each saved whole beside the file
    first (``<name>.bad-<UTC>``); the whole records a line still holds stay
    in its place (``salvage``)."""
    form = form_of(session)
    lines = session.lines
    bad = [line for line in range(len(lines)) if lines.line_kinds[line] == LineKind.BAD]
    if not bad:
        raise NothingToDo(f"{session.path}: no bad lines: nothing to do")
    fingerprint = planned_on(session)
    reasons = dict(session.bad)
    kept: dict[int, bytes] = {}
    saved = []
    for line in bad:  # only the bad lines are read here; the rewrite checks the file is the one indexed
        start = lines.line_starts[line]
        stop = lines.line_starts[line + 1] if line + 1 < len(lines) else lines.end
        raw = session.pread(stop - start, start).removesuffix(b"\n")  # exactly as on disk
        records = salvage(raw)
        if records and records != [raw.strip()]:  # (a record bad as a whole is no record to keep)
            kept[line] = b"\n".join(records)
        else:
            records = []
        saved.append(saved_line(line + 1, start, raw, reasons.get(line, "bad line"), len(records)))
    numbers = ", ".join(str(line + 1) for line in bad[:10]) + (" …" if len(bad) > 10 else "")
    summary = f"remove {plural(len(bad), 'bad line')} ({numbers})"
    if kept:
        n_kept = sum(piece.count(b"\n") + 1 for piece in kept.values())
        summary += (
            f", keeping the {n_kept} whole record(s) found in line(s) {', '.join(str(line + 1) for line in kept)}"
        )
    plan = form.rewrite(session, summary, fingerprint, replace=kept, drop=set(bad) - set(kept))
    plan.aside.append(("bad", b"".join(saved), f"the {len(bad)} bad line(s), whole, with their line numbers"))
    return plan


def plan_drop_torn(session: Session) -> Plan:
    form = form_of(session)
    if not session.lines.torn:
        raise NothingToDo(f"{session.path}: no torn last line: nothing to do")
    return form.drop_torn(session)


# -- applying -------------------------------------------------------------------
@dataclass
class Done:
    """What an applied plan did: enough to undo it."""

    plan: Plan
    created: list[str]  # forks, backups, saved fragments
    #: the file as the edit left it, up to the end of what the edit wrote (what others appended
    #: after that is not the edit's: an undo keeps it); None: the edit left the file alone
    after: Fingerprint | None
    also_after: list[Fingerprint] = field(default_factory=list)  # each of ``plan.also`` right after the edit
    appended_at: int | None = None  # an append: where its bytes start (an undo removes them, no more)


def apply(plan: Plan, force: bool = False, stuck_after: float | None = None) -> Done:
    """Carry out ``plan``."""
    return _apply(plan, force, stuck_after)


def _backup_of(done: Done, path: str) -> bytes:
    backup = next(p for p in done.created if p.startswith(path + ".bak-"))
    with open(backup, "rb") as f:
        return f.read()


def plan_undo(done: Done) -> Plan:
    """Put the file back as it was before ``done`` (a backed-up rewrite),
    if nothing else changed it since. The old content is rebuilt only now:
    a rewrite's backup holds it; otherwise it is the file up to where the
    edit appended, plus any torn fragment it cut. Other files the edit
    rewrote (astorlm's meta) are put back from their backups too."""
    plan = done.plan
    if plan.database is not None:
        raise Refused(f"{plan.database.db}: to undo, put back the backups the edit made ({', '.join(done.created)})")
    if done.after is None:
        raise Refused("a fork is a file of its own: nothing to undo in the session (delete the fork if unwanted)")
    if plan.rewrite is not None:
        before = _backup_of(done, plan.path)
    else:  # what was there before the appended bytes (a line another process wrote before them too)
        with open(plan.path, "rb") as f:
            before = f.read(plan.fingerprint.size if done.appended_at is None else done.appended_at)
    also = [
        Rewrite(other.path, _backup_of(done, other.path), after)
        for other, after in zip(plan.also, done.also_after, strict=True)
    ]
    return Plan(plan.path, f"undo: {plan.summary}", done.after, rewrite=before, also=also)


def _as_rewrite(plan: Plan) -> Plan:
    """A torn fragment is cut by a rewrite, never by truncating: a writer
    appending meanwhile would lose its lines to a truncate, while the
    rewrite copies them over. With records to append as well it is one
    backed-up rewrite: the old file or the new one, whatever happens."""
    if not plan.drop_torn or plan.rewrite is not None:
        return plan
    with os.fdopen(open_nofollow(plan.path, os.O_RDONLY), "rb") as f:
        body = f.read(plan.fingerprint.size - len(plan.drop_torn))  # the rewrite checks the file did not change
    added = b"".join(json_text.dumps(record).encode() + b"\n" for record in plan.append)
    return replace(plan, append=[], rewrite=body + added)


def _apply(plan: Plan, force: bool, stuck_after: float | None) -> Done:
    """Carry out ``plan`` (a torn tail's cut made a rewrite)."""
    if plan.database is not None:
        from .database_edit import apply_database_edit

        return Done(plan, apply_database_edit(plan.database), None)
    plan = _as_rewrite(plan)
    store = Store(plan.path, force=force, stuck_after=stuck_after)
    created: list[str] = []
    for other in plan.also:  # refuse before writing anything, not half way
        Store(other.path).verify(other.fingerprint)
    try:
        if plan.drop_torn or plan.aside:
            with store.locked():  # saved aside before the file changes: a kill in between loses nothing
                store.check_quiet()
                store.verify(plan.fingerprint, grown_ok=plan.rewrite is not None)
                store.note_forced()
                st = os.stat(plan.path)
                stamp = utc_stamp()
                saves = [(kind, data) for kind, data, _ in plan.aside]
                if plan.drop_torn:
                    saves.append(("torn", plan.drop_torn))
                for kind, data in saves:
                    saved = f"{plan.path}.{kind}-{stamp}"
                    create_exclusive(saved, data, owner=(st.st_uid, st.st_gid))
                    created.append(saved)
        after: Fingerprint | None = None
        appended_at = None
        if plan.append:
            appended = store.append_lines(plan.append, expected=plan.fingerprint)
            after, appended_at = appended.after, appended.start
        if plan.rewrite is not None:
            rewritten = store.rewrite(plan.rewrite, expected=plan.fingerprint)
            created.append(rewritten.backup)
            after = rewritten.after
    except BaseException as exc:  # the file is as it was: so is its folder (what was saved aside goes too)
        if not (isinstance(exc, WriteFailed) and exc.changed):
            for saved in created:
                os.unlink(saved)
        raise
    also_after = []
    for other in plan.also:
        rewritten = Store(other.path, force=force, stuck_after=stuck_after).rewrite(
            other.data, expected=other.fingerprint
        )
        created.append(rewritten.backup)
        also_after.append(rewritten.after)
    for path, data in plan.new_files:
        create_exclusive(path, data)
        created.append(path)
    return Done(plan, created, after, also_after, appended_at)
