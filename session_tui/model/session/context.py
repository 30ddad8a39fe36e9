"""What the model would be sent at a leaf, and whether its tool calls are answered.

The context at a leaf is built once per refresh of the session and kept in
its memo; after a refresh that only appended entries below that leaf, it is
extended by what they add (``Format.context_tail``) rather than built again.
Tool pairing is fed the context as it grows, so a live file costs only what
was appended.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..entries.pairing import ContextItem, Pairing, ToolIssue
from ..reading.segment import Shape

if TYPE_CHECKING:  # pragma: no cover
    from ..formats.base import Sent
    from .session import Session

#: (context items, notes: (0-based line, text)) at a leaf
Built = tuple[list[ContextItem], list[tuple[int, str]]]
Issues = tuple[list[ToolIssue], list[ToolIssue]]


@dataclass
class KeptContext:
    """What was worked out at one leaf, and at which refresh (kept in the session's memo)."""

    refreshes: int = -1  # ``Session.refreshes`` when ``built`` was built
    leaf: int = -1
    model: str | None = None  # ``Session.resume_model`` when it was built (the context can depend on it)
    built: Built | None = None
    entries: int = 0  # entries of the tree when it was built
    pairing: Pairing | None = None
    #: (refreshes, leaf, issues) of a light pass
    light: tuple[int, int, Issues] | None = None


def _leaf(session: Session, leaf: int | None) -> int:
    return session.active_leaf() if leaf is None else leaf


def context_items(
    session: Session, leaf: int | None = None, should_stop: Callable[[], bool] | None = None
) -> list[ContextItem]:
    """(entry, message) pairs the model would be sent from ``leaf``
    (default: the active leaf), summaries applied."""
    leaf = _leaf(session, leaf)
    if leaf < 0:
        return []
    return _context(session, leaf, should_stop)[0]


def context_at(session: Session, leaf: int | None = None) -> list[dict[str, Any]]:
    """The messages the model would be sent from ``leaf`` (the store
    design's ``messagesForActiveBranch``)."""
    return [message for _, message in context_items(session, leaf)]


def _context(session: Session, leaf: int, should_stop: Callable[[], bool] | None = None) -> Built:
    """(items, notes) at ``leaf``, built once per refresh."""
    kept = session.memo.of(KeptContext)
    if kept.model != session.resume_model:
        kept.built, kept.pairing, kept.light = None, None, None  # (built for another model)
    if kept.built is not None and kept.refreshes == session.refreshes and kept.leaf == leaf:
        return kept.built
    built = _extended(session, kept, leaf) or session.format.context_and_notes(session, leaf, should_stop)
    kept.refreshes, kept.leaf, kept.built, kept.entries = session.refreshes, leaf, built, session.tree.count
    kept.model = session.resume_model
    return built


def _extended(session: Session, kept: KeptContext, leaf: int) -> Built | None:
    """The context at ``leaf`` as the one built before plus what the entries
    appended since add, when ``leaf`` continues that leaf through new
    entries only and the format can extend it (no summary among them);
    None: build it again."""
    if kept.built is None:
        return None
    items, notes = kept.built
    parent = session.tree.parent
    added: list[int] = []
    entry = leaf
    while entry != kept.leaf:
        if entry < kept.entries:  # a path through older entries: another branch
            return None
        added.append(entry)
        entry = parent[entry]
    added.reverse()
    tail = session.format.context_tail(session, added)
    return None if tail is None else (items + tail if tail else items, notes)


def resume_items(
    session: Session, leaf: int | None = None, should_stop: Callable[[], bool] | None = None
) -> list[Sent]:
    """What the format's client sends the model when it resumes at ``leaf``
    (default: the active leaf): the context with the client's own merging
    and repairs, its additions marked (docs/architecture.md#fidelity)."""
    leaf = _leaf(session, leaf)
    if leaf < 0:
        return []
    return session.format.resume(session, context_items(session, leaf, should_stop))


def tool_issues(
    session: Session, leaf: int | None = None, should_stop: Callable[[], bool] | None = None, light: bool = False
) -> Issues:
    """(dangling calls, orphan results) in the context at ``leaf``;
    ``light``: a one-shot answer that reads only the records that call or
    answer a tool, where the format can (the context is not kept)."""
    leaf = _leaf(session, leaf)
    kept = session.memo.of(KeptContext)
    built_here = kept.built is not None and kept.refreshes == session.refreshes and kept.leaf == leaf
    if light and not built_here and leaf >= 0:
        if kept.light is not None and kept.light[:2] == (session.refreshes, leaf):
            return kept.light[2]
        stream = session.format.tool_stream(session, leaf, should_stop)
        if stream is not None:
            found = _at_calls(session, Pairing(session.format).read(stream))
            kept.light = (session.refreshes, leaf, found)
            return found
    items = context_items(session, leaf, should_stop)
    pairing = kept.pairing
    if pairing is None or pairing.fmt is not session.format or not pairing.continues(items):
        pairing = Pairing(session.format)
    found = pairing.feed(items)
    kept.pairing = pairing
    return _at_calls(session, found)


def _at_calls(session: Session, found: Issues) -> Issues:
    """``found`` with each dangling call at the entry that records it."""
    fmt, (dangling, orphans) = session.format, found
    return [ToolIssue(fmt.call_entry(session, d.entry, d.call_id), d.call_id) for d in dangling], orphans


def tool_name(session: Session, entry: int, call_id: str) -> str:
    """The name of the tool ``call_id`` of the call entry ``entry`` calls."""
    calls = session.format.view(session.record(entry)).tool_calls
    return next((c.name for c in calls if c.id == call_id), "tool")


def failed_results(session: Session, leaf: int | None = None) -> list[int]:
    """The tool results on the path to ``leaf`` (default: the active leaf)
    that their client marks as failed: Claude Code's ``is_error``, pi's
    ``isError``, a Codex command's non-zero exit. Only the result entries'
    records are read."""
    leaf = _leaf(session, leaf)
    if leaf < 0 or not session.format.marks_errors:
        return []
    shape, view, record = session.tree.shape, session.format.view, session.record
    return [
        entry for entry in session.tree.path_to(leaf) if shape[entry] & Shape.RESULT and view(record(entry)).is_error
    ]
