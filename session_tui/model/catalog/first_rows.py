"""The picker's first rows: the newest rows the cache remembers of its
folders, or, when it remembers none, found by a child process while the
parent starts its UI.

With a head in the cache (``head.py``), the first frame shows it. With
none, the first rows waited for the walk of the folders (10,000 files: 65
ms) and the heads of the newest files (40 ms), in a thread that shares the
interpreter's lock with Textual's start. So the picker forks, before it
imports Textual or starts a thread, a child that walks the folders and
reads the newest heads on the other core, with the catalog's own code (its
cache, its mask), and sends back a head: the newest rows and how many files
there are. The parent shows them as it shows a remembered head, then walks
as usual (the child's reads are kept in its catalog: no head is read twice).

Only for local folders, where ``forked.fork`` forks (Linux, no other
thread yet). A child that fails, is killed or sends what does not parse
gives nothing, and the picker walks as it would have. What it sends is
checked as a head read from the cache is.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from .. import forked
from ..forked import Forked
from ..reading.source import is_url
from ..sanitize import Mask
from .cache import Catalog, _info_of, _row_of, absolute
from .head import head_document, head_of
from .session_info import SessionInfo

MAX_BYTES = 16 << 20  # what a child may send (a head is 200 rows: ~60 KB)
FIRST_PAGE = 50  # heads read without a terminal to size the page by

Head = tuple[list[SessionInfo], int]  # the newest rows, and how many files there are


class FirstRows:
    """The first rows of a picker over ``roots``: ``remembered`` by the
    cache, or a child's walk under way (``take`` them)."""

    def __init__(self, roots: list[str], remembered: Head | None = None, child: Forked | None = None) -> None:
        self.roots, self.remembered, self.child = roots, remembered, child

    @property
    def walking(self) -> bool:
        """A child walks the folders (its rows are not taken yet)."""
        return self.child is not None and not self.child.ended

    def take(self, timeout: float | None = None) -> Head | None:
        """The child's rows, once it has sent them (waiting at most
        ``timeout`` seconds: None, until it ends); None when it failed, or
        is not done in time (then it is still ``walking``: ask again, or
        ``close``)."""
        data = None if self.child is None else self.child.take(timeout)
        return None if data is None else head_of(data, self.roots, _info_of)

    def stop(self) -> None:
        """Stop the child's walk (a ``take`` waiting in another thread then returns None)."""
        if self.child is not None:
            self.child.stop()

    def close(self) -> None:
        """Stop the child's walk and reap it (only stop it while another thread takes)."""
        if self.child is not None:
            self.child.close()


def start(
    roots: Sequence[str], mask: Mask | None = None, cache_dir: str | None = None, page: int | None = None
) -> FirstRows | None:
    """The first rows of the picker over the folders ``roots``, as the
    catalog ``Catalog(cache_dir, mask)`` holds them: its remembered head,
    or a child forked to walk them (local folders; ``forked.fork``) and
    read the heads of the ``page`` newest (None: a screen of them); None:
    neither."""
    roots = [absolute(r) for r in roots]
    remembered = Catalog(cache_dir, mask).head(roots)
    if remembered is not None:
        return FirstRows(roots, remembered)
    if any(is_url(r) for r in roots):
        return None
    child = forked.fork(lambda: _first_rows(roots, mask, cache_dir, page or _screen_rows()), MAX_BYTES)
    return None if child is None else FirstRows(roots, child=child)


def _screen_rows() -> int:
    """The terminal's rows (as many heads as the picker's walk reads first)."""
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).lines if sys.__stdout__ else FIRST_PAGE
    except (OSError, ValueError):
        return FIRST_PAGE


def _first_rows(roots: list[str], mask: Mask | None, cache_dir: str | None, page: int) -> bytes:
    """The child's work: the listing, the ``page`` newest unread files'
    heads read, as a head."""
    catalog = Catalog(cache_dir, mask)
    listed = catalog.listing(roots)
    unread = sorted((info for info in listed if not info.known), key=lambda info: -info.mtime_ns)[:page]
    fresh = {info.path: catalog.read(info.path) for info in unread}
    rows = [fresh.get(info.path, info) for info in listed]  # (None: gone since the listing)
    return head_document(roots, [info for info in rows if info is not None], _row_of)
