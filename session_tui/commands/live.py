"""`session-tui live`: every agent session written lately, its state kept
current; the fleet screen, or (``--json``) one NDJSON line per change."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from ..model.catalog.known import default_paths


def run_live(args: Any) -> int:
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
        paths, window=window, idle_after=idle, notice=lambda text: print(f"session-tui live: {text}", file=sys.stderr)
    )
    if args.json:
        return _json_lines(fleet, args.redact)
    from ..ui.fleet_app import run_fleet_app

    return run_fleet_app(fleet, notify=args.notify)


def _json_lines(fleet, redact: bool = False) -> int:
    import time

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
            sys.stdout.write(json_escape_invisible(json.dumps(data, ensure_ascii=False)) + "\n")
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
