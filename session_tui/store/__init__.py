"""Writing session files: the only code that does (docs/architecture.md §6).

``store`` holds the safety rules (lock, checks, append + fsync, backed-up
atomic rewrites); ``session_store`` is the small public API a harness uses to
write native ``tree`` sessions through it.
"""

from .session_store import TreeSessionStore
from .store import DanglingInside, Fingerprint, LiveWriter, NothingToDo, Refused, Store, WriteFailed

__all__ = [
    "DanglingInside",
    "Fingerprint",
    "LiveWriter",
    "NothingToDo",
    "Refused",
    "Store",
    "TreeSessionStore",
    "WriteFailed",
]
