"""What the last dry run of a file found, kept in the cache dir: whether
its client accepts the file as it is (only while the file is unchanged:
same size and modification time). Only a file of this user's own is read
(owned by them, a regular file, mode 0600 or stricter: as the cache writes
it), and only entries of the right shape: one planted by someone else, or
of wrong types, is no verdict."""

from __future__ import annotations

import json
import os
import stat
import time
from dataclasses import asdict, dataclass, fields

from ..cache_dir import trusted_cache_dir, write_cache_file

NAME = "dry-runs.json"


@dataclass(frozen=True)
class Verdict:
    client: str  # as people name it: "Claude Code"
    version: str
    accepted: bool
    message: str  # the API's, when rejected
    size: int
    mtime_ns: int
    at: float  # when the dry run ran

    def words(self) -> str:
        if self.accepted:
            return f"{self.client} {self.version} accepts the file as it is (dry run)"
        return f"{self.client} {self.version} is refused the file as it is (dry run): {self.message}"


def _store(cache_dir: str | None) -> str | None:
    """The verdicts' file, in the cache dir when it is this user's own (else None: none kept, none read)."""
    folder = trusted_cache_dir(cache_dir)
    return None if folder is None else os.path.join(folder, NAME)


def _load(cache_dir: str | None) -> dict[str, dict[str, object]]:
    store = _store(cache_dir)
    if store is None:
        return {}
    try:
        fd = os.open(store, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return {}
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
            return {}  # not this user's own: no verdict taken from it
        with os.fdopen(fd, "rb") as f:
            fd = -1
            found = json.load(f)
    except (OSError, ValueError, RecursionError):
        return {}
    finally:
        if fd >= 0:
            os.close(fd)
    return found if isinstance(found, dict) else {}


_TYPES: dict[str, tuple[type, ...]] = {
    "client": (str,),
    "version": (str,),
    "accepted": (bool,),
    "message": (str,),
    "size": (int,),
    "mtime_ns": (int,),
    "at": (int, float),
}


def _verdict(found: object) -> Verdict | None:
    """The verdict an entry holds, if it has exactly its fields, each of its type."""
    if not isinstance(found, dict) or set(found) != {f.name for f in fields(Verdict)}:
        return None
    for name, types in _TYPES.items():
        value = found[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            return None
    return Verdict(
        str(found["client"]),
        str(found["version"]),
        bool(found["accepted"]),
        str(found["message"]),
        int(found["size"]),
        int(found["mtime_ns"]),
        float(found["at"]),
    )


def remember(path: str, client: str, version: str, accepted: bool, message: str, cache_dir: str | None = None) -> None:
    """Keep the verdict on ``path`` as the file is now (best effort: a cache)."""
    try:
        st = os.stat(path)
        kept = {key: value for key, value in _load(cache_dir).items() if _verdict(value) is not None}
        kept[os.path.abspath(path)] = asdict(
            Verdict(client, version, accepted, message, st.st_size, st.st_mtime_ns, time.time())
        )
    except OSError:
        return
    store = _store(cache_dir)
    if store is not None:
        write_cache_file(store, json.dumps(kept).encode())


def verdict_on(path: str, cache_dir: str | None = None) -> Verdict | None:
    """The last dry run's verdict on the file at ``path``, if it is unchanged since."""
    verdict = _verdict(_load(cache_dir).get(os.path.abspath(path)))
    if verdict is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return verdict if (st.st_size, st.st_mtime_ns) == (verdict.size, verdict.mtime_ns) else None
