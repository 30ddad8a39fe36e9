"""`session-tui fix FILE`: make a crashed session resumable (commands/edit.py does it)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .options import edit_options

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings
    from .options import Commands


def add_parser(commands: Commands) -> None:
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
    edit_options(fix)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from .edit import run_fix

    return run_fix(args, settings)
