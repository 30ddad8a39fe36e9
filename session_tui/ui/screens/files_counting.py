"""The picker's exact entry counts: a row's count read from a file's head
and tail is an estimate (``≈``); each is counted in full in a thread, the
newest first, and a session view's count is taken as it is."""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from textual import work
from textual.worker import get_current_worker

from ...model.catalog.cache import Catalog, absolute
from ...model.catalog.session_info import SessionInfo
from ...model.errors import Cancelled, SessionError
from ...model.reading.source import is_url

if TYPE_CHECKING:  # pragma: no cover
    from textual.screen import Screen

    from ..widgets.picker_table import PickerTable

    class _Picker(Screen):  # what the mixin uses of the picker, for the type checker only
        infos: dict[str, SessionInfo]
        catalog: Catalog
        _to_count: dict[str, None]
        _count_lock: threading.Lock
        _counting: bool

        @property
        def table(self) -> PickerTable: ...

else:
    _Picker = object


class EntryCounting(_Picker):
    """Mixed into the picker (``FilesScreen``)."""

    def _count_later(self, infos: list[SessionInfo]) -> None:
        """Queue the rows whose entry count is an estimate (``≈``: read from
        the head and tail only) to be counted in full, the newest first; a
        row read again after a change on disk is an estimate again, and is
        queued again."""
        wanted = sorted(
            (i for i in infos if i.known and i.format is not None and not i.exact and not is_url(i.path)),
            key=lambda i: -i.mtime_ns,
        )
        if not wanted:
            return
        with self._count_lock:
            self._to_count.update((info.path, None) for info in wanted)
            start = not self._counting
            self._counting = True
        if start:
            self.count_entries()

    @work(thread=True, group="count", exit_on_error=False, description="count entries")
    def count_entries(self) -> None:
        """Read each queued file in full, one at a time, and replace its
        row's estimate with the exact count (kept by the cache until the
        file changes). A count is used only if the file is still as the
        row read it: else the row's next reading queues it again."""
        from ...model.session.session import Session

        worker = get_current_worker()
        stop = lambda: worker.is_cancelled  # noqa: E731
        while not worker.is_cancelled:
            with self._count_lock:
                if not self._to_count:
                    self._counting = False
                    return
                path = next(iter(self._to_count))
                del self._to_count[path]
            info = self.infos.get(path)
            if info is None or info.exact:
                continue
            try:
                with Session(path, parallel_ok=False) as session:
                    session.refresh(should_stop=stop)
                    entries = session.entries
                st = os.stat(path)
            except (SessionError, OSError, Cancelled):
                continue
            if (st.st_size, st.st_mtime_ns) == (info.size, info.mtime_ns):
                self.app.call_from_thread(self._counted_exactly, info, entries)

    def _counted_exactly(self, info: SessionInfo, entries: int) -> None:
        if self.infos.get(info.path) is not info:  # (read again meanwhile: that reading is queued)
            return
        info.entries, info.exact = entries, True
        self.catalog.correct(info)
        self.table.refresh()

    def counted(self, path: str, entries: int) -> None:
        """The exact count of a file a session view read: the row and the
        cache keep it (until the file changes)."""
        info = self.infos.get(absolute(path))
        if info is None or (info.exact and info.entries == entries):
            return
        info.entries, info.exact = entries, True
        self.catalog.correct(info)
        self.table.refresh()
