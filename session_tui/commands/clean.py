"""``session-tui clean FILE|DIR``: list and remove what edits left beside
session files (backups, saved bad lines and torn tails, locks, unfinished
rewrites), never a session itself."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from ..model.reading.source import is_url
from ..model.sanitize import inert_line
from ..model.words import human_seconds
from ..store import leftovers

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings
    from .options import Commands


def run_clean(paths: list[str], older_than: str | None, dry_run: bool) -> int:
    try:
        age = leftovers.parse_age(older_than) if older_than else 0.0
    except ValueError as exc:
        print(f"session-tui clean: --older-than: {exc}", file=sys.stderr)
        return 2
    status, count, total, looked = 0, 0, 0, 0
    for path in paths:
        if is_url(path):
            print(f"session-tui clean: {inert_line(path)}: only local files are cleaned", file=sys.stderr)
            status = 2
            continue
        if not os.path.exists(path):
            print(f"session-tui clean: {inert_line(path)}: no such file or directory", file=sys.stderr)
            status = 2
            continue
        looked += 1
        for found in leftovers.find(path, age):
            kind = leftovers.KINDS[found.kind]
            what = f"{inert_line(found.path)} ({kind}, {found.size:,} bytes, {human_seconds(found.age)} old)"
            if dry_run:
                print(f"would remove {what}")
            else:
                try:
                    kept = leftovers.remove(found)
                except OSError as exc:
                    kept = exc.strerror or str(exc)
                    status = 2
                if kept:
                    print(f"kept {what}: {kept}")
                    continue
                print(f"removed {what}")
            count += 1
            total += found.size
    if looked:  # (only bad paths: their errors are all there is to say)
        verb = "would remove" if dry_run else "removed"
        print(f"{verb} {count} file{'s' if count != 1 else ''} ({total:,} bytes)")
    return status


def add_parser(commands: Commands) -> None:
    clean = commands.add_parser(
        "clean",
        help="list and remove what edits left beside session files (backups, saved lines, locks)",
        description="Remove <name>.bak-<UTC> backups, <name>.bad-<UTC> and <name>.torn-<UTC> saved lines, "
        "<name>.lock files and the temp files of a rewrite that was killed, beside FILE or every session "
        "under DIR. Never a session file; a lock only when no edit holds it.",
        epilog="Exit status: 0 done, 2 error.",
    )
    clean.add_argument("paths", nargs="+", metavar="PATH", help="a session file, or a directory searched below")
    clean.add_argument("--older-than", metavar="AGE", help="only what was made AGE ago or earlier (7d, 12h, 30m)")
    clean.add_argument("--dry-run", action="store_true", help="list what would be removed, remove nothing")


def run(args: argparse.Namespace, settings: Settings) -> int:
    return run_clean(args.paths, args.older_than, args.dry_run)
