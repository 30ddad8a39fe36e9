"""What a resume takes from a session file before it names a file or runs a
client: ids checked against the clients' own grammar, file names that are
names, and every joined path checked to stay inside its root (symlinks
resolved). The file is hostile: anything else is refused in one line."""

from __future__ import annotations

import os
import re

#: the ids Claude Code, Codex and pi write: a canonical lowercase UUID
#: (Claude Code and pi: v4, newer pi and Codex: v7); never starts with "-"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class ResumeRefused(Exception):
    """No resume of this session here; ``str()`` says why, in one line."""


def is_id(value: object) -> bool:
    return isinstance(value, str) and UUID.fullmatch(value) is not None


def checked_id(value: str, what: str, where: str) -> str:
    """``value`` if it is a session id as the clients write one (a UUID)."""
    if not is_id(value):
        raise ResumeRefused(f"{where}: {what} {value!r} is not a session id (a UUID): refused")
    return value


def checked_name(name: str, where: str) -> str:
    """``name`` if it is a plain file name: no separator, no NUL or line break, not . or ..,
    not starting with "-"."""
    if (
        not name
        or name in (".", "..")
        or name.startswith("-")
        or any(c in name for c in ("/", "\\", "\0", "\n", "\r"))
        or name != os.path.basename(name)
    ):
        raise ResumeRefused(f"{where}: {name!r} is not a plain file name: refused")
    return name


def inside(root: str, *parts: str) -> str:
    """``root`` joined with ``parts``, resolved (symlinks too), refused unless it
    stays inside ``root`` (itself resolved)."""
    base = os.path.realpath(root)
    path = os.path.realpath(os.path.join(base, *parts))
    if os.path.commonpath([base, path]) != base:
        raise ResumeRefused(f"{os.path.join(root, *parts)}: outside {root}: refused")
    return path
