"""A plan: exactly which bytes an edit appends, removes or writes, computed
from the model and shown for confirmation before the Store applies it."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..model.reading import json_text
from ..model.words import plural
from .fingerprint import Fingerprint

if TYPE_CHECKING:  # pragma: no cover
    from .database_edit import DatabaseEdit


@dataclass(frozen=True)
class Rewrite:
    """Another file rewritten with the session file (astorlm's meta), after it."""

    path: str
    data: bytes
    fingerprint: Fingerprint  # the file as the plan saw it


@dataclass
class Plan:
    path: str
    summary: str  # one line for people
    fingerprint: Fingerprint
    append: list[dict[str, Any]] = field(default_factory=list)  # records to append
    rewrite: bytes | None = None  # the whole new content (a backed-up rewrite)
    new_files: list[tuple[str, bytes]] = field(default_factory=list)  # forks: created, never overwritten
    drop_torn: bytes = b""  # the torn fragment to save aside and cut (a rewrite leaves it out)
    also: list[Rewrite] = field(default_factory=list)  # backed-up rewrites of other files, after the session file
    #: (kind, bytes, what) saved to <path>.<kind>-<UTC> before the file changes
    aside: list[tuple[str, bytes, str]] = field(default_factory=list)
    database: DatabaseEdit | None = None  # rows of a database changed in one transaction (opencode)

    def preview(self) -> str:
        out = [self.summary]
        if self.database is not None:
            out.extend(self.database.preview())
        for kind, data, what in self.aside:
            out.append(f"save {what} ({len(data):,} bytes) to {os.path.basename(self.path)}.{kind}-<UTC time> first")
        if self.drop_torn:
            if self.rewrite is not None:
                cut = "the rewrite leaves it out"
            elif self.append:
                cut = "then rewrite the file without it, the records below at its end"
            else:
                cut = "then rewrite the file without it"
            out.append(
                f"save the torn fragment ({len(self.drop_torn)} bytes) to {os.path.basename(self.path)}"
                f".torn-<UTC time>, {cut}"
            )
        for record in self.append:
            out.append("append: " + json_text.dumps(record))
        if self.rewrite is not None:
            out.append(
                f"rewrite the file ({self.fingerprint.size:,} → {len(self.rewrite):,} bytes), keeping the old one "
                "as a backup"
            )
        for other in self.also:
            out.append(
                f"then rewrite {other.path} ({other.fingerprint.size:,} → {len(other.data):,} bytes), "
                "keeping the old one as a backup"
            )
        for path, data in self.new_files:
            lines = data.count(b"\n")
            out.append(f"create {path} ({plural(lines, 'line')})")
        return "\n".join(out)
