"""What is wrong with a path given on the command line, said in one line:
every verb that takes paths says it the same way, and exits 2."""

from __future__ import annotations

import os
import sys

SESSION_SUFFIX = ".jsonl"


def path_problem(path: str) -> str | None:
    """Why ``path`` (a local path the user gave) holds no session: it does
    not exist, a directory without ``*.jsonl`` files under it, a file that
    is not a session (the picker's reason); None when it is fine. A URL is
    left to its back-end, which says what is wrong when it is opened."""
    from ..model.reading.source import is_url

    if is_url(path):
        return None
    if not os.path.lexists(path):
        return "no such file or directory"
    if os.path.isdir(path):
        for _root, _dirs, files in os.walk(path):
            if any(name.endswith(SESSION_SUFFIX) or name == "opencode.db" for name in files):
                return None
        return f"no session files (*{SESSION_SUFFIX}) in it"
    from ..model.catalog.info_reader import read_info

    return read_info(path).error


def say_path_problems(verb: str, paths: list[str]) -> bool:
    """Print a line for each path of ``paths`` that holds no session; True if one did."""
    from ..model.sanitize import inert_line

    bad = False
    for path in paths:
        problem = path_problem(path)
        if problem is not None:
            print(f"session-tui {verb}: {inert_line(path)}: {problem}", file=sys.stderr)
            bad = True
    return bad
