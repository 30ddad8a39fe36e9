"""The bytes of the lines read last, within a byte budget.

The views ask for the same few records again and again (the status line,
the detail pane, the rows around the cursor); over a network each read is a
round trip. A session of a remote file keeps them here, and forgets them
when it reads the file again from the start.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

BUDGET = 4 << 20


class RecentLines:
    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = budget
        self._lines: OrderedDict[int, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()  # the UI and workers read at once

    def get(self, line: int) -> bytes | None:
        with self._lock:
            data = self._lines.get(line)
            if data is not None:
                self._lines.move_to_end(line)
            return data

    def put(self, line: int, data: bytes) -> None:
        if len(data) > self.budget // 8:
            return  # one huge output would push out everything else
        with self._lock:
            old = self._lines.pop(line, None)
            self._size += len(data) - (len(old) if old is not None else 0)
            self._lines[line] = data
            while self._size > self.budget:
                _, dropped = self._lines.popitem(last=False)
                self._size -= len(dropped)

    def clear(self) -> None:
        with self._lock:
            self._lines.clear()
            self._size = 0
