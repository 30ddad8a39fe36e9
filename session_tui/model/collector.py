"""How often Python's cyclic collector runs in session-tui's processes.

A big session is read into millions of objects (a 5 GB file: 10.7 M
entries), and the collector's passes over them grew faster than the file:
~10 % of ``check``'s time at 5 GB, 0.3 s of stall with 100,000 picker
rows. Few of those objects form cycles, so the command line and the app
collect less often, from their entry points (never from the model's
functions: it is the process's policy).
"""

from __future__ import annotations

import gc

THRESHOLDS = (50_000, 20, 100)  # (Python's defaults: 700, 10, 10)


def collect_less() -> None:
    """Run the collector less often, for the rest of this process."""
    gc.set_threshold(*THRESHOLDS)
