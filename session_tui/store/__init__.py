"""Writing session files: the only code that does (docs/architecture.md §6).

``store`` holds the safety rules (lock, checks, append + fsync, backed-up
atomic rewrites); ``session_store`` is the small public API a harness uses to
write native ``tree`` sessions through it.
"""

from .fingerprint import Fingerprint
from .refusals import DanglingInside, LiveWriter, NothingToDo, Refused, WriteFailed
from .session_store import TreeSessionStore
from .store import Store

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
