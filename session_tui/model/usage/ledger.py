"""What each session file spent, kept in the cache dir (``usage.json``)
keyed by path, size and ``mtime_ns`` and the price table's version: a
``usage`` over a year of sessions reads again only the files that changed.
Each file keeps its project and its usage by (day, model), which is all
``--by`` needs."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import orjson

from ..cache_dir import trusted_cache_dir, write_cache_file
from ..entries.tokens import Response
from ..entries.view import parse_time
from .prices import priced_by
from .totals import NO_MODEL, Usage, responses_of, usage_of

if TYPE_CHECKING:  # pragma: no cover
    from ..session.session import Session

NAME = "usage.json"
VERSION = 1
NO_TIME = "(no time)"


@dataclass
class FileUsage:
    project: str
    groups: list[tuple[str, str, Usage]]  # (day, model, usage)


def file_usage(session: Session, project: str) -> FileUsage:
    """The session's responses by (local day, model), priced."""
    grouped: dict[tuple[str, str], list[Response]] = {}
    for response in responses_of(session):
        grouped.setdefault((_day(response), response.model or NO_MODEL), []).append(response)
    name = session.format.name
    return FileUsage(project, [(day, model, usage_of(rs, name)) for (day, model), rs in sorted(grouped.items())])


def _day(response: Response) -> str:
    when = parse_time(response.time)
    return datetime.fromtimestamp(when).astimezone().strftime("%Y-%m-%d") if when is not None else NO_TIME


class Ledger:
    def __init__(self, cache_dir: str | None = None) -> None:
        folder = trusted_cache_dir(cache_dir)
        self.path = None if folder is None else os.path.join(folder, NAME)  # None: no cache
        self._lock = threading.Lock()
        self._files = self._load()
        self._changed = False

    def _load(self) -> dict[str, Any]:
        if self.path is None:
            return {}
        try:
            with open(self.path, "rb") as f:
                data = orjson.loads(f.read())
        except (OSError, orjson.JSONDecodeError):
            return {}
        if not isinstance(data, dict) or data.get("version") != [VERSION, priced_by()]:
            return {}  # (another price table: priced again)
        files = data.get("files")
        return files if isinstance(files, dict) else {}

    def usage(self, path: str, size: int, mtime_ns: int, work_out: Callable[[], FileUsage]) -> FileUsage:
        """The file's usage: kept, while the file is unchanged, or worked out."""
        with self._lock:
            kept = self._files.get(path)
        if isinstance(kept, dict) and kept.get("size") == size and kept.get("mtime_ns") == mtime_ns:
            cached = _file_usage_of(kept)
            if cached is not None:
                return cached
        found = work_out()
        row = {
            "size": size,
            "mtime_ns": mtime_ns,
            "project": found.project,
            "groups": kept_groups(found),
        }
        with self._lock:
            self._files[path] = row
            self._changed = True
        return found

    def save(self) -> None:
        with self._lock:
            if not self._changed:
                return
            try:
                data = orjson.dumps({"version": [VERSION, priced_by()], "files": self._files})
            except TypeError:  # a name that is not UTF-8 (a file's undecodable bytes, a lone surrogate): not kept
                data = orjson.dumps({"version": [VERSION, priced_by()], "files": _encodable(self._files)})
            self._changed = False
        if self.path is not None:
            write_cache_file(self.path, data)


_COUNTS = ("input", "output", "cache_read", "cache_write", "responses", "unpriced_responses")
_COSTS = ("cost_usd", "recorded_cost_usd")


def _kept(usage: Usage) -> dict[str, Any]:
    """What the ledger keeps of a group's usage: its counts and costs (a group has no span)."""
    return {name: value for name, value in asdict(usage).items() if name not in ("first", "last")}


def kept_groups(found: FileUsage) -> list[list[Any]]:
    """A file's usage by (day, model) as the ledger keeps it (and the archive: ``file_usage.groups``)."""
    return [[day, model, _kept(usage)] for day, model, usage in found.groups]


def file_usage_of(project: object, groups: object) -> FileUsage | None:
    """The usage kept as ``kept_groups`` says it, if every part has its type (None: it is not)."""
    return _file_usage_of({"project": project, "groups": groups})


def _file_usage_of(kept: dict[str, Any]) -> FileUsage | None:
    """The usage a cached row holds, if every part has its type (the cache
    file is untrusted: anything else is worked out again)."""
    project, groups = kept.get("project"), kept.get("groups")
    if type(project) is not str or type(groups) is not list:
        return None
    out = []
    for group in groups:
        if type(group) is not list or len(group) != 3:
            return None
        day, model, counts = group
        usage = _usage_of(counts)
        if type(day) is not str or type(model) is not str or usage is None:
            return None
        out.append((day, model, usage))
    return FileUsage(project, out)


_NAMES = frozenset({*_COUNTS, *_COSTS, "unpriced_models"})


def _usage_of(counts: object) -> Usage | None:
    if type(counts) is not dict or not _NAMES.issuperset(counts):
        return None
    for name in _COUNTS:  # (a loop: the archive reads thousands of these at once)
        count = counts.get(name, 0)
        if type(count) is not int or count < 0:
            return None
    for name in _COSTS:
        cost = counts.get(name)
        if cost is not None and (type(cost) not in (int, float) or not 0 <= cost < 1e15):
            return None
    models = counts.get("unpriced_models", [])
    if type(models) is not list or not all(type(m) is str for m in models):
        return None
    return Usage(**counts)


def _encodable(rows: dict[str, Any]) -> dict[str, Any]:
    """The rows that can be written as JSON (UTF-8): their paths and values hold no lone surrogate."""
    kept = {}
    for path, row in rows.items():
        try:
            orjson.dumps({path: row})
        except TypeError:
            continue
        kept[path] = row
    return kept
