"""`session-tui set-leaf FILE ENTRY`: make an entry the active leaf (commands/edit.py does it)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .options import EDITS_EPILOG, edit_options

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings
    from .options import Commands


def add_parser(commands: Commands) -> None:
    set_leaf = commands.add_parser(
        "set-leaf", help="make an entry the active leaf (tree: appends a pointer)", epilog=EDITS_EPILOG
    )
    set_leaf.add_argument("file", metavar="FILE")
    set_leaf.add_argument("entry", metavar="ENTRY", help="an entry id (or, without ids, its line number)")
    edit_options(set_leaf)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from .edit import run_edit

    return run_edit(args, settings)
