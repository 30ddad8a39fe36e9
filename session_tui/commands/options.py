"""The options several verbs share, each declared once here."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from typing import TypeAlias

    Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]

REDACT_HELP = (
    "replace each secret (API key, token, private key, password) by [REDACTED:<kind>:<first 8 hex of its "
    "sha256>]; the session file is not changed"
)
FORMAT_HELP = "read as this format instead of detecting it"
EDITS_EPILOG = "Exit status: 0 done, 1 refused, 2 error."


def format_option(parser: argparse.ArgumentParser) -> None:
    from ..actions.choices import FORMAT_NAMES

    parser.add_argument("--format", choices=FORMAT_NAMES, help=FORMAT_HELP)


def redact_option(parser: argparse.ArgumentParser, help: str = REDACT_HELP) -> None:
    parser.add_argument("--redact", action="store_true", help=help)


def json_option(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--json", action="store_true", help=help)


def stuck_after_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stuck-after",
        type=float,
        metavar="SECONDS",
        help="a call without a result is running while the file was written in the last SECONDS (or a writer "
        "holds it open), stuck after that; edits of a file written that recently need --force (default 300, "
        "or stuck_after in the config file, or $SESSION_TUI_STUCK_AFTER)",
    )


def edit_options(parser: argparse.ArgumentParser) -> None:
    """What every edit verb takes: the format, a dry run, --force, --stuck-after."""
    format_option(parser)
    parser.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    parser.add_argument(
        "--force",
        action="store_true",
        help="write even if the file was written in the last --stuck-after seconds (an agent may be writing "
        "it; a call without a result may still be running)",
    )
    stuck_after_option(parser)
