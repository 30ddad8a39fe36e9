"""`set-leaf`, `fork` and `fix`: each edit planned from the model, printed,
then applied through the store."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..model.session.context import tool_issues

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings


def run_edit(args: argparse.Namespace, settings: Settings) -> int:
    from ..model.errors import SessionError
    from ..model.sanitize import inert, inert_line
    from ..model.session.session import open_session
    from ..store import NothingToDo, Refused, WriteFailed, edits

    try:
        if args.command == "fix":
            return run_fix(args, settings)
        with open_session(args.file, args.format) as session:
            if args.command == "set-leaf":
                plan = edits.plan_set_leaf(session, edits.resolve_entry(session, args.entry))
            else:
                plan = edits.plan_fork(session, edits.resolve_entry(session, args.entry), args.output)
        if args.command == "fork" and settings.redact:
            plan = redacted_fork(plan, chosen=args.output is not None)
        print(inert(plan.preview()))
        if args.dry_run:
            return 0
        created = edits.apply(plan, force=args.force, stuck_after=settings.stuck_after).created
    except SessionError as exc:
        print(f"session-tui {args.command}: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
        return 2
    except NothingToDo as exc:  # (set-leaf on the active leaf)
        print(inert(str(exc), keep_newlines=False))
        return 0
    except Refused as exc:
        print(
            f"session-tui {args.command}: refused: {inert(str(exc), keep_newlines=False)}{_hint(exc)}", file=sys.stderr
        )
        return 1
    except WriteFailed as exc:
        print(f"session-tui {args.command}: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
        return 2
    except OSError as exc:  # e.g. no permission to write, a full disk
        print(
            f"session-tui {args.command}: {inert_line(exc.filename or args.file)}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    for path in created:
        print(f"wrote {inert(path, keep_newlines=False)}")
    print("done")
    return 0


def redacted_fork(plan, chosen: bool = False):
    """The fork's new files with each secret replaced by its mark (the
    source is only read), and in their names unless ``chosen`` (-o); how
    many, on stderr."""
    from dataclasses import replace

    from ..model.privacy.redact import Redactor, redacted_name

    redactor = Redactor()
    named = [(path if chosen else redacted_name(path), data) for path, data in plan.new_files]
    plan = replace(plan, new_files=[(path, redactor.file(path, data)) for path, data in named])
    print(f"redacted {redactor.count} secret{'s' if redactor.count != 1 else ''}", file=sys.stderr)
    return plan


def run_fix(args: argparse.Namespace, settings: Settings) -> int:
    """Each repair asked for, one after the other, each planned on the file
    as the previous one left it and written on its own (a kill between two
    leaves the file whole); exit 1 only if one was refused."""
    from ..model.errors import SessionError
    from ..model.sanitize import inert
    from ..model.session.session import open_session
    from ..store import Fingerprint, NothingToDo, Refused, WriteFailed, edits

    close = args.close or not (args.cut or args.drop_torn or args.drop_bad)
    parts = [
        ("drop-bad", args.drop_bad, lambda s: edits.plan_drop_bad(s)),
        ("cut", args.cut, lambda s: edits.plan_cut(s, args.drop_torn)),
        ("close", close, lambda s: edits.plan_close(s, args.drop_torn)),
        ("drop-torn", args.drop_torn, lambda s: edits.plan_drop_torn(s)),
    ]
    refused, ours, torn_done, fork, changes = False, None, False, None, False
    for name, wanted, make in parts:
        if not wanted or (name == "drop-torn" and torn_done):
            continue
        if args.dry_run and changes:  # planned on a file an earlier part changes first: not shown
            print(f"{name}: planned after the parts above have changed the file (not previewed in a dry run)")
            continue
        try:
            with open_session(args.file, args.format) as session:
                plan = make(session)
            print(f"{name}: " + inert(plan.preview()))
            changes = changes or bool(plan.rewrite is not None or plan.append or plan.drop_torn)
            if args.dry_run:
                continue
            recent = ours is not None and ours == Fingerprint.of(args.file)  # our own write a moment ago
            last = edits.apply(plan, force=args.force or recent, stuck_after=settings.stuck_after)
            ours = last.after or ours
        except NothingToDo as exc:
            print(f"{name}: {inert(_reason(exc, args.file), keep_newlines=False)}")
            continue
        except Refused as exc:
            print(
                f"session-tui fix: {name}: refused: {inert(_reason(exc, args.file), keep_newlines=False)}{_hint(exc)}",
                file=sys.stderr,
            )
            refused = True
            continue
        except SessionError as exc:  # a bad path, not a session: one line, as every verb says it
            print(f"session-tui fix: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
            return 2
        except WriteFailed as exc:  # the system refused the write: the parts after it are not tried
            print(f"session-tui fix: {name}: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
            return 2
        except OSError as exc:
            where = inert(str(exc.filename or args.file), keep_newlines=False)
            print(f"session-tui fix: {name}: {where}: {exc.strerror or exc}; nothing was changed", file=sys.stderr)
            return 2
        torn_done = torn_done or bool(plan.drop_torn)
        for path in last.created:
            print(f"wrote {inert(path, keep_newlines=False)}")
        if plan.new_files:
            fork = last.created[0]
    if not args.dry_run:
        for note in _left_to_fix(args.file, args.format, dangling=fork is None):
            print(f"left in this file: {note}")
    if fork:
        print(f"resume the fork: {inert(fork, keep_newlines=False)}")
    if args.dry_run:  # (a dry run never says done: nothing was)
        print(f"{'refused · ' if refused else ''}dry run: nothing was changed")
    else:
        print("refused" if refused else "done")
    return 1 if refused else 0


def _reason(exc: Exception, path: str) -> str:
    return str(exc).removeprefix(f"{path}: ")


def _left_to_fix(path: str, format: str | None, dangling: bool = True) -> list[str]:
    """What `fix` could still repair in the file, with the option that does
    (``dangling``: the dangling calls too; not when a fork closed them)."""
    from ..model.reading.segment import LineKind
    from ..model.session.session import open_session

    with open_session(path, format) as session:
        out = []
        bad = sum(1 for kind in session.lines.line_kinds if kind == LineKind.BAD)
        if bad:
            out.append(f"{bad} bad line(s): --drop-bad")
        calls = tool_issues(session)[0] if dangling else []
        if calls:
            client = getattr(session.format, "client", None) if session.format.fills_dangling else None
            out.append(
                f"{len(calls)} dangling call(s), the first on line {session.line_of(calls[0].entry)}"
                + (f" ({client} answers them itself on resume)" if client else ": --close or --cut")
            )
        if session.lines.torn:
            out.append("a torn last line: --drop-torn")
        return out


def _hint(exc: Exception) -> str:
    """What the command line can do about a refusal: a live agent's is lifted by --force."""
    from ..store import LiveWriter

    return "; wait, or write anyway with --force" if isinstance(exc, LiveWriter) else ""
