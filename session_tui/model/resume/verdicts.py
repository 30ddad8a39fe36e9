"""What the last dry run of a file found, kept in the cache dir: whether
its client accepts the file as it is (only while the file is unchanged:
same size and modification time)."""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass

from ..cache_dir import default_cache_dir, write_cache_file

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


def _store(cache_dir: str | None) -> str:
    return os.path.join(cache_dir or default_cache_dir(), NAME)


def _load(cache_dir: str | None) -> dict[str, dict[str, object]]:
    try:
        with open(_store(cache_dir), "rb") as f:
            found = json.load(f)
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def remember(path: str, client: str, version: str, accepted: bool, message: str, cache_dir: str | None = None) -> None:
    """Keep the verdict on ``path`` as the file is now (best effort: a cache)."""
    try:
        st = os.stat(path)
        kept = _load(cache_dir)
        kept[os.path.abspath(path)] = asdict(
            Verdict(client, version, accepted, message, st.st_size, st.st_mtime_ns, time.time())
        )
    except OSError:
        return
    write_cache_file(_store(cache_dir), json.dumps(kept).encode())


def verdict_on(path: str, cache_dir: str | None = None) -> Verdict | None:
    """The last dry run's verdict on the file at ``path``, if it is unchanged since."""
    found = _load(cache_dir).get(os.path.abspath(path))
    if not isinstance(found, dict):
        return None
    try:
        verdict = Verdict(**found)  # type: ignore[arg-type]
        st = os.stat(path)
    except (TypeError, OSError):
        return None
    return verdict if (st.st_size, st.st_mtime_ns) == (verdict.size, verdict.mtime_ns) else None
