"""File operations that never follow a symlink, never overwrite, and reach the disk."""

from __future__ import annotations

import errno
import os
from datetime import UTC, datetime

from .refusals import Refused


def utc_stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")


def symlink_refused(path: str) -> Refused:
    return Refused(f"{path}: is a symbolic link; not followed")


def open_nofollow(path: str, flags: int, mode: int = 0o600) -> int:
    """``os.open`` that never follows a symlink at ``path``: refused instead."""
    try:
        return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise symlink_refused(path) from None
        raise


def create_exclusive(path: str, data: bytes, mode: int = 0o600, owner: tuple[int, int] | None = None) -> None:
    """Write a new file at ``path``: never over an existing file or through
    a symlink; owned by ``owner`` (uid, gid) where this process may give it;
    fsync the file and its directory. A failed write removes the file."""
    try:
        fd = open_nofollow(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise Refused(f"{path}: already exists; not overwritten") from None
    try:
        if owner is not None:
            give_to(fd, *owner)
        os.fchmod(fd, mode)  # after chown, which may clear bits; and umask does not apply
        write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(path)
        raise
    os.close(fd)
    fsync_dir(os.path.dirname(os.path.abspath(path)))


def give_to(fd: int, uid: int, gid: int) -> None:
    """chown ``fd`` to ``uid``:``gid``, or to the group alone, as far as this process may."""
    st = os.fstat(fd)
    if (st.st_uid, st.st_gid) == (uid, gid):
        return
    for new_uid in (uid, -1):
        try:
            os.fchown(fd, new_uid, gid)
            return
        except PermissionError:
            continue


def fsync_dir(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (the kernel may write less at a time)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if not written:
            raise OSError(errno.EIO, "the write wrote nothing")
        view = view[written:]
