"""Writing session files: the only code that does (docs/architecture.md#safety-of-writes).

``store`` holds the safety rules (lock, checks, append + fsync, backed-up
atomic rewrites); ``session_store`` is the small public API a harness uses to
write native ``tree`` sessions through it.

The names are loaded on first use (PEP 562): the session view imports the
refusals it catches before its first frame, and the store itself only when
an edit is made.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .fingerprint import Fingerprint as Fingerprint
    from .refusals import DanglingInside as DanglingInside
    from .refusals import LiveWriter as LiveWriter
    from .refusals import NothingToDo as NothingToDo
    from .refusals import Refused as Refused
    from .refusals import WriteFailed as WriteFailed
    from .session_store import TreeSessionStore as TreeSessionStore
    from .store import Store as Store

_HOMES = {
    "DanglingInside": "refusals",
    "Fingerprint": "fingerprint",
    "LiveWriter": "refusals",
    "NothingToDo": "refusals",
    "Refused": "refusals",
    "Store": "store",
    "TreeSessionStore": "session_store",
    "WriteFailed": "refusals",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value
