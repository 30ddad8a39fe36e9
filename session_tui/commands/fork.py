"""`session-tui fork FILE ENTRY`: copy the path root → ENTRY into a new file (commands/edit.py does it)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .options import EDITS_EPILOG, edit_options, redact_option

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings
    from .options import Commands


def add_parser(commands: Commands) -> None:
    fork = commands.add_parser("fork", help="copy the path root → ENTRY into a new session file", epilog=EDITS_EPILOG)
    fork.add_argument("file", metavar="FILE")
    fork.add_argument("entry", metavar="ENTRY", help="an entry id (or, without ids, its line number)")
    fork.add_argument("-o", "--output", metavar="OUT", help="the new file (default: <stem>.fork-<n>.jsonl)")
    redact_option(fork)
    edit_options(fork)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from .edit import run_edit

    return run_edit(args, settings)
