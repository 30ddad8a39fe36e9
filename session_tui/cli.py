"""Command line: ``session-tui [PATH]`` opens the TUI; ``session-tui check ...`` lints."""

from __future__ import annotations

import argparse
import os
import sys

from . import __version__
from .model.formats import FORMATS

COMMANDS = ("check",)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="session-tui",
        description="Browse, debug and repair AI-agent session logs (JSONL). "
                    "`session-tui PATH` opens a session file, or the list of session files in a directory.",
    )
    parser.add_argument("--version", action="version", version=f"session-tui {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    check = commands.add_parser(
        "check", help="lint session files: structure, branches, problems",
        description="Report format, entries, leaves, branch points, summaries, the active leaf and "
                    "every problem of each session file. Exit status: 0 no problems, 1 problems found, "
                    "2 a path unreadable or not a session.")
    check.add_argument("paths", nargs="+", metavar="PATH", help="session files or directories (searched for *.jsonl)")
    check.add_argument("--json", action="store_true", help="one JSON object per file, one per line")
    check.add_argument("--format", choices=sorted(FORMATS), help="read as this format instead of detecting it")
    return parser


def build_open_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="session-tui", usage="session-tui [-h] [--format FORMAT] [--no-watch] PATH | session-tui check ...",
        description="Open a session file in the terminal UI, or a directory's list of session files.")
    parser.add_argument("path", metavar="PATH", help="a session file (*.jsonl) or a directory")
    parser.add_argument("--format", choices=sorted(FORMATS), help="read as this format instead of detecting it")
    parser.add_argument("--no-watch", action="store_true", help="do not follow changes to the file")
    return parser


def open_tui(path: str, format: str | None, watch: bool) -> int:
    from .model import Session, SessionError
    from .model.sanitize import inert

    if not os.path.isdir(path):
        try:
            with Session(path, format) as probe:
                probe.detect()
        except SessionError as exc:
            print(f"session-tui: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
            return 2
    from .ui.app import SessionApp

    SessionApp(path, format, watch=watch).run()
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv and (argv[0] in COMMANDS or argv[0] in ("-h", "--help", "--version")):
            args = build_parser().parse_args(argv)
            from .check import run_check

            return run_check(args.paths, as_json=args.json, format=args.format)
        args = build_open_parser().parse_args(argv)
        return open_tui(args.path, args.format, not args.no_watch)
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
        print(f"session-tui: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
