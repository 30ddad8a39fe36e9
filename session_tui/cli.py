"""Command line: ``session-tui [PATH]`` opens the TUI; ``session-tui check ...`` lints."""

from __future__ import annotations

import argparse
import os
import sys

from . import __version__

REDACT_HELP = (
    "replace each secret (API key, token, private key, password) by [REDACTED:<kind>:<first 8 hex of its "
    "sha256>]; the session file is not changed"
)
COMMANDS = ("check", "diff", "set-leaf", "fork", "fix", "clean", "export", "demo", "serve")


def build_parser() -> argparse.ArgumentParser:
    from .export import TARGETS
    from .model.formats import FORMATS

    parser = argparse.ArgumentParser(
        prog="session-tui",
        description="Browse, debug and repair AI-agent session logs (JSONL). "
        "`session-tui PATH` opens a session file, or the list of session files in a directory. "
        "Every PATH may be a URL (ssh://host/path, s3://bucket/prefix/): options for its back-end "
        "come from its usual places (~/.ssh/config, the AWS environment) and --storage-option KEY=VALUE.",
    )
    parser.add_argument("--version", action="version", version=f"session-tui {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    check = commands.add_parser(
        "check",
        help="lint session files: structure, branches, problems",
        description="Report format, entries, leaves, branch points, summaries, the active leaf and "
        "every problem of each session file. Exit status: 0 no problems, 1 problems found, "
        "2 a path unreadable or not a session.",
    )
    check.add_argument("paths", nargs="+", metavar="PATH", help="session files or directories (searched for *.jsonl)")
    check.add_argument("--json", action="store_true", help="one JSON object per file, one per line")
    check.add_argument("--format", choices=sorted(FORMATS), help="read as this format instead of detecting it")
    check.add_argument(
        "--secrets",
        action="store_true",
        help="also list the secrets in each file (API keys, tokens, private keys, passwords): line, entry, kind "
        "and a masked preview; any makes the exit status 1",
    )

    diff = commands.add_parser(
        "diff",
        help="two branches side by side from their fork point",
        description="Compare two branches of a session from the entry where they part: steps aligned, the same "
        "ones marked, a summary per side. Without LEAF_A/LEAF_B: the active leaf against the most "
        "recently written other leaf; with LEAF_A only: that one against the active (or the newest "
        "other) leaf. A leaf is an entry id, or a line number for formats without ids.",
        epilog="Exit status: 0 compared, 1 one branch only, 2 error.",
    )
    diff.add_argument("file", metavar="FILE")
    diff.add_argument("leaves", nargs="*", metavar="LEAF", help="LEAF_A [LEAF_B]")
    diff.add_argument("--json", action="store_true", help="fork point and both branches' entries as JSON")
    diff.add_argument("--format", choices=sorted(FORMATS), help="read as this format instead of detecting it")
    diff.add_argument("--redact", action="store_true", help=REDACT_HELP)

    edits_epilog = "Exit status: 0 done, 1 refused, 2 error."
    set_leaf = commands.add_parser(
        "set-leaf", help="make an entry the active leaf (tree: appends a pointer)", epilog=edits_epilog
    )
    set_leaf.add_argument("file", metavar="FILE")
    set_leaf.add_argument("entry", metavar="ENTRY", help="an entry id (or, without ids, its line number)")
    fork = commands.add_parser("fork", help="copy the path root → ENTRY into a new session file", epilog=edits_epilog)
    fork.add_argument("file", metavar="FILE")
    fork.add_argument("entry", metavar="ENTRY", help="an entry id (or, without ids, its line number)")
    fork.add_argument("-o", "--output", metavar="OUT", help="the new file (default: <stem>.fork-<n>.jsonl)")
    fork.add_argument("--redact", action="store_true", help=REDACT_HELP)
    fix = commands.add_parser(
        "fix",
        help="make a crashed session resumable: close or cut dangling calls, drop a torn last line or bad lines",
        description="Each repair asked for is done where it applies (one backed-up write each, in the order: bad "
        "lines, dangling calls, torn line) and reported as 'nothing to do' where it does not. Without "
        "an option: --close.",
        epilog="Exit status: 0 every repair asked for was done or had nothing to do, 1 one was refused, 2 error.",
    )
    fix.add_argument("file", metavar="FILE")
    how = fix.add_mutually_exclusive_group()
    how.add_argument(
        "--close",
        action="store_true",
        help="answer each dangling call with an error result: appended at the end of the branch; "
        "inside it, inserted after the call (chat, astorlm: a backed-up rewrite) or, where "
        "entries are linked by id, in a fork of the branch (this file is not changed)",
    )
    how.add_argument("--cut", action="store_true", help="go back to before the (first) dangling call")
    fix.add_argument("--drop-torn", action="store_true", help="save the torn last line aside and cut it")
    fix.add_argument(
        "--drop-bad",
        action="store_true",
        help="save the bad lines (NUL runs, invalid JSON or UTF-8, fused records) to <name>.bad-<UTC> "
        "and remove them (a backed-up rewrite); whole records found inside them are kept",
    )
    for sub in (set_leaf, fork, fix):
        sub.add_argument("--format", choices=sorted(FORMATS), help="read as this format instead of detecting it")
        sub.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
        sub.add_argument(
            "--force",
            action="store_true",
            help="write even if the file was written in the last --stuck-after seconds (an agent may be writing "
            "it; a call without a result may still be running)",
        )
    for sub in (check, set_leaf, fork, fix):
        _stuck_after_option(sub)

    clean = commands.add_parser(
        "clean",
        help="list and remove what edits left beside session files (backups, saved lines, locks)",
        description="Remove <name>.bak-<UTC> backups, <name>.bad-<UTC> and <name>.torn-<UTC> saved lines, "
        "<name>.lock files and the temp files of a rewrite that was killed, beside FILE or every session "
        "under DIR. Never a session file; a lock only when no edit holds it.",
        epilog="Exit status: 0 done, 2 error.",
    )
    clean.add_argument("paths", nargs="+", metavar="PATH", help="a session file, or a directory searched below")
    clean.add_argument("--older-than", metavar="AGE", help="only what was made AGE ago or earlier (7d, 12h, 30m)")
    clean.add_argument("--dry-run", action="store_true", help="list what would be removed, remove nothing")

    export = commands.add_parser(
        "export",
        help="write a branch, or the context at an entry, as Markdown, HTML or JSON",
        description="Export the active branch (or the path to --leaf, or with --context the messages the model "
        "would be sent at it) as Markdown, a self-contained HTML page or JSON.",
        epilog="Exit status: 0 done, 1 refused (OUT exists), 2 error.",
    )
    export.add_argument("file", metavar="FILE")
    export.add_argument(
        "--leaf",
        metavar="ID",
        help="the path root → this entry (an id, or a line number for formats without ids); default: the active leaf",
    )
    export.add_argument("--context", action="store_true", help="the context at the leaf, summaries applied")
    export.add_argument(
        "--model",
        metavar="PROVIDER/MODEL",
        help="with --context: the model it is resumed with, where that changes what is sent (pi sends the thinking "
        "of another provider's responses as text); default: the session's last model",
    )
    export.add_argument(
        "--to",
        required=True,
        choices=TARGETS,
        help="md, html or json (json: a list of the branch's records, or of context messages)",
    )
    export.add_argument("-o", "--output", metavar="OUT", help="write to this file (default: stdout)")
    export.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    export.add_argument("--format", choices=sorted(FORMATS), help="read as this format instead of detecting it")
    export.add_argument("--redact", action="store_true", help=REDACT_HELP)

    demo = commands.add_parser(
        "demo",
        help="watch a scripted agent write a session, with branches, a summary and a crash",
        description="A scripted agent (no model, no network) writes a native tree session through the store "
        "while the terminal UI is open on it: tool-calling turns, a branch, a summary, and a crash "
        "that leaves a dangling call and a torn line.",
    )
    demo.add_argument("directory", metavar="DIR", nargs="?", help="where to write demo.jsonl (default: a new temp dir)")
    demo.add_argument("--fast", action="store_true", help="write at full speed")
    demo.add_argument("--headless", action="store_true", help="do not open the UI; print the file's path")
    serve = commands.add_parser(
        "serve",
        help="the terminal UI in a web browser (textual-serve)",
        description="Serve the UI over HTTP: each browser tab runs `session-tui PATH`. "
        "Open the URL it prints: its token is required.",
    )
    serve.add_argument(
        "path", metavar="PATH", nargs="?", help="a session file or a directory (default: as `session-tui` without PATH)"
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, loopback only)")
    serve.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    serve.add_argument("--format", choices=sorted(FORMATS), help="read as this format instead of detecting it")
    serve.add_argument("--no-watch", action="store_true", help="do not follow changes to the file")
    serve.add_argument("--redact", action="store_true", help="mask secrets in the served UI")
    return parser


def run_edit(args) -> int:
    from .model.errors import SessionError
    from .model.sanitize import inert, inert_line
    from .model.session import open_session
    from .store import NothingToDo, Refused, WriteFailed, edits

    try:
        if args.command == "fix":
            return run_fix(args)
        with open_session(args.file, args.format) as session:
            if args.command == "set-leaf":
                plan = edits.plan_set_leaf(session, edits.resolve_entry(session, args.entry))
            else:
                plan = edits.plan_fork(session, edits.resolve_entry(session, args.entry), args.output)
        if getattr(args, "redact", False):
            plan = redacted_fork(plan, chosen=args.output is not None)
        print(inert(plan.preview()))
        if args.dry_run:
            return 0
        created = edits.apply(plan, force=args.force).created
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

    from .model.redact import Redactor, redacted_name

    redactor = Redactor()
    named = [(path if chosen else redacted_name(path), data) for path, data in plan.new_files]
    plan = replace(plan, new_files=[(path, redactor.file(path, data)) for path, data in named])
    print(f"redacted {redactor.count} secret{'s' if redactor.count != 1 else ''}", file=sys.stderr)
    return plan


def run_fix(args) -> int:
    """Each repair asked for, one after the other, each planned on the file
    as the previous one left it and written on its own (a kill between two
    leaves the file whole); exit 1 only if one was refused."""
    from .model.sanitize import inert
    from .model.session import open_session
    from .store import NothingToDo, Refused, WriteFailed, edits
    from .store.store import Fingerprint

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
            last = edits.apply(plan, force=args.force or recent)
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
    print("refused" if refused else "done")
    return 1 if refused else 0


def _reason(exc: Exception, path: str) -> str:
    return str(exc).removeprefix(f"{path}: ")


def _left_to_fix(path: str, format: str | None, dangling: bool = True) -> list[str]:
    """What `fix` could still repair in the file, with the option that does
    (``dangling``: the dangling calls too; not when a fork closed them)."""
    from .model.segment import LineKind
    from .model.session import open_session

    with open_session(path, format) as session:
        out = []
        bad = sum(1 for kind in session.lines.line_kinds if kind == LineKind.BAD)
        if bad:
            out.append(f"{bad} bad line(s): --drop-bad")
        calls = session.tool_issues()[0] if dangling else []
        if calls:
            client = getattr(session.format, "client", None) if session.format.fills_dangling else None
            out.append(
                f"{len(calls)} dangling call(s), the first on line {session.line_of(calls[0].entry)}"
                + (f" ({client} answers them itself on resume)" if client else ": --close or --cut")
            )
        if session.lines.torn:
            out.append("a torn last line: --drop-torn")
        return out


def run_export(args) -> int:
    from .export import export, save
    from .model.errors import SessionError
    from .model.sanitize import inert, inert_line
    from .model.session import open_session
    from .store import Refused
    from .store.edits import resolve_entry

    redactor = None
    if args.redact:
        from .model.redact import Redactor

        redactor = Redactor()
    try:
        with open_session(args.file, args.format) as session:
            session.resume_model = args.model
            leaf = resolve_entry(session, args.leaf) if args.leaf else None
            text = export(session, args.to, leaf, context=args.context, redact=redactor)
        if args.output is not None:
            save(args.output, text, force=args.force, source=args.file)
    except FileExistsError as exc:
        print(f"session-tui export: refused: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
        return 1
    except (SessionError, Refused) as exc:
        print(f"session-tui export: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"session-tui export: {inert_line(args.output or args.file)}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if redactor is not None:
        print(f"redacted {redactor.count} secret{'s' if redactor.count != 1 else ''}", file=sys.stderr)
    if args.output is None:
        sys.stdout.buffer.write(text.encode())
    else:
        print(f"wrote {inert(args.output, keep_newlines=False)}")
    return 0


def format_name(value: str) -> str:
    """``--format`` of the TUI: checked only when given (the format readers
    are not imported before the picker's first frame)."""
    from .model.formats import FORMATS

    if value not in FORMATS:
        raise argparse.ArgumentTypeError(f"unknown format {value!r} (choose from {', '.join(sorted(FORMATS))})")
    return value


def build_open_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="session-tui",
        usage="session-tui [-h] [--format FORMAT] [--no-watch] [FILE | DIR...] | session-tui COMMAND ...",
        description="Open a session file in the terminal UI, or the picker over every session file in the directories.",
    )
    parser.add_argument(
        "paths",
        metavar="PATH",
        nargs="*",
        help="a session file (*.jsonl), or directories for the picker (default: the known session "
        "folders that exist — ~/.claude/projects, ~/.codex/sessions, ~/.pi/agent/sessions — "
        "or ./sample_sessions)",
    )
    parser.add_argument("--format", type=format_name, help="read as this format instead of detecting it")
    parser.add_argument("--no-watch", action="store_true", help="do not follow changes to the file")
    parser.add_argument(
        "--redact",
        action="store_true",
        help="mask secrets (API keys, tokens, passwords) wherever session text is shown",
    )
    parser.add_argument(
        "--storage-option",
        metavar="KEY=VALUE",
        action="append",
        help="an option for a URL's back-end (e.g. client_keys=~/.ssh/id_ed25519, endpoint_url=http://…); "
        "any command takes it",
    )
    _stuck_after_option(parser)
    return parser


KNOWN_LOCATIONS = ("~/.claude/projects", "~/.codex/sessions", "~/.pi/agent/sessions")


def default_paths() -> list[str]:
    """The known session folders that exist, else ./sample_sessions."""
    found = [os.path.expanduser(p) for p in KNOWN_LOCATIONS if os.path.isdir(os.path.expanduser(p))]
    return found or (["sample_sessions"] if os.path.isdir("sample_sessions") else [])


def is_folder(path: str) -> bool:
    """A local directory, or a remote folder or prefix (raises SessionError)."""
    from .model.source import is_url

    if is_url(path):
        from .model import remote

        return remote.is_folder(path)
    return os.path.isdir(path)


def open_tui(paths: list[str], format: str | None, watch: bool, redact: bool = False) -> int:
    """A file opens its session view; directories open the picker over all of them."""
    from .model.errors import SessionError
    from .model.sanitize import inert

    if not paths:
        paths = default_paths()
        if not paths:
            print(
                "session-tui: no session folders found (~/.claude/projects, ~/.codex/sessions, "
                "~/.pi/agent/sessions); give a PATH",
                file=sys.stderr,
            )
            return 2
    from .model.source import is_url

    for path in paths:
        if not is_url(path) and not os.path.lexists(path):  # a broken symlink: the session says what is wrong
            print(f"session-tui: {inert(path, keep_newlines=False)}: no such file or directory", file=sys.stderr)
            return 2
    try:
        files = [p for p in paths if not is_folder(p)]
    except SessionError as exc:
        print(f"session-tui: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
        return 2
    if files and len(paths) > 1:
        print("session-tui: give one session file, or directories", file=sys.stderr)
        return 2
    if files:
        from .model.session import Session

        try:
            with Session(files[0], format) as probe:
                probe.detect()
        except SessionError as exc:
            print(f"session-tui: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
            return 2
    from .ui.app import SessionApp

    SessionApp(files[0] if files else paths, format, watch=watch, redact=redact).run()
    return 0


def take_storage_options(argv: list[str]) -> list[str]:
    """Remove ``--storage-option KEY=VALUE`` (any command, any place) from
    ``argv`` and give the options to the back-end of each URL in it. VALUE
    is JSON when it parses (``null``, ``2222``, ``true``, ``["a"]``), else text."""
    import json

    rest: list[str] = []
    options: dict[str, object] = {}
    args = iter(argv)
    for arg in args:
        if arg == "--storage-option" or arg.startswith("--storage-option="):
            item = arg.split("=", 1)[1] if "=" in arg else next(args, "")
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise UsageError(f"--storage-option takes KEY=VALUE, not {item!r}")
            try:
                options[key] = json.loads(value)
            except ValueError:
                options[key] = value
        else:
            rest.append(arg)
    if options:
        from .model import remote
        from .model.source import is_url

        for url in filter(is_url, rest):
            remote.configure(url, options)
    return rest


class UsageError(Exception):
    """A command line that cannot be run: one line, exit 2."""


def _hint(exc: Exception) -> str:
    """What the command line can do about a refusal: a live agent's is lifted by --force."""
    from .store import LiveWriter

    return "; wait, or write anyway with --force" if isinstance(exc, LiveWriter) else ""


def _stuck_after_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stuck-after",
        type=float,
        metavar="SECONDS",
        help="a call without a result is running while the file was written in the last SECONDS (or a writer "
        "holds it open), stuck after that; edits of a file written that recently need --force (default 300, "
        "or $SESSION_TUI_STUCK_AFTER)",
    )


def _use_stuck_after(args: argparse.Namespace) -> None:
    """--stuck-after for this run: one setting read by the model, the store and the UI."""
    from .model.live_state import STUCK_AFTER_ENV

    if getattr(args, "stuck_after", None) is not None:
        os.environ[STUCK_AFTER_ENV] = str(max(0.0, args.stuck_after))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        argv = take_storage_options(argv)
    except UsageError as exc:
        print(f"session-tui: {exc}", file=sys.stderr)
        return 2
    for stream in (sys.stdout, sys.stderr):  # what a terminal cannot show is escaped, never an error
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        if argv and (argv[0] in COMMANDS or argv[0] in ("-h", "--help", "--version")):
            args = build_parser().parse_args(argv)
            _use_stuck_after(args)
            if getattr(args, "redact", False) or getattr(args, "secrets", False):
                # every line printed masks secrets, file names and titles included (check --secrets: its report)
                from .model.sanitize import redact_shown

                redact_shown(True)
            if args.command == "export":
                return run_export(args)
            if args.command == "diff":
                if len(args.leaves) > 2:
                    print("session-tui diff: give at most two leaves", file=sys.stderr)
                    return 2
                from .diff import run_diff

                return run_diff(args.file, args.leaves, args.json, args.format, redact=args.redact)
            if args.command == "clean":
                from .clean import run_clean

                return run_clean(args.paths, args.older_than, args.dry_run)
            if args.command == "demo":
                from .demo import run_demo

                return run_demo(args.directory, fast=args.fast, headless=args.headless)
            if args.command == "serve":
                from .serve import run_serve

                return run_serve(args.path, args.host, args.port, args.format, not args.no_watch, args.redact)
            if args.command != "check":
                return run_edit(args)
            from .check import run_check

            return run_check(args.paths, as_json=args.json, format=args.format, secrets=args.secrets)
        args = build_open_parser().parse_args(argv)
        _use_stuck_after(args)
        return open_tui(args.paths, args.format, not args.no_watch, args.redact)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as exc:  # a bug: one line, never a traceback (SESSION_TUI_DEBUG=1 shows it)
        if os.environ.get("SESSION_TUI_DEBUG"):
            raise
        from .model.sanitize import inert_line

        print(f"session-tui: internal error: {type(exc).__name__}: {inert_line(exc)}", file=sys.stderr)
        return 2
