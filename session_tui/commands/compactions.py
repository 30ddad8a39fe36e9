"""`session-tui compactions FILE [--json]`: each compaction of a session, the
span it summarised, the tokens before and after, and the paths and commands
of that span its summary does not mention."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..inert_output import print_rendered
from ..model.errors import SessionError
from ..model.reading import json_text
from ..model.sanitize import inert_line, json_escape_invisible
from ..model.session.session import open_session
from ..model.usage.compactions import compactions
from ..model.words import human_tokens
from .options import format_option, json_option, redact_option

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings
    from .options import Commands


def run_compactions(path: str, as_json: bool, format: str | None = None, redact: bool = False) -> int:
    try:
        with open_session(path, format) as session:
            listed = [c.as_json(session) for c in compactions(session)]
            if redact:  # (masked whole, before a text is cut)
                from ..model.privacy.redact import Redactor

                listed = Redactor().value(listed)
            if as_json:
                print_rendered(json_escape_invisible(json_text.dumps(listed)))
                return 0
            print(inert_line(path))
            if not listed:
                print("  no compaction")
            for data in listed:
                before, after = data["tokens_before"], data["tokens_after"]
                tokens = f"{_tokens(before)} → {_tokens(after)}"
                span = data["span"]
                where = (
                    f"lines {span['first_line']}–{span['last_line']} ({span['entries']} entries)"
                    if span["entries"]
                    else span.get("note", "nothing before it")
                )
                print(f"  line {data['line']}: compaction, context {tokens}; summarised {where}")
                for label, items in (("paths", data["dropped"]["paths"]), ("commands", data["dropped"]["commands"])):
                    if items:
                        print(f"    its summary dropped {len(items)} {label}:")
                    for used in items:
                        print(f"      line {used['line']}: {inert_line(used['text'])[:200]}")
    except BrokenPipeError:
        raise  # (the reader went away, e.g. `| head`: the command line ends quietly)
    except (SessionError, OSError) as exc:
        print(f"session-tui compactions: {inert_line(exc)}", file=sys.stderr)
        return 2
    return 0


def _tokens(count: int | None) -> str:
    return "?" if count is None else human_tokens(count)


def add_parser(commands: Commands) -> None:
    compacted = commands.add_parser(
        "compactions",
        help="each compaction of a session: its span, tokens before and after, what its summary dropped",
    )
    compacted.add_argument("file", metavar="FILE")
    json_option(compacted, "[{line, entry, tokens_before, tokens_after, span, dropped}]")
    format_option(compacted)
    redact_option(compacted)


def run(args: argparse.Namespace, settings: Settings) -> int:
    return run_compactions(args.file, args.json, args.format, redact=settings.redact)
