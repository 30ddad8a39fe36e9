"""`session-tui resume FILE`: how to continue a session at a leaf with its
own client; what must be written first, said, and written through the
store only when asked (``--write``, or ``--exec``); the command, printed or
run (``--exec``). ``--dry-run``: see ``dry_run``."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from typing import Any

from ..model.checked_paths import inside
from ..model.errors import SessionError
from ..model.formats.client import Client
from ..model.resume.plan import FORK, SET_LEAF, ResumePlan, ResumeRefused, plan_resume
from ..model.sanitize import inert_line, json_escape_invisible
from ..model.session.problems import ERROR, find_problems
from ..model.session.session import Session, open_session
from ..store import NothingToDo, Refused, WriteFailed, edits


@dataclass
class Resume:
    """A resume made ready: the file the client resumes and how."""

    client: Client
    file: str
    session_id: str
    cwd: str | None
    wrote: dict[str, str] | None  # {"kind": "fork"|"set-leaf", "path": …}
    summary: str | None  # what was (or would be) written, one line
    would_write: dict[str, str] | None = None  # as ``wrote``, when not asked to write

    @property
    def argv(self) -> list[str]:
        return self.client.argv(self.session_id, self.file)

    def as_json(self) -> dict[str, Any]:
        return {
            "client": self.client.name,
            "file": self.file,
            "wrote": self.wrote,
            "would_write": self.would_write,
            "session_id": self.session_id,
            "cwd": self.cwd or os.getcwd(),
            "argv": self.argv,
        }


def make_ready(
    session: Session, plan: ResumePlan, force: bool = False, write: bool = True, stuck_after: float | None = None
) -> Resume:
    """Carry out ``plan``'s write (a fork where the client looks, or pi's
    leaf move) through the store; the resume it leaves. ``write=False``:
    only what it would write (``would_write``; a fork's new id is drawn
    anew each time)."""
    client = plan.client
    if plan.write == FORK:
        try:
            store_plan = edits.plan_fork(session, plan.leaf, folder=plan.folder)  # (no folder made for a refused fork)
        except Refused as exc:  # (why a fork was wanted first: the fork's refusal alone misleads)
            raise Refused(f"{'; '.join(plan.reasons)}: {exc}" if plan.reasons else str(exc)) from None
        if plan.folder is not None and write:
            os.makedirs(plan.folder, mode=0o700, exist_ok=True)
        path, data = store_plan.new_files[0]
        if plan.folder is not None and inside(plan.folder, os.path.basename(path)) != os.path.realpath(path):
            raise ResumeRefused(f"{path}: not inside {plan.folder}: refused")
        fork_id = client.new_file_id(path, data)
        client.argv(fork_id, path)  # (refuses an id that is no UUID before anything is written)
        done = {"kind": FORK, "path": path}
        if not write:
            return Resume(client, path, fork_id, plan.cwd, None, store_plan.summary, done)
        edits.apply(store_plan, force=force, stuck_after=stuck_after)
        return Resume(client, path, fork_id, plan.cwd, done, store_plan.summary)
    own_id = plan.session_id or session.path
    if plan.write == SET_LEAF:
        store_plan = edits.plan_set_leaf(session, plan.leaf)
        done = {"kind": SET_LEAF, "path": session.path}
        if not write:
            return Resume(client, session.path, own_id, plan.cwd, None, store_plan.summary, done)
        edits.apply(store_plan, force=force, stuck_after=stuck_after)
        return Resume(client, session.path, own_id, plan.cwd, done, store_plan.summary)
    return Resume(client, session.path, plan.session_id or session.path, plan.cwd, None, None)


def repair(session: Session, force: bool, stuck_after: float | None = None) -> list[str]:
    """``--fix``: close the dangling calls and drop a torn last line, in
    place (a fork that closes a call inside the branch is refused: resume
    that fork instead); one line per write."""
    done = []
    for make in (
        lambda: edits.plan_close(session, drop_torn=bool(session.lines.torn)),
        lambda: edits.plan_drop_torn(session),
    ):
        try:
            store_plan = make()
        except NothingToDo:
            continue
        if store_plan.new_files:
            raise Refused(
                f"{session.path}: a call without result inside the branch: `fix --close` writes a fork that "
                "answers it; resume that fork"
            )
        edits.apply(store_plan, force=force, stuck_after=stuck_after)
        done.append(store_plan.summary)
        session.refresh()
    return done


def run_resume(args: Any, stuck_after: float | None = None) -> int:
    say = (lambda *_: None) if args.json else print
    try:
        with open_session(args.file, args.format) as session:
            if args.fix:
                for line in repair(session, args.force, stuck_after):
                    say(f"fixed: {inert_line(line)}")
            leaf = None if args.leaf is None else edits.resolve_entry(session, args.leaf)
            plan = plan_resume(session, leaf, os.environ)
            if not args.fix:
                for problem in find_problems(session):
                    if problem.severity == ERROR:
                        print(
                            f"warning: line {problem.line}: {inert_line(problem.message)} (--fix repairs it first)",
                            file=sys.stderr,
                        )
            ready = make_ready(session, plan, args.force, write=args.write or args.exec, stuck_after=stuck_after)
            _ = ready.argv  # (refuses an id that is no UUID, in one line)
    except (SessionError, ResumeRefused) as exc:
        print(f"session-tui resume: {inert_line(exc)}", file=sys.stderr)
        return 2
    except Refused as exc:
        print(f"session-tui resume: refused: {inert_line(exc)}", file=sys.stderr)
        return 1
    except (WriteFailed, OSError) as exc:
        print(f"session-tui resume: {inert_line(exc)}", file=sys.stderr)
        return 2
    for warning in plan.warnings:
        print(f"warning: {inert_line(warning)}", file=sys.stderr)
    if args.json:
        print(json_escape_invisible(json.dumps(ready.as_json(), ensure_ascii=False)))
    else:
        print(f"client: {ready.client.title}")
        for reason in plan.reasons:
            print(f"because: {inert_line(reason)}")
        if ready.wrote:
            print(f"wrote: {inert_line(ready.summary)}")
            print(f"wrote into: {inert_line(ready.wrote['path'])}")
        elif ready.would_write:
            print(f"would write: {inert_line(ready.summary)} (not written: --write writes it, --exec writes and runs)")
        else:
            print("wrote: nothing (the client continues there by itself)")
        print(f"directory: {inert_line(ready.cwd or os.getcwd())}")
        print(f"session: {inert_line(ready.session_id)}")
        print(f"run: {inert_line(shell_line(ready))}")
    if args.exec:
        return exec_client(ready)
    return 0


def shell_line(ready: Resume) -> str:
    command = shlex.join(ready.argv)
    return f"cd -- {shlex.quote(ready.cwd)} && {command}" if ready.cwd else command


def exec_client(ready: Resume) -> int:
    """Replace this process with the client, in the session's directory."""
    given = ready.argv  # (a relative path made absolute here, before the chdir)
    program = shutil.which(given[0])
    if program is None:
        print(f"session-tui resume: {given[0]} is not on PATH ({ready.client.title} not installed?)", file=sys.stderr)
        return 2
    if ready.cwd:
        try:
            os.chdir(ready.cwd)
        except OSError as exc:
            print(f"session-tui resume: cannot run in {inert_line(ready.cwd)}: {exc.strerror}", file=sys.stderr)
            return 2
    argv = [program, *given[1:]]
    print(f"running: {inert_line(shlex.join(argv))}", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(program, argv)
    return 0  # (not reached)
