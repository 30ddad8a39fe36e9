"""A Codex rollout's token usage, from its ``event_msg`` ``token_count``
lines (META lines, not entries): the session's total (cumulative), an
entry's own, and one response per count whose total grew."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...entries.tokens import Response, response_counts
from ...errors import check_stop
from ...reading.records import BadLine, parse_object
from ...reading.segment import LineKind, Shape
from ..base import Session

RECORD_KINDS = (LineKind.ENTRY, LineKind.META)  # the lines Codex rebuilds its history from


TOKEN_GAP = 64  # lines after an entry searched for its token_count (a few event copies sit between)


def _token_usage(raw: bytes, key: str) -> dict[str, Any] | None:
    """``info[key]`` of a token_count event line (None for any other line,
    or when its info is null)."""
    if b"token_count" not in raw:
        return None
    try:
        record = parse_object(raw)
    except BadLine:
        return None
    payload = record.get("payload")
    if record.get("type") != "event_msg" or not isinstance(payload, dict) or payload.get("type") != "token_count":
        return None
    info = payload.get("info")
    usage = info.get(key) if isinstance(info, dict) else None
    return usage if isinstance(usage, dict) else None


def _time_of(raw: bytes) -> str | None:
    try:
        found = parse_object(raw).get("timestamp")
    except BadLine:
        return None
    return found if isinstance(found, str) else None


def _count(usage: dict[str, Any], key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


@dataclass
class _ResponseScan:
    """How far ``CodexFormat.responses`` read the lines, and what it found."""

    lines: int = 0
    model: str | None = None
    before: int = -1  # the last cumulative total_tokens seen
    entry: int = -1  # the last entry before the line read
    summed: list[int] = field(default_factory=lambda: [0, 0, 0])  # input (cache included), output, cached input
    last: dict[str, Any] | None = None
    found: list[Response] = field(default_factory=list)


def entry_tokens(session: Session, entry: int) -> dict[str, Any] | None:
    """The ``last_token_usage`` of the token_count between an assistant
    entry (message or call) and the next entry (the last one there when
    there are several; at most TOKEN_GAP lines are looked at)."""
    tree = session.tree
    if tree.shape[entry] & Shape.ROLE_MASK != Shape.ASSISTANT:
        return None
    kinds = session.lines.line_kinds
    start = tree.entry_line[entry] + 1
    stop = tree.entry_line[entry + 1] if entry + 1 < tree.count else len(kinds)
    found = None
    for n in range(start, min(stop, len(kinds), start + TOKEN_GAP)):
        if kinds[n] == LineKind.META:
            found = _token_usage(session.raw_line(n), "last_token_usage") or found
    return found


def responses(session: Session, should_stop: Callable[[], bool] | None = None) -> list[Response]:
    """One response per token_count whose cumulative total grew (Codex
    writes some twice), counted by its ``last_token_usage`` with the model
    of the turn_context before it; what the last cumulative total holds
    beyond their sum (a resumed rollout's earlier turns) is one response
    more, so the responses add up to that total. The scan goes on from
    where it stopped (kept with the session): a live file costs its new
    lines."""
    kinds, tree = session.lines.line_kinds, session.tree
    scan = session.memo.of(_ResponseScan)
    for n in range(scan.lines, len(kinds)):
        scan.lines = n
        check_stop(should_stop, n)
        while scan.entry + 1 < tree.count and tree.entry_line[scan.entry + 1] < n:
            scan.entry += 1
        if kinds[n] not in RECORD_KINDS:
            continue
        raw = session.raw_line(n)
        if b'"turn_context"' in raw:
            record = parse_object(raw)
            payload = record.get("payload")
            if record.get("type") == "turn_context" and isinstance(payload, dict):
                scan.model = payload["model"] if isinstance(payload.get("model"), str) else scan.model
            continue
        if kinds[n] != LineKind.META:
            continue
        total = _token_usage(raw, "total_token_usage")
        if total is None or _count(total, "total_tokens") == scan.before:
            continue
        scan.before, scan.last = _count(total, "total_tokens"), total
        usage = _token_usage(raw, "last_token_usage") or total
        counts = response_counts(usage)
        summed = scan.summed
        scan.summed = [summed[0] + counts[0] + counts[2], summed[1] + counts[1], summed[2] + counts[2]]
        scan.found.append(Response(scan.entry, scan.model, "openai", *counts, time=_time_of(raw)))
    scan.lines = len(kinds)
    found, last, summed = list(scan.found), scan.last, scan.summed
    if last is not None:
        rest = [_count(last, "input_tokens") - summed[0], _count(last, "output_tokens") - summed[1]]
        cached = _count(last, "cached_input_tokens") - summed[2]
        if rest[0] > 0 or rest[1] > 0:
            first = found[0].model if found else scan.model
            found.insert(0, Response(-1, first, "openai", max(0, rest[0] - cached), max(0, rest[1]), max(0, cached), 0))
    return found
