"""The rows of the entry view, derived from the tree (no Textual here).

Layout: the active branch is the spine at depth 0, from its root to the
active leaf. At a fork, the branch that continues the spine is the child on
the active branch (or, off it, the newest child); every other child starts
an alternative branch one level deeper, folded by default to its first row.
Roots other than the active one follow the main tree, folded the same way.
Depth is fork nesting, never conversation length.

Rows are kept as *runs*: consecutive entries each of which is the parent of
the next (``SessionTree.run_breaks``). Building the layout costs O(forks),
and row ↔ entry lookups are binary searches, so a 2-million-entry session
lays out in milliseconds.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING

from ..entries.tree import QUIET_BITS
from ..reading.segment import Shape

if TYPE_CHECKING:  # pragma: no cover
    from .session import Session

NONE = -1

#: runs as columns: head entry, length, depth, flags
Runs = tuple["array[int]", "array[int]", "array[int]", bytearray]


class RowFlag:
    ALT_HEAD = 1  # first row of an alternative branch (or an extra root)
    FOLDED = 2  # ...whose rest is hidden
    ACTIVE = 4  # on the active branch
    PENDING = 8  # not an entry: the torn tail, waiting for its newline


@dataclass(frozen=True)
class Row:
    entry: int  # -1 for the pending row
    depth: int
    flags: int


class RowLayout:
    def __init__(self, session: Session, expanded: set[int] | None = None, show_quiet: bool = False) -> None:
        """``show_quiet``: also show the rows of records the model never
        sees (Claude Code progress, turn durations); by default they are
        left out and counted on the row they follow (``folded``)."""
        self.session = session
        self.expanded: set[int] = expanded if expanded is not None else set()
        self.show_quiet = show_quiet
        self.build()

    # -- building -----------------------------------------------------------------
    def build(self) -> None:
        tree = self.session.tree
        self.leaf = self.session.active_leaf()
        self.breaks = tree.run_breaks()
        self.hiding = bool(tree.quiet) and not self.show_quiet
        self.folded: dict[int, int] = {}  # visible entry -> quiet records left out after it
        self._counting = True
        self.active_child: dict[int, int] = {}
        self.active_root = self._walk_active_path() if self.leaf >= 0 else NONE
        stack: list[tuple[int, int, int]] = []
        extra_roots = sorted(r for r in tree.roots - {self.active_root} if not self._hidden_branch(r))
        if self.hiding and self.active_root != NONE:  # progress before the first record: counted on the root
            self._fold_in(
                self.active_root,
                sum(self._branch_size(r) for r in tree.roots - {self.active_root} if self._hidden_branch(r)),
            )
        stack.extend((r, 0, RowFlag.ALT_HEAD) for r in reversed(extra_roots))
        if self.active_root != NONE:
            stack.append((self.active_root, 0, RowFlag.ACTIVE))
        self.heads, self.lengths, self.depths, self.flags = self._runs(stack)
        self._counting = False  # a fold redoes runs: counted once
        self.pending = bool(self.session.lines.torn)
        self._index()

    def _runs(self, stack: list[tuple[int, int, int]]) -> Runs:
        """Depth-first over runs from ``stack`` (head, depth, flags): each
        fork's alternatives right after it, its continuation after them."""
        tree, breaks, expanded = self.session.tree, self.breaks, self.expanded
        heads, lengths, depths, flags = array("i"), array("I"), array("H"), bytearray()
        while stack:
            head, depth, flag = stack.pop()
            if flag & RowFlag.ALT_HEAD and head not in expanded:
                heads.append(head)
                lengths.append(1)
                depths.append(depth)
                flags.append(flag | RowFlag.FOLDED)
                continue
            end = breaks[bisect_left(breaks, head)]
            for start, stop in self._visible(head, end):
                heads.append(start)
                lengths.append(stop - start)
                depths.append(depth)
                flags.append(flag)
                flag &= ~RowFlag.ALT_HEAD
            kids = tree.children(end)
            if self.hiding:
                shown = [k for k in kids if not self._hidden_branch(k)]
                if len(shown) < len(kids):
                    self._fold_in(end, sum(self._branch_size(k) for k in kids if k not in shown))
                kids = shown
            if not kids:
                continue
            main = self.active_child.get(end, kids[-1])
            if main not in kids:
                main = kids[-1]
            stack.append((main, depth, flag & RowFlag.ACTIVE))
            for kid in reversed(kids):
                if kid != main:
                    stack.append((kid, depth + 1, RowFlag.ALT_HEAD))
        return heads, lengths, depths, flags

    # -- quiet records ----------------------------------------------------------------
    def _visible(self, head: int, end: int) -> list[tuple[int, int]]:
        """[start, stop) spans of the entries head..end that are shown; each
        hidden span is counted on the entry before it (or the one after)."""
        if not self.hiding:
            return [(head, end + 1)]
        marks = self.session.tree.shape[head : end + 1].tobytes().translate(QUIET_BITS)
        spans: list[tuple[int, int]] = []
        pos, n = 0, len(marks)
        while pos < n:
            hidden_end = marks.find(0, pos)
            if hidden_end < 0:
                hidden_end = n
            if hidden_end > pos:  # a hidden span
                owner = (
                    head + pos - 1 if pos else (head + hidden_end if hidden_end < n else self.session.tree.parent[head])
                )
                if owner >= 0:
                    self._fold_in(owner, hidden_end - pos)
                pos = hidden_end
                continue
            stop = marks.find(1, pos)
            stop = n if stop < 0 else stop
            spans.append((head + pos, head + stop))
            pos = stop
        if not spans and head == self.leaf:  # never hide the leaf itself
            spans.append((head, head + 1))
        return spans

    def _fold_in(self, entry: int, count: int) -> None:
        if count and self._counting:
            self.folded[entry] = self.folded.get(entry, 0) + count

    def _hidden_branch(self, head: int) -> bool:
        """A branch left out while hiding: it starts with a quiet aside
        (a progress stream beside a call)."""
        return self.hiding and self.session.tree.shape[head] & (Shape.QUIET | Shape.ASIDE) == Shape.QUIET | Shape.ASIDE

    def _branch_size(self, head: int) -> int:
        tree, count, stack = self.session.tree, 0, [head]
        while stack:
            node = stack.pop()
            count += 1
            stack.extend(tree.children(node))
        return count

    def _index(self) -> None:
        """Row offsets of the runs; the runs sorted by head entry are built
        when first asked for (a fold needs only the offsets)."""
        self.first_rows = array("I", accumulate(self.lengths, initial=0))
        self.entry_rows = self.first_rows.pop()
        self._sorted: tuple[array[int], array[int]] | None = None

    def _heads_index(self) -> tuple[array[int], array[int]]:
        if self._sorted is None:
            order = sorted(range(len(self.heads)), key=self.heads.__getitem__)
            self._sorted = (array("i", map(self.heads.__getitem__, order)), array("i", order))
        return self._sorted

    def _run_at(self, row: int) -> int:
        return bisect_right(self.first_rows, row) - 1

    def _run_of_head(self, entry: int, row: int | None = None) -> int | None:
        if row is not None:
            run = self._run_at(row)
            return run if self.heads[run] == entry else None
        by_head, by_head_run = self._heads_index()
        k = bisect_left(by_head, entry)
        if k < len(by_head) and by_head[k] == entry:
            return by_head_run[k]
        return None

    def _splice(self, run: int, count: int, new: Runs) -> None:
        """Replace runs [run, run + count) by the runs ``new``."""
        for name, values in zip(("heads", "lengths", "depths", "flags"), new, strict=True):
            getattr(self, name)[run : run + count] = values

    def _walk_active_path(self) -> int:
        """Record, for each fork on the active branch, which child continues
        it; return the active root. Jumps a run at a time."""
        tree, breaks = self.session.tree, self.breaks
        parent = tree.parent
        node = self.leaf
        while True:
            k = bisect_left(breaks, node)
            start = breaks[k - 1] + 1 if k else 0
            up = parent[start]
            if up == NONE:
                return start
            self.active_child[up] = start
            node = up

    # -- queries ------------------------------------------------------------------
    def __len__(self) -> int:
        return self.entry_rows + self.pending

    def at(self, row: int) -> Row:
        if row >= self.entry_rows:
            return Row(NONE, 0, RowFlag.PENDING)
        k = self._run_at(row)
        entry = self.heads[k] + row - self.first_rows[k]
        flags = self.flags[k]
        if entry != self.heads[k]:
            flags &= ~(RowFlag.ALT_HEAD | RowFlag.FOLDED)
        if flags & RowFlag.ACTIVE and entry > self.leaf >= self.heads[k]:
            flags &= ~RowFlag.ACTIVE  # past the active leaf (it was moved back)
        return Row(entry, self.depths[k], flags)

    def row_of(self, entry: int) -> int | None:
        """The row showing ``entry``, or None if it is folded away."""
        by_head, by_head_run = self._heads_index()
        k = bisect_right(by_head, entry) - 1
        if k < 0:
            return None
        run = by_head_run[k]
        offset = entry - self.heads[run]
        return self.first_rows[run] + offset if offset < self.lengths[run] else None

    def shown_entry(self, entry: int) -> int:
        """``entry``, or for one without a row (a quiet record, counted on the
        row before it; a folded branch's) the nearest entry before it with
        one: where a cursor sent to ``entry`` lands. -1: none."""
        parent = self.session.tree.parent
        while entry >= 0 and self.row_of(entry) is None:
            entry = parent[entry]
        return entry

    def alternatives_of(self, entry: int) -> list[int]:
        """Children of ``entry`` that start alternative branches."""
        kids = self.session.tree.children(entry)
        if len(kids) < 2:
            return []
        main = self.active_child.get(entry, kids[-1])
        return [k for k in kids if k != main]

    # -- folding ------------------------------------------------------------------
    def toggle(self, entry: int, row: int | None = None) -> bool:
        """Fold or unfold at ``entry`` (shown on ``row``, if known): an
        alternative head toggles its branch; a fork toggles all its
        alternatives. Returns True if the layout changed. Only the runs of
        the toggled branches are redone; the entry keeps its row."""
        run = self._run_of_head(entry, row)
        if run is not None and self.flags[run] & RowFlag.ALT_HEAD:
            self._toggle_head(entry, not self.flags[run] & RowFlag.FOLDED)
        else:
            alts = self.alternatives_of(entry)
            if not alts:
                return False
            fold = all(a in self.expanded for a in alts)
            for alt in alts:
                if (alt in self.expanded) == fold:
                    self._toggle_head(alt, fold)
        return True

    def _toggle_head(self, head: int, fold: bool) -> None:
        run = self._run_of_head(head)
        if run is None:  # hidden inside a folded branch: only remember the choice
            (self.expanded.discard if fold else self.expanded.add)(head)
            return
        start = (head, self.depths[run], RowFlag.ALT_HEAD)
        if fold:
            count = len(self._runs([start])[0])  # the runs its branch takes now
            self.expanded.discard(head)
        else:
            count = 1
            self.expanded.add(head)
        self._splice(run, count, self._runs([start]))
        self._index()

    def reveal(self, entry: int) -> int | None:
        """Unfold whatever hides ``entry``; return its row."""
        row = self.row_of(entry)
        if row is not None:
            return row
        parent = self.session.tree.parent
        node = entry
        while node != NONE:
            up = parent[node]
            if up == NONE or node in self.alternatives_of(up):
                self.expanded.add(node)
            node = up
        self.build()
        return self.row_of(entry)
