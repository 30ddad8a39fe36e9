"""A Codex thread written over several files (docs/formats.md#codex).

Codex 0.169 writes a rewind ("edit an earlier prompt") as a new rollout
``rollout-<time>-<thread>_<segment>.jsonl`` whose ``session_meta`` carries
the thread's id and ``history_base: {thread_id, end_ordinal_exclusive,
end_byte_offset}``: on resume the thread's history is its first
``end_ordinal_exclusive`` lines, then the segment. session-tui reads such a
thread as one session: the files joined in order (the first rollout, then
each segment by time), the segment's ``session_meta`` a rewind to that line
(``codex.CodexFormat``), so the part it replaced is a branch that ended.

Only names are looked at to find the files (no file is opened but the one
given): a thread's files sit in the same day folder, or in the other day
folders of the same ``sessions/YYYY/MM/DD`` tree.
"""

from __future__ import annotations

import glob
import os
import re

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
ROLLOUT = re.compile(rf"^rollout-(?P<time>[0-9T:-]+)-(?P<thread>{_UUID})(?:_(?P<segment>{_UUID}))?\.jsonl$")
_DAY = re.compile(r"^\d{2}$")


def _search_dirs(folder: str) -> list[str]:
    """The folder, or every day folder of the ``sessions/YYYY/MM/DD`` tree it is in."""
    month, day = os.path.split(folder)
    year_dir, month_name = os.path.split(month)
    root, year = os.path.split(year_dir)
    if _DAY.match(day) and _DAY.match(month_name) and re.match(r"^\d{4}$", year):
        return sorted({folder, *glob.glob(os.path.join(glob.escape(root), "[0-9]" * 4, "[0-9]" * 2, "[0-9]" * 2))})
    return [folder]


def thread_files(path: str) -> list[str]:
    """The files of the thread ``path`` belongs to, in reading order (the
    first rollout, then its segments by time); ``[path]`` for a file that
    is not part of a thread written over several files, or whose first
    rollout is not found."""
    folder, name = os.path.split(os.path.abspath(path))
    found = ROLLOUT.match(name)
    if found is None:
        return [path]
    thread = found["thread"]
    base: str | None = None
    segments: list[tuple[str, str]] = []
    for directory in _search_dirs(folder):
        for candidate in glob.glob(os.path.join(glob.escape(directory), f"rollout-*-{thread}*.jsonl")):
            match = ROLLOUT.match(os.path.basename(candidate))
            if match is None or match["thread"] != thread:
                continue
            if match["segment"] is None:
                base = candidate
            else:
                segments.append((match["time"], candidate))
    if base is None or not segments:
        return [path]
    return [base, *(candidate for _, candidate in sorted(segments))]


def hide_segments(paths: list[str]) -> set[str]:
    """The paths of segments whose thread's first rollout is among ``paths``:
    the thread is listed once, by its first file."""
    named = [(p, m) for p in paths if "rollout-" in p and (m := ROLLOUT.match(os.path.basename(p)))]
    firsts = {m["thread"] for _, m in named if m["segment"] is None}
    return {p for p, m in named if m["segment"] is not None and m["thread"] in firsts}
