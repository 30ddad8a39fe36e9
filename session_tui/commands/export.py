"""`session-tui export FILE --to md|html|json`: a branch or a context written out (actions/export.py)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .options import format_option, redact_option

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings
    from .options import Commands


def add_parser(commands: Commands) -> None:
    from ..actions.choices import EXPORT_TARGETS

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
    format_option(export)
    redact_option(export)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from ..actions.export import run_export

    return run_export(args, redact=settings.redact, stuck_after=settings.stuck_after)
