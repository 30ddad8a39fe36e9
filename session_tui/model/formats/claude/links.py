"""What a Claude Code transcript links to beyond itself: the sub-agent
transcripts its Task/Agent calls spawned (``<session id>/subagents/``) and
the session it was forked from (``forkedFrom``)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from ...entries.pairing import partner
from ...entries.view import content_text
from ...reading.records import BadLine
from ...reading.segment import Shape
from ..base import Session

SUBAGENT_SKIP = "agent-acompact-"  # internal compaction helpers, not spawned by a call
_AGENT_IN_TEXT = re.compile(r"agentId:\s*([A-Za-z0-9_-]+)")


@dataclass
class _SubagentScan:
    """Which results name which subagent transcript, scanned up to ``scanned``."""

    wanted: dict[str, str] | None = None
    scanned: int = 0
    found: dict[int, str] = field(default_factory=dict)


def subagents(session: Session) -> dict[int, str]:
    """Sub-agent transcripts found beside the file, by the entry of the
    Task/Agent call whose result names their agent id
    (``toolUseResult.agentId`` or ``agentId: …`` in its text). Files no
    result names are left out."""
    folder = os.path.join(
        os.path.dirname(session.path), os.path.basename(session.path).removesuffix(".jsonl"), "subagents"
    )
    try:
        names = sorted(
            n
            for n in os.listdir(folder)
            if n.startswith("agent-") and n.endswith(".jsonl") and not n.startswith(SUBAGENT_SKIP)
        )
    except OSError:
        return {}
    wanted = {n[len("agent-") : -len(".jsonl")]: os.path.join(folder, n) for n in names}
    memo = session.memo.of(_SubagentScan)
    if memo.wanted != wanted:  # new transcripts: look at every result again
        memo.wanted, memo.scanned, memo.found = wanted, 0, {}
    found = memo.found
    tree = session.tree
    for entry in range(memo.scanned, tree.count):  # only results added since the last call
        if not tree.shape[entry] & Shape.RESULT:
            continue
        for agent_id in _agent_ids(session.record(entry)):
            if agent_id in wanted:
                call = partner(session, entry)
                found[entry if call is None else call] = wanted[agent_id]
    memo.scanned = tree.count
    return dict(found)


def origin(session: Session) -> str | None:
    """A fork copies its source's records, each with ``forkedFrom``: the
    last copied one names the record it was forked at (found by bisection:
    the copies are a prefix of the file)."""

    def forked(entry: int) -> dict[str, Any] | None:
        try:
            value = session.record(entry).get("forkedFrom")
        except (BadLine, OSError):
            return None
        return value if isinstance(value, dict) and value.get("sessionId") else None

    if not session.tree.count or forked(0) is None:
        return None
    low, high = 0, session.tree.count - 1  # forked(low) holds; find the last that does
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if forked(mid) is not None else (low, mid - 1)
    last = forked(low)  # None only if the record could not be read again
    return None if last is None else f"session {last.get('sessionId')} at {last.get('messageUuid')}"


def _agent_ids(record: dict[str, Any]) -> list[str]:
    found: list[str] = []
    result = record.get("toolUseResult")
    if isinstance(result, dict) and isinstance(result.get("agentId"), str):
        found.append(result["agentId"])
    for block in _message_of(record).get("content") or ():
        if isinstance(block, dict) and block.get("type") == "tool_result":
            found.extend(_AGENT_IN_TEXT.findall(content_text(block.get("content"))))
    return found


def _message_of(record: dict[str, Any]) -> dict[str, Any]:
    message = record.get("message")
    return message if isinstance(message, dict) else {}
