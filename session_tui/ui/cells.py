"""Cells of the tables (picker, branch list, compare): ages, sizes, counts,
and a text cut or padded to a width."""

from __future__ import annotations

import os
import time

from rich.text import Text

from ..model.catalog.session_info import SessionInfo


def now() -> float:
    """The clock ages and live badges are drawn against (the snapshot tests fix it)."""
    return time.time()


def local_time(timestamp: float, pattern: str) -> str:
    """``timestamp`` in local time (the snapshot tests fix the zone)."""
    return time.strftime(pattern, time.localtime(timestamp))


def age_since(timestamp: float) -> str:
    return age(now() - timestamp)


def tilde(path: str) -> str:
    """``path`` with the home folder written ``~``; a session of the team
    archive as ``MACHINE:/PATH``, the archive itself by its URL without its password."""
    if "://" in path:
        from ..model.reading.archive_listing import is_archive_url, shown_address
        from ..model.reading.archived import shown_url

        if is_archive_url(path):
            return shown_url(shown_address(path))
    home = os.path.expanduser("~").rstrip(os.sep)
    if home and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path


def age(seconds: float) -> str:
    if seconds < 10:
        return "just now"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return f"{int(seconds)} s ago"


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    scaled = float(size)
    for unit in ("KB", "MB", "GB", "TB"):
        scaled /= 1024
        if scaled < 1024 or unit == "TB":
            break
    return f"{scaled:.1f} {unit}" if scaled < 10 else f"{scaled:.0f} {unit}"


def entries_text(info: SessionInfo) -> str:
    if not info.known or info.format is None:
        return ""
    if info.exact:
        return f"{info.entries:,}"
    count = info.entries
    if count >= 1_000_000:
        return f"≈{count / 1e6:.1f}M"
    if count >= 1_000:
        return f"≈{count / 1e3:.1f}k" if count < 10_000 else f"≈{count // 1000}k"
    return f"≈{count}"


def cell(text: Text, width: int, right: bool = False) -> Text:
    text.truncate(width, overflow="ellipsis")
    pad = width - text.cell_len
    if not pad:
        return text
    if right:
        padded = Text(" " * pad)
        padded.append_text(text)
        return padded
    text.append(" " * pad)  # (``text`` is the caller's to give: padded in place)
    return text
