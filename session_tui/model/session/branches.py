"""Branches of a session: every leaf with where it forks, and two of them
compared step by step from their fork point.

A branch is the path root → a leaf; what is its own is the part after its
fork point, the nearest entry above it with two or more children in the
conversation (asides are no children). Formats whose history is one line
(Codex) have branches that ended: turns a rollback undid
(``Format.ended_runs``). The list costs the forks, not the entries; the
details of a branch read only its own part, and a compare only the two
paths.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..entries.tokens import TokenCounts, counts_of, tokens_text
from ..entries.tree import NONE
from ..entries.view import EntryView, parse_time, typed_prompt
from ..privacy.secrets import find_secrets
from ..reading.segment import Shape
from ..words import human_seconds, plural
from .usage import responses

if TYPE_CHECKING:  # pragma: no cover
    from .session import Session

PREVIEW = 200  # characters of an entry's text kept for a row

#: what makes two steps the same: role, text, tool calls (name, arguments), the call a result answers
StepKey = tuple[str, str, tuple[tuple[str, str], ...], str | None]


@dataclass(frozen=True)
class Branch:
    leaf: int  # its last entry
    fork: int  # where it leaves its siblings (-1: from the start)
    first: int  # its first own entry, after the fork
    active: bool = False  # the active leaf is its leaf


@dataclass
class Step:
    """One entry as a compare row or a diff line shows it."""

    entry: int
    line: int  # 1-based
    id: str | None
    role: str
    kind: str
    preview: str  # the first line of its text, or its tool calls
    key: StepKey  # what makes two steps the same
    is_error: bool = False
    time: float | None = None
    calls: int = 0


@dataclass
class Details:
    """What the branch list shows of a branch beyond its position."""

    label: str
    fork_line: int | None
    fork_time: float | None
    steps: int
    tokens: TokenCounts  # of its own responses (``total_tokens``)
    last_time: float | None
    ends: str


@dataclass
class Side:
    branch: Branch
    steps: list[Step]
    tokens: TokenCounts = field(default_factory=TokenCounts)
    tool_calls: int = 0
    errors: int = 0
    span_s: float | None = None
    ends: str = ""


@dataclass
class Comparison:
    fork: int  # the last entry both paths share (-1: none)
    a: Side
    b: Side
    rows: list[tuple[int | None, int | None, bool]] = field(default_factory=list)  # (step of a, of b, equal)
    truncated: bool = False  # a side had more than the steps compared

    @property
    def first_divergence(self) -> int | None:
        return next((k for k, (_, _, same) in enumerate(self.rows) if not same), None)


# -- the list ---------------------------------------------------------------------
def branches(session: Session) -> list[Branch]:
    """Every branch, the most recently written first (in an append-only
    file the later leaf was written later). A branch ends where the model's
    view of it ends (``seen_end``); an active leaf that is no end (the leaf
    moved back) is a branch of its own."""
    tree, fmt = session.tree, session.format
    active = active_end(session)
    if not tree.count:
        return []
    ended = fmt.ended_runs(session)
    if fmt.linear:  # one line: the turns a rollback undid ended there; the line went on after the last
        out = [Branch(last, first - 1, first) for first, last in ended]
        if active >= 0:
            fork = ended[-1][0] - 1 if ended else NONE
            first = ended[-1][1] + 1 if ended else 0
            out.append(Branch(active, fork, min(first, active), True))
    else:
        ends = [end for end in map(lambda leaf: seen_end(session, leaf), tree.conversation_leaves()) if end is not None]
        ends = list(dict.fromkeys(ends))
        if active >= 0 and active not in ends:
            ends.append(active)
        out = [Branch(end, *fork_of(session, end), end == active) for end in ends]
    out.sort(key=lambda b: -session.line_of(b.leaf))
    return out


def active_end(session: Session) -> int:
    """The active leaf as a branch ends there: past the records that only
    mark something (pi's leaf pointer, appended under the entry it makes
    the leaf, would else be a second branch of the same path)."""
    tree, node = session.tree, session.active_leaf()
    while node >= 0 and not is_step(session, node) and tree.parent[node] != NONE:
        node = tree.parent[node]
    return node


def seen_end(session: Session, leaf: int) -> int | None:
    """Where a branch ends for the model: ``leaf``, or the entry before the
    records that only mark something that close it (Claude Code's turn
    durations, a leaf pointer; a record of a type the format does not know,
    a label or a bookmark, is a node: a branch may end there); None when
    those records sit beside a conversation that goes on (no branch ends
    there)."""
    tree = session.tree
    shape, parent = tree.shape, tree.parent
    end = leaf
    while not is_step(session, end) and parent[end] != NONE:
        end = parent[end]
    if end != leaf and any(not shape[c] & (Shape.QUIET | Shape.ASIDE) for c in tree.children(end)):
        return None
    return end


def is_step(session: Session, entry: int) -> bool:
    """Whether ``entry`` is a node of its branch's path, as the tree shows
    it: every entry the model sees, and every record of a type the format
    does not know (a label, a bookmark: ``OTHER`` and quiet); not the
    quiet records that only mark something (a turn's duration, a hook's
    summary, session-tui's leaf pointer) nor the asides (progress)."""
    shape = session.tree.shape[entry]
    if not shape & Shape.QUIET:
        return True
    return shape == Shape.OTHER | Shape.QUIET and not session.format.is_leaf_pointer(session.record(entry))


def fork_of(session: Session, leaf: int) -> tuple[int, int]:
    """(fork point, first own entry) of the branch ending at ``leaf``."""
    return session.tree.fork_above(leaf)


def own_entries(session: Session, branch: Branch) -> list[int]:
    """The branch's entries after its fork point, in path order (read from
    the path's runs: the part above the fork is not walked)."""
    if session.format.linear:
        path = branch_path(session, branch)
        return path[path.index(branch.fork) + 1 :] if branch.fork != NONE else path
    tree = session.tree
    breaks, parent = tree.run_breaks(), tree.parent
    runs: list[range] = []
    node = branch.leaf
    while node != NONE:  # up the runs, to the one the branch's first entry is in
        k = bisect_left(breaks, node)
        start = breaks[k - 1] + 1 if k else 0
        if start <= branch.first:
            runs.append(range(branch.first, node + 1))
            break
        runs.append(range(start, node + 1))
        node = parent[start]
    return [e for run in reversed(runs) for e in run]


def label(session: Session, branch: Branch, own: list[int] | None = None) -> str:
    """Its first user message after the fork point, else its first entry:
    the shape bytes say which, one record is read."""
    own = own_entries(session, branch) if own is None else own
    shape = session.tree.shape
    for entry in own:  # a prompt a person typed, not injected context (<environment_context>, a reminder)
        if shape[entry] & (Shape.ROLE_MASK | Shape.RESULT) == Shape.USER and not shape[entry] & Shape.QUIET:
            record = session.record(entry)
            typed = typed_prompt(record, session.format.view(record))
            if typed:
                return cut(typed)
    return step(session, own[0]).preview if own else "(no entries of its own)"


def branch_path(session: Session, branch: Branch) -> list[int]:
    """The entries root → leaf the branch consists of. In a one-line format
    with rolled-back turns: the entries the model still sees up to its leaf
    (an ended branch: up to its fork, then its own run)."""
    tree, fmt = session.tree, session.format
    if not fmt.linear:
        return list(tree.path_to(branch.leaf))
    undone = {e for first, last in fmt.ended_runs(session) for e in range(first, last + 1)}
    if branch.active or branch.fork == NONE:
        return [e for e in range(branch.leaf + 1) if e not in undone]
    return [e for e in range(branch.fork + 1) if e not in undone] + list(range(branch.first, branch.leaf + 1))


def details(session: Session, branch: Branch) -> Details:
    """Label, fork, length, tokens, last activity and ending of ``branch``:
    reads its own entries only."""
    own = own_entries(session, branch)
    steps = [step(session, e) for e in own if is_step(session, e)]
    fork_line = session.line_of(branch.fork) if branch.fork != NONE else None
    fork_time = step(session, branch.fork).time if branch.fork != NONE else None
    tokens = total_tokens(session, steps)
    times = [s.time for s in steps if s.time is not None]
    return Details(
        label(session, branch, own),
        fork_line,
        fork_time,
        len(steps),
        tokens,
        max(times) if times else None,
        ending(session, branch.leaf, steps[-1] if steps else None),
    )


def ending(session: Session, leaf: int, last: Step | None = None) -> str:
    """How a branch ends: an answer, a dangling call, an error result, a
    summary, a user message (waiting for the model), or another record."""
    if last is None:  # from the leaf, past quiet records (a leaf pointer is no step)
        tree, node = session.tree, leaf
        while not is_step(session, node) and tree.parent[node] != NONE:
            node = tree.parent[node]
        last = step(session, node)
    shape = session.tree.shape[last.entry]
    if shape & Shape.SUMMARY:
        return "summary"
    if shape & Shape.CALLS:
        return "dangling call"
    if shape & Shape.RESULT:
        return "error result" if last.is_error else "tool result"
    role = shape & Shape.ROLE_MASK
    if role == Shape.ASSISTANT:
        return "answer"
    if role == Shape.USER:
        return "user message"
    return last.role or "record"


# -- one step -----------------------------------------------------------------------
def cut(text: str, limit: int = PREVIEW) -> str:
    """``text`` cut to ``limit`` characters, never through a secret (a piece
    of one is no longer recognised, so no longer masked): the cut moves to
    the secret's start."""
    if len(text) <= limit:
        return text
    for found in find_secrets(text):
        if found.start < limit < found.end:
            limit = found.start
    return text[:limit]


def step(session: Session, entry: int) -> Step:
    fmt = session.format
    record = session.record(entry)
    view: EntryView = fmt.view(record)
    text = cut(" ".join(view.text.split()))
    calls = [f"{c.name}({' '.join(c.arguments.split())})" for c in view.tool_calls]
    preview = text or ("→ " + ", ".join(calls) if calls else "")
    if calls and text:
        preview = f"{text} → {', '.join(calls)}"
    key = (view.role, view.text, tuple((c.name, c.arguments) for c in view.tool_calls), view.result_for)
    return Step(
        entry,
        session.line_of(entry),
        view.id,
        view.role,
        view.kind,
        cut(preview),
        key,
        _is_error(view, record),
        parse_time(view.time),
        len(view.tool_calls),
    )


def total_tokens(session: Session, steps: list[Step]) -> TokenCounts:
    """The tokens of the responses ``steps`` record: the session's one count
    (``usage.responses``, a response written over several entries once)
    over these steps."""
    wanted = {s.entry for s in steps}
    return counts_of(r for r in responses(session) if r.entry in wanted)


_ERROR_STARTS = ("error", "[error]", "aborted", "[tool call interrupted", "[tool result missing")


def _is_error(view: EntryView, record: dict[str, Any]) -> bool:
    """A tool result that reports a failure: flagged (pi's ``isError``, a
    ``tool_result``'s ``is_error``, shown as ``[error]``) or worded as one."""
    if view.result_for is None:
        return False
    return view.is_error or view.text.lstrip().lower().startswith(_ERROR_STARTS)


# -- compare --------------------------------------------------------------------------
def compare(session: Session, a: Branch, b: Branch, max_steps: int | None = None) -> Comparison:
    """The two branches from their fork point (the last entry their paths
    share), steps aligned: equal steps side by side, the others as they
    come; at most ``max_steps`` of each side (the first ones)."""
    path_a, path_b = branch_path(session, a), branch_path(session, b)
    common = 0
    for x, y in zip(path_a, path_b, strict=False):
        if x != y:
            break
        common += 1
    fork = path_a[common - 1] if common else NONE
    own_a, own_b = path_a[common:], path_b[common:]
    truncated = max_steps is not None and max(len(own_a), len(own_b)) > max_steps
    side_a = _side(session, a, own_a[:max_steps])
    side_b = _side(session, b, own_b[:max_steps])
    matcher = difflib.SequenceMatcher(
        None, [s.key for s in side_a.steps], [s.key for s in side_b.steps], autojunk=False
    )
    rows: list[tuple[int | None, int | None, bool]] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            rows.extend((i, j, True) for i, j in zip(range(i1, i2), range(j1, j2), strict=True))
        else:
            for k in range(max(i2 - i1, j2 - j1)):
                rows.append((i1 + k if i1 + k < i2 else None, j1 + k if j1 + k < j2 else None, False))
    return Comparison(fork, side_a, side_b, rows, truncated)


def _side(session: Session, branch: Branch, entries: list[int]) -> Side:
    steps = [step(session, e) for e in entries if is_step(session, e)]
    times = [s.time for s in steps if s.time is not None]
    return Side(
        branch,
        steps,
        total_tokens(session, steps),
        sum(s.calls for s in steps),
        sum(s.is_error for s in steps),
        max(times) - min(times) if len(times) > 1 else (0.0 if times else None),
        ending(session, branch.leaf, steps[-1] if steps else None),
    )


def summary(session: Session, side: Side) -> tuple[str, str]:
    """Two lines about a side: its leaf, length and ending; tokens, tool
    calls, errors and time span."""
    leaf = side.branch.leaf
    record_id = session.format.entry_id(session.record(leaf))
    name = (
        f" ({record_id[:8]}…)"
        if isinstance(record_id, str) and len(record_id) > 12
        else (f" ({record_id})" if isinstance(record_id, str) else "")
    )
    return (
        f"leaf line {session.line_of(leaf)}{name}{' · active' if side.branch.active else ''} · "
        f"{plural(len(side.steps), 'step')} · ends: {side.ends}",
        f"tokens {tokens_text(side.tokens, exact=True) or 'none'} · {plural(side.tool_calls, 'tool call')} · "
        f"{plural(side.errors, 'error')}"
        + (f" · {human_seconds(side.span_s, second_digits=0)}" if side.span_s is not None else ""),
    )


def branch_of_leaf(session: Session, leaf: int) -> Branch:
    """The listed branch that ends at ``leaf``, or one made for it."""
    for branch in branches(session):
        if branch.leaf == leaf:
            return branch
    if session.format.linear:  # inside a turn a rollback undid: that branch, up to this entry
        for first, last in session.format.ended_runs(session):
            if first <= leaf <= last:
                return Branch(leaf, first - 1, first)
    return Branch(leaf, *fork_of(session, leaf), leaf == active_end(session))


def default_pair(session: Session) -> tuple[Branch, Branch] | None:
    """The active branch and the most recently written other one."""
    found = branches(session)
    active = next((b for b in found if b.active), None)
    other = next((b for b in found if not b.active), None)
    return (active, other) if active and other else None


def pair_at_fork(session: Session, fork: int) -> tuple[Branch, Branch] | None:
    """Two branches through two children of ``fork``: the one holding the
    active leaf if it passes there, and the most recently written other."""
    tree = session.tree
    kids = [c for c in tree.children(fork) if not tree.shape[c] & Shape.ASIDE]
    if len(kids) < 2:
        return None
    by_child: dict[int, Branch] = {}
    for branch in branches(session):  # the most recent first
        runs = tree.path_runs(branch.leaf)
        child = next((c for c in kids if any(s <= c <= e for s, e in runs)), None)
        if child is not None and (child not in by_child or branch.active):
            by_child[child] = branch
    picked = sorted(by_child.values(), key=lambda b: (not b.active, -session.line_of(b.leaf)))
    return (picked[0], picked[1]) if len(picked) >= 2 else None
