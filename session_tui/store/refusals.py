"""Why a write does not happen: refused before (with the reason, in one line) or failed."""

from __future__ import annotations

#: why a file given as a URL is never written
REMOTE_READ_ONLY = (
    "a remote file is read-only here (one writer, an atomic replace and a lock cannot be guaranteed "
    "over SSH or object storage); fork -o LOCAL_PATH or export it, then edit the copy"
)


def remote_refusal(path: str) -> str:
    """Why the file at ``path`` (a URL) is not written here, in one line: a
    session of the team archive lives on the machine that pushed it."""
    from ..model.reading.archived import archive_refusal

    return archive_refusal(path) or f"{path}: {REMOTE_READ_ONLY}"


class Refused(Exception):
    """A write that must not happen now; ``str()`` says why, in one line."""


class LiveWriter(Refused):
    """The file changed a moment ago: an agent may be writing it (forcing writes anyway)."""


class WriteFailed(Exception):
    """A write the system refused (a full disk, an I/O error); ``str()``
    says in one line what happened and what was left. ``changed``: the file
    was replaced all the same (only copying what came after failed)."""

    def __init__(self, message: str, changed: bool = False) -> None:
        super().__init__(message)
        self.changed = changed


class NothingToDo(Refused):
    """The repair asked for does not apply: the file has nothing it would change."""


class DanglingInside(Refused):
    """A dangling call with later messages after it on the branch: closing it
    at the end would not answer it (``Form.close_inside`` does)."""
