"""What a session raises an alert for, and how often one is told."""

from __future__ import annotations

from .observe import AgentState, Observation

ERRORS_IN_A_ROW = 3
FULL = 0.9  # context fill over this: an alert
RECENT = 60.0  # seconds a compaction is news
EVERY = 60.0  # seconds between two notices of one session

STUCK, CRASHED, ERROR, CONTEXT, COMPACTION = "stuck", "crashed", "error", "context", "compaction"


def alerts_of(observed: Observation, now: float) -> list[str]:
    out = []
    if observed.state is AgentState.STUCK:
        out.append(STUCK)
    if observed.state is AgentState.CRASHED:
        out.append(CRASHED)
    if observed.failed_in_a_row >= ERRORS_IN_A_ROW:
        out.append(ERROR)
    fill = observed.fill
    if fill is not None and fill > FULL:
        out.append(CONTEXT)
    if observed.compacted_at is not None and 0 <= now - observed.compacted_at < RECENT:
        out.append(COMPACTION)
    return out


class NoticeGate:
    """At most one notice per session per EVERY seconds, and only of alerts
    it did not have before."""

    def __init__(self) -> None:
        self._told: dict[str, float] = {}
        self._had: dict[str, frozenset[str]] = {}

    def due(self, key: str, alerts: list[str], now: float) -> list[str]:
        """The alerts of ``key`` to tell now (empty: none, or told too recently)."""
        new = [a for a in alerts if a not in self._had.get(key, frozenset())]
        self._had[key] = frozenset(alerts)
        if not new or now - self._told.get(key, -EVERY) < EVERY:
            return []
        self._told[key] = now
        return new
