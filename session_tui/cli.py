"""Command line: ``session-tui [PATH]`` opens the TUI; ``session-tui check ...`` lints."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from types import ModuleType

from . import __version__

#: each verb and its module under commands/ (``add_parser``, ``run``), in the order --help lists them
VERBS = {
    "check": "check",
    "diff": "diff",
    "set-leaf": "set_leaf",
    "fork": "fork",
    "fix": "fix",
    "resume": "resume",
    "live": "live",
    "search": "search",
    "usage": "usage",
    "compactions": "compactions",
    "clean": "clean",
    "archive": "archive",
    "export": "export",
    "demo": "demo",
    "serve": "serve",
    "mcp": "mcp_server",
}
COMMANDS = tuple(VERBS)
CONFIG_HELP = (
    "read settings from this TOML file (default: ~/.config/session-tui/config.toml, or $SESSION_TUI_CONFIG); "
    "any command takes it"
)


def verb_module(verb: str) -> ModuleType:
    """The module of ``verb``, imported only when it is run or its parser is built."""
    return importlib.import_module(f"{__package__}.commands.{VERBS[verb]}")


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
    parser.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in VERBS:
        if verb is None or name == verb:
            verb_module(name).add_parser(commands)
    return parser


def format_name(value: str) -> str:
    """``--format`` of the TUI: checked only when given (the format readers
    are not imported before the picker's first frame)."""
    from .model.formats import FORMATS

    if value not in FORMATS:
        raise argparse.ArgumentTypeError(f"unknown format {value!r} (choose from {', '.join(sorted(FORMATS))})")
    return value


def build_open_parser() -> argparse.ArgumentParser:
    from .model.catalog.known import KNOWN_LOCATIONS

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
        f"folders that exist — {', '.join(KNOWN_LOCATIONS)} — or ./sample_sessions)",
    )
    parser.set_defaults(command=None)
    parser.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
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
    from .commands.options import stuck_after_option

    stuck_after_option(parser)
    return parser


def take_storage_options(argv: list[str]) -> list[str]:
    """Remove ``--storage-option KEY=VALUE`` (any command, any place) from
    ``argv`` and give the options to the back-end of each URL in it. VALUE
    is JSON when it parses (``null``, ``2222``, ``true``, ``["a"]``), else text."""
    rest: list[str] = []
    options: dict[str, object] = {}
    args = iter(argv)
    for arg in args:
        if arg == "--storage-option" or arg.startswith("--storage-option="):
            item = arg.split("=", 1)[1] if "=" in arg else next(args, "")
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise UsageError(f"--storage-option takes KEY=VALUE, not {item!r}")
            import json  # (only here: not before a first frame)

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


def take_config_option(argv: list[str]) -> tuple[list[str], str | None]:
    """``argv`` without ``--config FILE`` (any command, any place), and FILE."""
    rest: list[str] = []
    config = None
    args = iter(argv)
    for arg in args:
        if arg == "--config" or arg.startswith("--config="):
            config = arg.split("=", 1)[1] if "=" in arg else next(args, None)
            if not config:
                raise UsageError("--config takes a FILE")
        elif arg == "--":
            rest.append(arg)
            rest.extend(args)
        else:
            rest.append(arg)
    return rest, config


class UsageError(Exception):
    """A command line that cannot be run: one line, exit 2."""


def main(argv: list[str] | None = None) -> int:
    """Run one command line; everything it prints goes through the one inert writer."""
    for stream in (sys.stdout, sys.stderr):  # what a terminal cannot show is escaped, never an error
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    from .inert_output import inert_output
    from .model.collector import collect_less

    collect_less()  # (a big session is millions of objects: model/collector.py)
    with inert_output():
        return _run(sys.argv[1:] if argv is None else list(argv))


def _mask(redact: bool) -> Callable[[str], str] | None:
    """What the one writer masks every line printed with (``--redact``):
    file names, titles and every row and message a verb prints."""
    if not redact:
        return None
    from .model.privacy.redact import masked_printed

    return masked_printed


def _run(argv: list[str]) -> int:
    from .inert_output import inert_output
    from .model.settings import SettingsError, load

    try:
        argv, config = take_config_option(take_storage_options(argv))
        settings = load(config)
        if argv and (argv[0] in COMMANDS or argv[0] in ("-h", "--help", "--version")):
            args = build_parser(argv[0] if argv[0] in COMMANDS else None).parse_args(argv)
        else:
            args = build_open_parser().parse_args(argv)
        settings = settings.with_flags(args)
    except (UsageError, SettingsError) as exc:
        print(f"session-tui: {exc}", file=sys.stderr)
        return 2
    try:
        with inert_output(_mask(settings.redact)):  # (check --secrets sets redact too: its report is masked)
            if args.command is None:
                from .commands.open import run as open_tui

                return open_tui(args, settings)
            return int(verb_module(args.command).run(args, settings))
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
