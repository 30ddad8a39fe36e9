"""``session-tui clean FILE|DIR``: list and remove what edits left beside
session files (backups, saved bad lines and torn tails, locks, unfinished
rewrites), never a session itself."""

from __future__ import annotations

import os
import sys

from ..model.reading.source import is_url
from ..model.sanitize import inert_line
from ..model.words import human_seconds
from ..store import leftovers


def run_clean(paths: list[str], older_than: str | None, dry_run: bool) -> int:
    try:
        age = leftovers.parse_age(older_than) if older_than else 0.0
    except ValueError as exc:
        print(f"session-tui clean: --older-than: {exc}", file=sys.stderr)
        return 2
    status, count, total = 0, 0, 0
    for path in paths:
        if is_url(path):
            print(f"session-tui clean: {inert_line(path)}: only local files are cleaned", file=sys.stderr)
            status = 2
            continue
        if not os.path.exists(path):
            print(f"session-tui clean: {inert_line(path)}: no such file or directory", file=sys.stderr)
            status = 2
            continue
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
    verb = "would remove" if dry_run else "removed"
    print(f"{verb} {count} file{'s' if count != 1 else ''} ({total:,} bytes)")
    return status
