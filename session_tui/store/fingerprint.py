"""The file as a plan was made from it: a write checks it is still that file."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from ..model.reading.source import is_url
from .refusals import Refused, remote_refusal

TAIL_WINDOW = 1 << 16  # bytes read back for the last line


@dataclass(frozen=True)
class Fingerprint:
    size: int
    inode: int
    mtime_ns: int
    last_line: str  # sha256 of the last line (or fragment)

    @classmethod
    def of(cls, path: str) -> Fingerprint:
        if is_url(path):
            raise Refused(remote_refusal(path))
        st = os.stat(path)
        return cls(st.st_size, st.st_ino, st.st_mtime_ns, hashlib.sha256(last_line(path, st.st_size)).hexdigest())

    @classmethod
    def as_read(cls, path: str, size: int, inode: int | None = None) -> Fingerprint:
        """The file as a session read it: its first ``size`` bytes (what an
        agent appended since is not part of it, see ``grown_into``)."""
        if is_url(path):
            raise Refused(remote_refusal(path))
        st = os.stat(path)
        if inode is not None and st.st_ino != inode:
            raise Refused(f"{path}: the file changed since it was read: reload it and plan again")
        mtime = st.st_mtime_ns if st.st_size == size else -1  # grown: never equal to the file as it is
        return cls(size, st.st_ino, mtime, hashlib.sha256(last_line(path, size)).hexdigest())

    def grown_into(self, now: Fingerprint, path: str) -> bool:
        """Whether the file at ``path``, now ``now``, is this one with whole
        lines appended: the same file, longer, the same last line where it
        ended, and that line ended (a fragment there may be a line someone
        was still writing, which the growth completed)."""
        if now.inode != self.inode or now.size < self.size:
            return False
        if hashlib.sha256(last_line(path, self.size)).hexdigest() != self.last_line:
            return False
        if not self.size:
            return True
        with open(path, "rb") as f:
            return os.pread(f.fileno(), 1, self.size - 1) == b"\n"


def last_line(path: str, size: int) -> bytes:
    if not size:
        return b""
    with open(path, "rb") as f:
        f.seek(max(0, size - TAIL_WINDOW))
        tail = f.read(min(size, TAIL_WINDOW))
    body = tail[:-1] if tail.endswith(b"\n") else tail
    return body[body.rfind(b"\n") + 1 :]
