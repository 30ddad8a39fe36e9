"""What a session keeps between calls, one object per kind, cleared with the tree.

Each user declares its own small class (a dataclass with defaults) and asks
``memo.of(ThatClass)``: typed, no string keys, and two users never share a
slot by accident.
"""

from __future__ import annotations

from typing import TypeVar, cast

T = TypeVar("T")


class Memo:
    def __init__(self) -> None:
        self._kept: dict[type, object] = {}

    def of(self, kind: type[T]) -> T:
        """The kept ``kind`` object, made with ``kind()`` the first time."""
        found = self._kept.get(kind)
        if found is None:
            found = self._kept[kind] = kind()
        return cast(T, found)
