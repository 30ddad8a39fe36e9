"""The entry tree in compact arrays: parents, children, roots, leaves.

One slot per entry in each ``array``; the only Python objects per entry are
in ``_members``, the set of id keys (a 60-bit hash of each id) that finds
duplicates (a big file's far half may join it only when a lookup needs it:
``_extend_unsettled``). An id is found by its key in the recent part of ``_keys`` (an
array in entry order): parents and pointers almost always name a recent
entry. The first lookup that misses there builds a full key → entry dict,
which then replaces the set.
Children are implicit where they can be: entry ``i`` whose parent is
``i - 1`` (a linear run, by far the common case) is recorded only in
``parent``; any other link also goes into ``_others`` (parent → children),
which is small: one list per fork. Nothing here is recursive, so a
200,000-deep chain costs no stack.

Parent links are resolved against the entries seen so far; an entry whose
parent has not appeared is a root and waits in ``_pending``. If the parent
appears later in the file the link is made then, unless it would close a
cycle: the entry stays a root and the cycle is reported. Entries are always
added in file order, so the result does not depend on how the file was cut
into reads. ``extend`` takes a whole batch at C speed when the batch has
nothing unusual in it, and goes entry by entry otherwise.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence

from ..reading.segment import KEY_MASK as _KEY_MASK
from ..reading.segment import Segment, Shape

NONE = -1
RECENT = (128, 4096)  # windows of newest entries a lookup searches before building a full index
UNSETTLED_MIN = 100_000  # entries of a far scan's segment whose keys may wait to join _members
_mask = _KEY_MASK.__and__
_SUMMARY = Shape.SUMMARY
_ASIDE = Shape.ASIDE
_QUIET = Shape.QUIET
#: bytes.translate tables: a shape byte -> 1 if it has the bit, else 0 (counted at C speed)
ASIDE_BITS = bytes(1 if b & _ASIDE else 0 for b in range(256))
QUIET_BITS = bytes(1 if b & _QUIET else 0 for b in range(256))


class NeedsIds(Exception):
    """A segment scanned elsewhere (ids left out) cannot take the fast path:
    scan that part again here."""


class SessionTree:
    def __init__(self, linear: bool = False):
        self.linear = linear
        self.entry_line = array("I")  # 0-based physical line of each entry
        self.parent = array("i")
        self.shape = array("B")  # role, tool flags, summary bit (segment.Shape)
        self._keys = array("q")  # id key of each entry
        self._members: set[int] | dict[int, int] = set()  # id keys; a key -> entry dict once built
        self._unsettled: tuple[int, int] | None = None  # entries whose keys are not in _members yet (_settle)
        self._collided: dict[str, int] = {}  # exact ids whose 60-bit key is shared
        self._pending: dict[int, list[int]] = {}  # parent key -> waiting children
        self._pending_ids: dict[int, str] = {}  # waiting child -> its parent id
        self._others: dict[int, list[int]] = {}  # parent -> children not right after it
        self._adjacent = 0  # entries whose parent is the entry before them
        self.roots: set[int] = set()
        self.summaries = 0
        self.asides = 0  # entries beside the conversation: leaves and forks do not count them
        self.quiet = 0  # entries the model never sees (rows hidden by default)
        self._leaves_memo: tuple[int, list[int]] | None = None
        self._breaks_memo: tuple[tuple[int, int, int, int], list[int]] | None = None
        self.duplicates: list[tuple[int, str]] = []  # (line, id) of dropped records
        self.cycles: list[tuple[int, str]] = []  # (line, parent id) of broken links

    @property
    def count(self) -> int:
        return len(self.parent)

    # -- building -----------------------------------------------------------------
    def extend(self, seg: Segment, read_id: Callable[[int], str | None]) -> list[tuple[int, str]]:
        """Add the entries of ``seg`` (in file order).

        Returns (line, reason) of records not added: ids already used (the
        first one wins). ``read_id(entry)`` reads an entry's id back from
        disk; it is only called when two ids share a key.
        """
        if not seg.shapes:
            return []
        if self.linear:
            self._extend_linear(seg)
            return []
        if self._extend_unsettled(seg):
            return []
        self._settle()
        if self._extend_batch(seg):
            return []
        if len(seg.ids) != seg.entry_count:
            raise NeedsIds()
        return self._extend_one_by_one(seg, read_id)

    def rewrite_last(self, line: int, shape: int) -> None:
        """The last entry's record written again at ``line`` (its last copy
        wins): the entry keeps its place and reads that line now."""
        old = self.shape[-1]
        self.entry_line[-1], self.shape[-1] = line, shape
        self.summaries += (shape == _SUMMARY) - (old == _SUMMARY)
        self.asides += bool(shape & _ASIDE) - bool(old & _ASIDE)
        self.quiet += bool(shape & _QUIET) - bool(old & _QUIET)
        self._leaves_memo = self._breaks_memo = None

    def _extend_arrays(self, seg: Segment) -> None:
        self.entry_line.extend(seg.entry_lines)
        self.shape.frombytes(seg.shapes)
        self.summaries += seg.shapes.count(_SUMMARY)
        self.asides += seg.shapes.translate(ASIDE_BITS).count(1)
        self.quiet += seg.shapes.translate(QUIET_BITS).count(1)

    def _extend_linear(self, seg: Segment) -> None:
        start, n = self.count, seg.entry_count
        self._extend_arrays(seg)
        self.parent.extend(range(start - 1, start + n - 1))
        if not start:
            self.roots.add(0)
        self._adjacent += n - (0 if start else 1)

    def _extend_batch(self, seg: Segment) -> bool:
        """The whole segment at C speed, if its ids are new and unique, its
        far parents already known (or null) and nobody waits for its ids.
        Returns False, having changed nothing, otherwise."""
        members = self._members
        n = seg.entry_count
        keys = seg.keys if seg.keys is not None and seg.key_check == hash("session-tui") else None
        if keys is None:
            keys = array("q", map(_mask, map(hash, seg.ids)))
        if self._collided or (isinstance(members, dict) and not members.keys().isdisjoint(keys)):
            return False
        if self._pending and not self._pending.keys().isdisjoint(keys):
            return False
        start = self.count
        size = len(members)
        self._add_keys(keys, start)  # a key seen before shows as a size short of size + n
        far = self._far_parents(seg, start)
        if far is None or len(self._members) != size + n:
            self._drop_keys(keys, start)
            return False
        self._link_batch(seg, start, far)
        return True

    def _far_parents(self, seg: Segment, start: int) -> list[tuple[int, int]] | None:
        """(entry, its parent) of ``seg``'s entries whose parent is not the
        entry before them, its keys added from entry ``start`` on; None: a
        forward or missing parent (the entries are decided one by one)."""
        far: list[tuple[int, int]] = []
        for k, pid in seg.far:
            p = NONE if pid is None else self._index_of_key(hash(pid) & _KEY_MASK, start + k)
            if p is None or p >= start + k:
                return None
            far.append((start + k, p))
        return far

    def _link_batch(self, seg: Segment, start: int, far: list[tuple[int, int]]) -> None:
        """Add ``seg``'s entries from entry ``start`` on, each the child of the
        one before it but for ``far`` (entry, its parent)."""
        n = seg.entry_count
        self._extend_arrays(seg)
        self.parent.extend(range(start - 1, start + n - 1))
        parent = self.parent
        adjacent = n
        for child, p in far:
            parent[child] = p
            if p == NONE:
                self.roots.add(child)
                adjacent -= 1
            elif p != child - 1:
                self._others.setdefault(p, []).append(child)
                adjacent -= 1
        self._adjacent += adjacent

    def _extend_unsettled(self, seg: Segment) -> bool:
        """A big segment from the far scan, its keys told unique where they
        were hashed (``Segment.keys_unique``), at the cost of one look each
        in ``_members`` (``isdisjoint``) instead of an insertion: its keys
        join the set only when a lookup needs them (``_settle``). Adding 5.6
        M keys to a set of 5.0 M took 2.2 s of a 5 GB ``check``, asking 0.8
        s. Returns False, having changed nothing, where the batch path has
        to decide."""
        members, n = self._members, seg.entry_count
        if (
            n < UNSETTLED_MIN
            or not seg.keys_unique
            or seg.keys is None
            or seg.key_check != hash("session-tui")
            or self._unsettled is not None
            or self._collided
            or self._pending
            or not isinstance(members, set)
            or not members.isdisjoint(seg.keys)
        ):
            return False
        start = self.count
        self._keys.extend(seg.keys)
        self._unsettled = (start, start + n)
        far = self._far_parents(seg, start)
        if far is None:  # (the batch path decides)
            self._drop_keys(seg.keys, start)
            return False
        self._link_batch(seg, start, far)
        return True

    def _extend_one_by_one(self, seg: Segment, read_id: Callable[[int], str | None]) -> list[tuple[int, str]]:
        pending = self._pending
        collided = self._collided
        rejected: list[tuple[int, str]] = []
        for line, eid, pid, shape in zip(seg.entry_lines, seg.ids, seg.parent_ids(), seg.shapes, strict=True):
            i = self.count
            key = hash(eid) & _KEY_MASK
            other = self._index_of_key(key) if key in self._members else None
            if other is None and not (collided and eid in collided):
                self._add_keys((key,), i)
            elif other is not None and eid not in collided and read_id(other) != eid:
                collided[eid] = i  # two ids share a key: not a duplicate
                self._keys.append(key)
                self._full_index()  # the window search needs unique keys
            else:
                self.duplicates.append((line, eid))
                rejected.append((line, "duplicate id"))
                continue
            self.entry_line.append(line)
            self.shape.append(shape)
            if shape == _SUMMARY:
                self.summaries += 1
            self.asides += bool(shape & _ASIDE)
            self.quiet += bool(shape & _QUIET)
            self.parent.append(NONE)
            p = NONE
            if pid is not None:
                found = self.find(pid)
                if found is None:
                    pending.setdefault(hash(pid) & _KEY_MASK, []).append(i)
                    self._pending_ids[i] = pid
                elif found == i:
                    self.cycles.append((line, pid))
                else:
                    p = found
            if p == NONE:
                self.roots.add(i)
            else:
                self._link(i, p)
            if pending:
                waiting = pending.pop(key, None)
                if waiting:
                    self._adopt(i, waiting)
        return rejected

    def _link(self, child: int, parent: int) -> None:
        self.parent[child] = parent
        self.roots.discard(child)
        if parent == child - 1:
            self._adjacent += 1
        else:
            self._others.setdefault(parent, []).append(child)

    def _adopt(self, parent: int, waiting: list[int]) -> None:
        """``parent`` just appeared: link the entries that named it."""
        for child in waiting:
            pid = self._pending_ids.pop(child)
            if self._is_ancestor(child, parent):
                self.cycles.append((self.entry_line[child], pid))
            else:
                self._link(child, parent)

    def _is_ancestor(self, candidate: int, node: int) -> bool:
        parent = self.parent
        while node != NONE:
            if node == candidate:
                return True
            node = parent[node]
        return False

    # -- the id index ---------------------------------------------------------------
    def _add_keys(self, keys: Sequence[int], start: int) -> None:
        self._keys.extend(keys)
        if isinstance(self._members, dict):
            self._members.update(zip(keys, range(start, start + len(keys)), strict=True))
        else:
            self._members.update(keys)

    def _settle(self) -> None:
        """Put the keys ``_extend_unsettled`` left out into ``_members``
        (unique, and none there before: it checked)."""
        if self._unsettled is None:
            return
        start, stop = self._unsettled
        self._unsettled = None
        keys = self._keys[start:stop]
        if isinstance(self._members, dict):
            self._members.update(zip(keys, range(start, stop), strict=True))
        else:
            self._members.update(keys)

    def _drop_keys(self, keys: Sequence[int], start: int) -> None:
        """Undo ``_add_keys(keys, start)`` (rare: the batch goes entry by entry)."""
        if self._unsettled is not None and self._unsettled[0] == start:  # (never put into _members)
            self._unsettled = None
            del self._keys[start:]
            return
        del self._keys[start:]
        members = self._members
        batch = set(keys)
        # Take the batch out, then put back the keys that were there before it
        # (the set or dict may have been replaced by a full index meanwhile).
        if isinstance(members, dict):
            for key in batch:
                members.pop(key, None)
            for i, key in enumerate(self._keys):
                if key in batch:
                    members.setdefault(key, i)
        else:
            members.difference_update(batch)
            members.update(key for key in self._keys if key in batch)

    def _full_index(self) -> dict[int, int]:
        """Replace the key set by a key → entry dict (first entry wins)."""
        self._settle()
        if not isinstance(self._members, dict):
            index: dict[int, int] = {}
            for i, key in enumerate(self._keys):
                index.setdefault(key, i)
            self._members = index
        return self._members

    def _index_of_key(self, key: int, before: int | None = None) -> int | None:
        """The entry with id key ``key``; the search starts with the RECENT
        entries before entry ``before`` (default: the newest)."""
        if self._unsettled is not None:  # (a key may be in _keys and not yet in _members)
            told, found = self._in_recent(key, before)
            if told:
                return found
            self._settle()
        members = self._members
        if isinstance(members, dict):
            return members.get(key)
        if key not in members:
            return None
        told, found = self._in_recent(key, before)
        return found if told else self._full_index().get(key)

    def _in_recent(self, key: int, before: int | None) -> tuple[bool, int | None]:
        """(told, the entry): the entry with key ``key`` among the RECENT
        entries before ``before`` (default: the newest), or None when the
        windows held every entry before it; not told when they did not."""
        keys = self._keys
        stop = len(keys) if before is None else before
        for window in RECENT:
            start = max(0, stop - window)
            try:
                return True, start + keys[start:stop].index(key)
            except ValueError:
                if not start:
                    return True, None
        return False, None

    # -- queries ------------------------------------------------------------------
    def has(self, entry_id: str, near: int | None = None) -> bool:
        """Whether an entry may have ``entry_id`` (its key is known: no scan,
        no full index). ``near``: the entries before where it is named (a
        pointer's): the recent ones are looked at first."""
        key = hash(entry_id) & _KEY_MASK
        if entry_id in self._collided or key in self._members:
            return True
        if self._unsettled is not None:
            if near is not None and self._in_recent(key, near)[1] is not None:
                return True
            self._settle()
            return key in self._members
        return False

    def find(self, entry_id: str) -> int | None:
        """Entry index of ``entry_id`` (unverified: see ``Session.find``)."""
        if self._collided:
            hit = self._collided.get(entry_id)
            if hit is not None:
                return hit
        return self._index_of_key(hash(entry_id) & _KEY_MASK)

    def _has_next_child(self, entry: int) -> bool:
        return entry + 1 < len(self.parent) and self.parent[entry + 1] == entry

    def children(self, entry: int) -> list[int]:
        """Children of ``entry`` in file order."""
        out = [entry + 1] if self._has_next_child(entry) else []
        others = self._others.get(entry)
        if others:
            out.extend(others)
            out.sort()
        return out

    def child_count(self, entry: int) -> int:
        """Children of ``entry`` that are not asides: a fork has two or more."""
        shape = self.shape
        count = self._has_next_child(entry) and not shape[entry + 1] & _ASIDE
        return count + sum(1 for c in self._others.get(entry, ()) if not shape[c] & _ASIDE)

    @property
    def leaves(self) -> int:
        """Leaves, asides left out (O(forks) without asides)."""
        if self.asides:
            return len(self.conversation_leaves())
        with_children = self._adjacent + sum(1 for p in list(self._others) if not self._has_next_child(p))
        return self.count - with_children

    @property
    def branch_points(self) -> int:
        return len(self.branch_point_entries())

    def branch_point_entries(self) -> list[int]:
        return sorted(p for p in list(self._others) if self.child_count(p) >= 2)

    def path_to(self, leaf: int) -> array[int]:
        """Entry indexes root → ``leaf`` (a compact array: a path can hold millions)."""
        return path_of_runs(self.path_runs(leaf))

    def path_runs(self, leaf: int) -> list[tuple[int, int]]:
        """The path root → ``leaf`` as runs of consecutive entries (first,
        last), root first. Linear runs are taken whole (see ``run_breaks``):
        this costs the forks on the path, not its entries."""
        breaks = self.run_breaks()
        parent = self.parent
        runs = []
        node = leaf
        while node != NONE:
            k = bisect_left(breaks, node)  # breaks[k] >= node: the run holding node starts after breaks[k - 1]
            start = breaks[k - 1] + 1 if k else 0
            runs.append((start, node))
            node = parent[start]
        runs.reverse()
        return runs

    def missing_parents(self) -> Iterator[tuple[int, str]]:
        """(entry, parent id) of entries whose parent never appeared."""
        return iter(sorted(self._pending_ids.items()))

    def run_breaks(self) -> list[int]:
        """Sorted entries at which a linear run ends: the last entry, every
        entry with a child other than the entry right after it, and every
        entry whose successor is not its child. Between two breaks, each
        entry is the parent of the next (O(forks), not O(entries));
        remembered until the tree changes."""
        n = self.count
        if not n:
            return []
        others, roots = self._copies()
        shape = (n, len(others), sum(len(kids) for _, kids in others), len(roots))
        if self._breaks_memo is not None and self._breaks_memo[0] == shape:
            return self._breaks_memo[1]
        ends = {n - 1, *(p for p, _ in others)}
        ends.update(c - 1 for c in roots if c)
        for _, kids in others:
            ends.update(c - 1 for c in kids if c)
        breaks = sorted(ends)
        self._breaks_memo = (shape, breaks)
        return breaks

    def fork_above(self, leaf: int) -> tuple[int, int]:
        """(the nearest entry above ``leaf`` with two or more children, the
        first entry below it on the way to ``leaf``); (NONE, the root) when
        there is none. Walks runs, not entries, and stops at the fork."""
        breaks, parent = self.run_breaks(), self.parent
        node = leaf
        while True:
            k = bisect_left(breaks, node)
            start = breaks[k - 1] + 1 if k else 0
            up = parent[start]
            if up == NONE:
                return NONE, start
            if self.child_count(up) >= 2:
                return up, start
            node = up

    def conversation_leaves(self) -> list[int]:
        """Every entry that is no aside and has no child but asides, in file
        order: where a branch of the conversation ends (a call whose only
        children are progress records is one). O(entries) when the tree has
        asides, remembered until it grows; ``leaf_list`` otherwise."""
        if not self.asides:
            return self.leaf_list()
        n = self.count
        if self._leaves_memo is not None and self._leaves_memo[0] == n:
            return self._leaves_memo[1]
        aside = self.shape.tobytes().translate(ASIDE_BITS)
        has_child = bytearray(n)
        parent = self.parent
        for e in range(n):
            p = parent[e]
            if p >= 0 and not aside[e]:
                has_child[p] = 1
        leaves = [e for e in range(n) if not has_child[e] and not aside[e]]
        self._leaves_memo = (n, leaves)
        return leaves

    def leaf_list(self) -> list[int]:
        """Every leaf, in file order. O(forks + roots): only an entry whose
        successor is not its child can be a leaf."""
        n = self.count
        if not n:
            return []
        others, roots = self._copies()
        ends = {n - 1}
        ends.update(c - 1 for c in roots if c)
        for _, kids in others:
            ends.update(c - 1 for c in kids if c)
        parents = {p for p, _ in others}
        return sorted(e for e in ends if e not in parents and not self._has_next_child(e))

    def _copies(self) -> tuple[list[tuple[int, list[int]]], list[int]]:
        """The forks and roots, copied each in one step: a thread (the branch
        list, a check) reads them while the live tail adds to them."""
        return list(self._others.items()), list(self.roots)


def path_of_runs(runs: list[tuple[int, int]]) -> array[int]:
    """The entry indexes of a path given as runs (first, last) of consecutive entries."""
    path = array("I")
    for first, last in runs:
        path.extend(range(first, last + 1))
    return path
