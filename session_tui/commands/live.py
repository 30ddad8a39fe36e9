"""`session-tui live`: every agent session written lately, its state kept
current; the fleet screen, or (``--json``) one NDJSON line per change."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from ..model.catalog.known import default_paths
from .options import json_option, redact_option, stuck_after_option

if TYPE_CHECKING:  # pragma: no cover
    from ..model.sanitize import Mask
    from ..model.settings import Settings
    from .options import Commands


def run_live(args: Any, settings: Settings) -> int:
    from ..model.fleet.fleet import Fleet
    from ..model.reading.source import is_url

    paths = args.paths or default_paths()
    if not paths:
        print("session-tui live: no session folders found; give a DIR", file=sys.stderr)
        return 2
    for path in paths:
        if not is_url(path) and not os.path.exists(path):
            print(f"session-tui live: {path}: no such file or directory", file=sys.stderr)
            return 2
    problem = _archive_problem(paths)
    if problem:
        print(f"session-tui live: {problem}", file=sys.stderr)
        return 2
    from .paths import say_path_problems

    if say_path_problems("live", [p for p in paths if not is_url(p) and os.path.isfile(p)]):
        return 2  # (a folder may hold no session yet: live waits for one)
    from ..store.leftovers import parse_age

    try:
        window, idle = parse_age(args.window), parse_age(args.idle_after)
    except ValueError as exc:
        print(f"session-tui live: {exc}", file=sys.stderr)
        return 2
    fleet = Fleet(
        paths,
        window=window,
        idle_after=idle,
        stuck_after=settings.stuck_after,
        notice=lambda text: print(f"session-tui live: {text}", file=sys.stderr),
        mask=_mask(settings.redact),
    )
    if args.json:
        return _json_lines(fleet, settings.redact)
    from .open import ui_settings_problem

    problem = ui_settings_problem(settings)
    if problem:
        print(f"session-tui live: {problem}", file=sys.stderr)
        return 2
    from ..ui.fleet_app import run_fleet_app

    return run_fleet_app(fleet, settings, notify=args.notify)


def _json_lines(fleet, redact: bool = False) -> int:
    import time

    from ..inert_output import print_rendered
    from ..model.fleet.watch import SNAPSHOT, follow
    from ..model.sanitize import json_escape_invisible
    from ..model.search_index.feeder import IndexFeeder

    feeder = IndexFeeder()  # (what changes is in the index by the next search)
    redactor = None
    if redact:  # (a title, a tool's argument, a path may hold a secret)
        from ..model.privacy.redact import Redactor

        redactor = Redactor()

    def emit(event: str, agents: list) -> None:
        now = time.time()
        for agent in agents:
            data = agent.as_json(event, now)
            if redactor is not None:
                data = redactor.value(data)
            print_rendered(json_escape_invisible(json.dumps(data, ensure_ascii=False)))
        sys.stdout.flush()
        if event != SNAPSHOT:
            feeder.changed(agent.path for agent in agents)

    try:
        follow(fleet, emit, lambda: False)
    except KeyboardInterrupt:
        pass
    finally:
        fleet.close()
        feeder.close()
    return 0


def add_parser(commands: Commands) -> None:
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
    json_option(live, "NDJSON on stdout: no screen")
    redact_option(live)
    live.add_argument(
        "--notify",
        action="store_true",
        help="alerts (stuck, crashed, error, context over 90%%, compaction) as a bell and a desktop notice "
        "(OSC 9 / OSC 777), at most one per session per minute",
    )
    stuck_after_option(live)


def run(args: argparse.Namespace, settings: Settings) -> int:
    return run_live(args, settings)


def _archive_problem(paths: list[str]) -> str | None:
    """Why a team archive among ``paths`` cannot be followed (unreachable, no archive there), one line."""
    from ..model.errors import SessionError
    from ..model.reading.archive_listing import check_archive, is_archive_url
    from ..model.sanitize import inert_line

    for path in paths:
        if is_archive_url(path):
            try:
                check_archive(path.partition("#")[0])
            except SessionError as exc:
                return inert_line(str(exc))
    return None


def _mask(redact: bool) -> Mask | None:
    """What masks a title's secrets before the fleet cuts it (``--redact``)."""
    if not redact:
        return None
    from ..model.privacy.redact import masked_text

    return masked_text
