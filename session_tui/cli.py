"""Command line: ``session-tui [PATH]`` opens the TUI; ``session-tui check ...`` lints."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from . import __version__

REDACT_HELP = (
    "replace each secret (API key, token, private key, password) by [REDACTED:<kind>:<first 8 hex of its "
    "sha256>]; the session file is not changed"
)
FORMAT_HELP = "read as this format instead of detecting it"
if TYPE_CHECKING:  # pragma: no cover
    from typing import TypeAlias

    Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]


def _format_option(parser: argparse.ArgumentParser) -> None:
    from .actions.choices import FORMAT_NAMES

    parser.add_argument("--format", choices=FORMAT_NAMES, help=FORMAT_HELP)


def _redact_option(parser: argparse.ArgumentParser, help: str = REDACT_HELP) -> None:
    parser.add_argument("--redact", action="store_true", help=help)


def _json_option(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--json", action="store_true", help=help)


def _edit_options(parser: argparse.ArgumentParser) -> None:
    """What every edit verb takes: the format, a dry run, --force, --stuck-after."""
    _format_option(parser)
    parser.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    parser.add_argument(
        "--force",
        action="store_true",
        help="write even if the file was written in the last --stuck-after seconds (an agent may be writing "
        "it; a call without a result may still be running)",
    )
    _stuck_after_option(parser)


def _add_check(commands: Commands) -> None:
    check = commands.add_parser(
        "check",
        help="lint session files: structure, branches, problems",
        description="Report format, entries, leaves, branch points, summaries, the active leaf and "
        "every problem of each session file. Exit status: 0 no problems, 1 problems found, "
        "2 a path unreadable or not a session.",
    )
    check.add_argument("paths", nargs="+", metavar="PATH", help="session files or directories (searched for *.jsonl)")
    _json_option(check, "one JSON object per file, one per line")
    _format_option(check)
    _redact_option(check)
    check.add_argument(
        "--secrets",
        action="store_true",
        help="also list the secrets in each file (API keys, tokens, private keys, passwords): line, entry, kind "
        "and a masked preview; any makes the exit status 1",
    )
    _stuck_after_option(check)


def _add_diff(commands: Commands) -> None:
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
    diff.add_argument("leaves", nargs="*", default=[], metavar="LEAF", help="LEAF_A [LEAF_B]")
    _json_option(diff, "fork point and both branches' entries as JSON")
    _format_option(diff)
    _redact_option(diff)


EDITS_EPILOG = "Exit status: 0 done, 1 refused, 2 error."


def _add_set_leaf(commands: Commands) -> None:
    set_leaf = commands.add_parser(
        "set-leaf", help="make an entry the active leaf (tree: appends a pointer)", epilog=EDITS_EPILOG
    )
    set_leaf.add_argument("file", metavar="FILE")
    set_leaf.add_argument("entry", metavar="ENTRY", help="an entry id (or, without ids, its line number)")
    _edit_options(set_leaf)


def _add_fork(commands: Commands) -> None:
    fork = commands.add_parser("fork", help="copy the path root → ENTRY into a new session file", epilog=EDITS_EPILOG)
    fork.add_argument("file", metavar="FILE")
    fork.add_argument("entry", metavar="ENTRY", help="an entry id (or, without ids, its line number)")
    fork.add_argument("-o", "--output", metavar="OUT", help="the new file (default: <stem>.fork-<n>.jsonl)")
    _redact_option(fork)
    _edit_options(fork)


def _add_fix(commands: Commands) -> None:
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
    _edit_options(fix)


def _add_resume(commands: Commands) -> None:
    resume = commands.add_parser(
        "resume",
        help="continue a session with its own client (Claude Code, Codex, pi) at a leaf; --dry-run proves it first",
        description="Say how to continue FILE at its client's own leaf, or at --leaf: the client, the directory, the "
        "session id and the command. Where the client would not continue at that leaf by itself, or would not "
        "find the file by its id, it says what the client needs written first (a fork with a new id in the "
        "client's sessions folder; pi: its leaf moved), and writes it, through the store, only with --write or "
        "--exec. --dry-run instead runs your "
        "installed client on a copy, against a fake model API on 127.0.0.1 in a throwaway home, and reports "
        "what it sends, whether the API would accept it and whether it agrees with session-tui's context.",
        epilog="Exit status: 0 ready (dry run: accepted), 1 refused (dry run: rejected), 2 error.",
    )
    resume.add_argument("file", metavar="FILE")
    resume.add_argument("--leaf", metavar="ID", help="an entry id the tree shows, or a line number L123")
    _json_option(resume, "one JSON object")
    resume.add_argument("--write", action="store_true", help="write what the client needs first; else only said")
    resume.add_argument("--exec", action="store_true", help="write that, then run the client in the session's dir")
    resume.add_argument("--fix", action="store_true", help="first close dangling calls and drop a torn last line")
    resume.add_argument("--dry-run", action="store_true", help="run your client on a copy against a fake API")
    resume.add_argument("--client-bin", metavar="PATH", help="the client's program (default: found on PATH)")
    resume.add_argument("--model", metavar="MODEL", help="dry run: resume with this model")
    resume.add_argument("--timeout", type=float, default=90.0, metavar="SECONDS", help="dry run: the client's limit")
    _format_option(resume)
    resume.add_argument("--force", action="store_true", help="write even if an agent may be writing the file")
    _stuck_after_option(resume)


def _add_live(commands: Commands) -> None:
    live = commands.add_parser(
        "live",
        help="every agent session written lately, live: working, tool, stuck, waiting, crashed, idle",
        description="One row per agent session written within --window under the folders (default: the known "
        "session folders), newest activity first, sub-agents under their session: its state, what it is doing, "
        "for how long, tokens, context fill, alerts. Enter opens a session, following it; n goes to the next that "
        "needs you; o opens the picker. --json prints NDJSON instead: a snapshot line per session, then a line per "
        "change.",
        epilog="Exit status: 0, 2 error.",
    )
    live.add_argument("paths", nargs="*", default=[], metavar="PATH", help="folders, session files or URLs")
    live.add_argument("--window", default="2h", help="sessions written within this (default 2h; 90s, 15m, 1d)")
    live.add_argument("--idle-after", default="15m", help="idle after this long with no write (default 15m)")
    _json_option(live, "NDJSON on stdout: no screen")
    _redact_option(live)
    live.add_argument(
        "--notify",
        action="store_true",
        help="alerts (stuck, crashed, error, context over 90%%, compaction) as a bell and a desktop notice "
        "(OSC 9 / OSC 777), at most one per session per minute",
    )
    _stuck_after_option(live)


def _add_search(commands: Commands) -> None:
    search = commands.add_parser(
        "search",
        help='search every session under the folders: words, "exact phrases", role:, tool:, error:, path:, …',
        description="Search the messages, thinking, tool calls and results of every session under the folders "
        "(default: the known session folders), through an index in the cache dir that is first brought up to "
        'date with the files. Words match ignoring case; a "quoted phrase" matches exactly. Filters: '
        "role:user|assistant|tool|summary, tool:NAME, error: (failed results), path:SUBSTRING (tool calls "
        "touching it), model:NAME, format:NAME, after:DATE, before:DATE, in:PATH, branch:active.",
        epilog="Exit status: 0 hits, 1 none, 2 error.",
    )
    search.add_argument("query", metavar="QUERY")
    search.add_argument("paths", nargs="*", default=[], metavar="PATH", help="folders, files or URLs")
    _json_option(search, "{hits, total, took_ms, indexed_files}")
    search.add_argument("--limit", type=int, default=20, help="hits shown (default 20)")
    _redact_option(search)


def _add_mcp(commands: Commands) -> None:
    mcp = commands.add_parser(
        "mcp",
        help="a Model Context Protocol server (stdio): agents search their own history",
        description="Serve the search, a session's context, branches, problems and usage to an MCP client "
        "(Claude Code, Codex, pi with an MCP extension) on stdin/stdout, read-only, each secret masked. A path a "
        "client gives must be inside the folders (default: the known session folders). Needs session-tui[mcp].",
    )
    mcp.add_argument("paths", nargs="*", default=[], metavar="PATH", help="the folders it reads")
    mcp.add_argument("--no-redact", action="store_true", help="return secrets as they are (no tool argument can)")


def _add_usage(commands: Commands) -> None:
    usage = commands.add_parser(
        "usage",
        help="tokens and cost of many sessions, by session, day, model or project",
        description="Tokens (uncached input, cache read, cache write, output) and cost of every session under "
        "the paths (default: the known session folders), each response counted once, every branch, sub-agents "
        "rolled up, priced per response by the genai-prices table (an unknown model is listed, never guessed).",
    )
    usage.add_argument("paths", nargs="*", default=[], metavar="PATH", help="session files or folders")
    usage.add_argument("--by", choices=("session", "day", "model", "project"), default="session")
    _json_option(usage, "{rows: [{key, input, output, …, cost_usd}], total}")
    _redact_option(usage)


def _add_compactions(commands: Commands) -> None:
    compacted = commands.add_parser(
        "compactions",
        help="each compaction of a session: its span, tokens before and after, what its summary dropped",
    )
    compacted.add_argument("file", metavar="FILE")
    _json_option(compacted, "[{line, entry, tokens_before, tokens_after, span, dropped}]")
    _format_option(compacted)
    _redact_option(compacted)


def _add_clean(commands: Commands) -> None:
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


def _add_export(commands: Commands) -> None:
    from .actions.choices import EXPORT_TARGETS

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
        choices=EXPORT_TARGETS,
        help="md, html or json (json: a list of the branch's records, or of context messages)",
    )
    export.add_argument("-o", "--output", metavar="OUT", help="write to this file (default: stdout)")
    export.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    _format_option(export)
    _redact_option(export)


def _add_demo(commands: Commands) -> None:
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


def _add_serve(commands: Commands) -> None:
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
    _format_option(serve)
    serve.add_argument("--no-watch", action="store_true", help="do not follow changes to the file")
    serve.add_argument("--redact", action="store_true", help="mask secrets in the served UI")


#: each verb and what adds its parser, in the order --help lists them
VERBS = {
    "check": _add_check,
    "diff": _add_diff,
    "set-leaf": _add_set_leaf,
    "fork": _add_fork,
    "fix": _add_fix,
    "resume": _add_resume,
    "live": _add_live,
    "search": _add_search,
    "usage": _add_usage,
    "compactions": _add_compactions,
    "clean": _add_clean,
    "export": _add_export,
    "demo": _add_demo,
    "serve": _add_serve,
    "mcp": _add_mcp,
}
COMMANDS = tuple(VERBS)


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The parser of every verb, or of ``verb`` alone (what a run of it
    needs: the others' parsers cost ~15 ms at every start)."""
    parser = argparse.ArgumentParser(
        prog="session-tui",
        description="Browse, debug and repair AI-agent session logs (JSONL). "
        "`session-tui PATH` opens a session file, or the list of session files in a directory. "
        "Every PATH may be a URL (ssh://host/path, s3://bucket/prefix/): options for its back-end "
        "come from its usual places (~/.ssh/config, the AWS environment) and --storage-option KEY=VALUE.",
    )
    parser.add_argument("--version", action="version", version=f"session-tui {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, add in VERBS.items():
        if verb is None or name == verb:
            add(commands)
    return parser


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
        from .model.reading import remote
        from .model.reading.source import is_url

        for url in filter(is_url, rest):
            remote.configure(url, options)
    return rest


class UsageError(Exception):
    """A command line that cannot be run: one line, exit 2."""


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
    if getattr(args, "stuck_after", None) is not None:
        from .model.session.live_state import STUCK_AFTER_ENV  # (only then: the search answers without it)

        os.environ[STUCK_AFTER_ENV] = str(max(0.0, args.stuck_after))


def main(argv: list[str] | None = None) -> int:
    """Run one command line; everything it prints goes through the one inert writer."""
    for stream in (sys.stdout, sys.stderr):  # what a terminal cannot show is escaped, never an error
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    from .inert_output import inert_output

    with inert_output():
        return _run(sys.argv[1:] if argv is None else list(argv))


def _run(argv: list[str]) -> int:
    try:
        argv = take_storage_options(argv)
    except UsageError as exc:
        print(f"session-tui: {exc}", file=sys.stderr)
        return 2
    try:
        if argv and (argv[0] in COMMANDS or argv[0] in ("-h", "--help", "--version")):
            args = build_parser(argv[0] if argv[0] in COMMANDS else None).parse_args(argv)
            _use_stuck_after(args)
            if getattr(args, "redact", False) or getattr(args, "secrets", False):
                # every line printed masks secrets, file names and titles included (check --secrets: its report)
                from .model.privacy.redact import redact_shown

                redact_shown(True)
            if args.command == "export":
                from .actions.export import run_export

                return run_export(args)
            if args.command == "diff":
                if len(args.leaves) > 2:
                    print("session-tui diff: give at most two leaves", file=sys.stderr)
                    return 2
                from .commands.diff import run_diff

                return run_diff(args.file, args.leaves, args.json, args.format, redact=args.redact)
            if args.command == "clean":
                from .commands.clean import run_clean

                return run_clean(args.paths, args.older_than, args.dry_run)
            if args.command == "demo":
                from .commands.demo import run_demo

                return run_demo(args.directory, fast=args.fast, headless=args.headless)
            if args.command == "serve":
                from .commands.serve import run_serve

                return run_serve(args.path, args.host, args.port, args.format, not args.no_watch, args.redact)
            if args.command == "search":
                from .commands.search import run_search

                return run_search(args)
            if args.command == "mcp":
                from .commands.mcp_server import run_mcp

                return run_mcp(args.paths, redact=not args.no_redact)
            if args.command == "compactions":
                from .commands.compactions import run_compactions

                return run_compactions(args.file, args.json, args.format, redact=args.redact)
            if args.command == "usage":
                from .commands.usage import run_usage

                return run_usage(args.paths, args.by, args.json, redact=args.redact)
            if args.command == "live":
                from .commands.live import run_live

                return run_live(args)
            if args.command == "resume" and args.dry_run:
                from .actions.dry_run import run_dry_run

                return run_dry_run(args)
            if args.command == "resume":
                from .actions.resume import run_resume

                return run_resume(args)
            if args.command != "check":
                from .commands.edit import run_edit

                return run_edit(args)
            from .commands.check import run_check

            return run_check(
                args.paths, as_json=args.json, format=args.format, secrets=args.secrets, redact=args.redact
            )
        args = build_open_parser().parse_args(argv)
        _use_stuck_after(args)
        from .commands.open import open_tui

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
