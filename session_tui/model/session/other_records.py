"""The lines of a session that are records but not entries (its header,
metadata, the leaf pointers, kinds its format does not know), each said in
one line: the session view's metadata list."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..reading.records import BadLine, parse_object
from ..reading.segment import LineKind
from ..sanitize import Mask, masked_cut

if TYPE_CHECKING:  # pragma: no cover
    from .session import Session


def other_records(session: Session, limit: int, mask: Mask | None = None) -> list[tuple[int, str]]:
    """(1-based line, one-line description) of the first ``limit`` lines
    that are records but not entries: header, metadata, pointers, kinds
    the format does not know. ``mask`` (``--redact``): each line's
    secrets masked before it is cut."""
    kinds = bytes(session.lines.line_kinds)
    wanted = {LineKind.HEADER, LineKind.META, LineKind.POINTER, LineKind.UNKNOWN}
    out: list[tuple[int, str]] = []
    for line, kind in enumerate(kinds):
        if kind in wanted:
            raw = session.raw_line(line)
            try:
                obj = parse_object(raw)
            except BadLine:
                continue
            label = obj.get("type") or obj.get("role") or "record"
            rest = masked_cut(raw[:8192].decode("utf-8", "replace"), 160, mask)
            out.append((line + 1, f"{label}: {rest}{' …' if len(raw) > 160 else ''}"))
            if len(out) >= limit:
                break
    return out
