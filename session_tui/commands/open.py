"""Opening the terminal UI on files or folders (``session-tui PATH``)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from ..model.catalog.known import KNOWN_LOCATIONS, default_paths

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings


def is_folder(path: str) -> bool:
    """A local directory, a remote folder or prefix, or the team archive as a whole (raises SessionError)."""
    from ..model.reading.archive_listing import check_archive, is_archive_url, is_whole_archive
    from ..model.reading.source import is_url

    if is_archive_url(path):
        if is_whole_archive(path):
            check_archive(path)  # (unreachable, or no archive there: one line now, not an empty picker)
            return True
        return False
    if is_url(path):
        from ..model.reading import remote

        return remote.is_folder(path)
    return os.path.isdir(path)


def run(args: argparse.Namespace, settings: Settings) -> int:
    return open_tui(args.paths, args.format, not args.no_watch, settings)


def open_tui(paths: list[str], format: str | None, watch: bool, settings: Settings) -> int:
    """A file opens its session view; directories open the picker over all of them."""
    from ..model.errors import SessionError
    from ..model.sanitize import inert

    if not paths:
        paths = default_paths()
        if not paths:
            print(f"session-tui: no session folders found ({', '.join(KNOWN_LOCATIONS)}); give a PATH", file=sys.stderr)
            return 2
    from ..model.formats.opencode.database import written_file
    from ..model.reading.source import is_url

    for path in paths:
        if not is_url(path) and not os.path.lexists(written_file(path)[0]):  # (a broken symlink: the session says)
            print(f"session-tui: {inert(path, keep_newlines=False)}: no such file or directory", file=sys.stderr)
            return 2
    try:
        files = [p for p in paths if not is_folder(p)]
    except SessionError as exc:
        print(f"session-tui: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
        return 2
    if files and len(paths) > 1:
        print("session-tui: give one session file, or directories", file=sys.stderr)
        return 2
    if files:
        from ..model.session.session import Session

        try:
            with Session(files[0], format) as probe:
                probe.detect()
        except SessionError as exc:
            print(f"session-tui: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
            return 2
    first_rows = None
    if not files:  # the picker: what its first rows wait for starts beside Textual's start
        from ..model.catalog.first_rows import start
        from ..model.reading.open_writers import prefetch
        from ..ui.masking import mask_of

        # (masked as the app will mask: it redacts as the settings say; a fork before any thread or Textual)
        first_rows = start(paths, mask_of(settings))
        prefetch()  # the badges' look at /proc, waiting on the kernel
    problem = ui_settings_problem(settings)
    if problem:
        if first_rows is not None:
            first_rows.close()
        print(f"session-tui: {problem}", file=sys.stderr)
        return 2
    from ..ui.app import SessionApp

    app = SessionApp(files[0] if files else paths, format, watch=watch, settings=settings, first_rows=first_rows)
    try:
        app.run()
    finally:
        if first_rows is not None:
            first_rows.close()
    return 0


def ui_settings_problem(settings: Settings) -> str | None:
    """What in the config file the terminal UI cannot use (an action no key
    has, a theme Textual does not know), as one line; None: nothing."""
    from ..ui.keys import unknown_actions

    where = f"config file {settings.config_file!r}"
    unknown = unknown_actions(settings.keys)
    if unknown:
        return f"{where}: [keys] {unknown[0]!r} is no action of the session view (see ? in the app)"
    if settings.theme:
        from textual.theme import BUILTIN_THEMES

        if settings.theme not in BUILTIN_THEMES:
            return f"{where}: theme {settings.theme!r} is not one of {', '.join(sorted(BUILTIN_THEMES))}"
    return None
