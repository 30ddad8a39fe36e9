"""Command line: ``session-tui <command> ...``."""

from __future__ import annotations

import argparse
import os
import sys

from . import __version__
from .model.formats import FORMATS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="session-tui",
        description="Browse, debug and repair AI-agent session logs (JSONL).",
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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            from .check import run_check

            return run_check(args.paths, as_json=args.json, format=args.format)
        parser.print_help()
        return 2
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
