"""Safe writes to one session file.

* One writer: an advisory ``fcntl`` lock on a sidecar ``<name>.lock`` file,
  held while writing; refused (with the reason) when another process holds
  it, or when an agent may still be writing the file (the live state:
  its writer lives, or, that unknown, it wrote within ``stuck_after``),
  unless forced.
* Each write of ours is remembered (``model.reading.own_writes``): the
  file's size and mtime after it, and when the agent had last written it
  before; so a leaf move, a repair or an undo does not make the session
  look written by its agent now.
* Appends: the file must end with a newline first (a complete last record
  missing it gets one; a torn fragment refuses: drop it first). The records
  are one ``write()`` on an ``O_APPEND`` descriptor, then ``fsync``; a failed
  or short write is cut back, so a failed append leaves the file as it was.
* Rewrites (every edit that is not an append, a torn tail's cut included):
  the new content in a temp file beside it, then under the lock the checks,
  the old file kept as ``<name>.bak-<UTC timestamp>`` (a hard link),
  ``os.replace``, ``fsync`` of the directory, and whatever another process
  appends to the old file meanwhile copied to the new one until no process
  holds the old one open. Refused while another process holds the file open
  for writing (``open_writers``), or when this user may not write it. Owner,
  group and mode kept. New files are ``0600`` and never replace an existing
  path.
* No write goes through a symlink (the session file, its lock, a new file):
  refused, with the reason.
* Before writing, the file must still be what the plan was made from
  (``Fingerprint``: size, inode, mtime, hash of the last line).
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..model.errors import SessionError
from ..model.reading import json_text, open_writers, own_writes
from ..model.reading import records as records_io
from ..model.session.live_state import LiveState, live_state
from ..model.words import ago
from .fingerprint import Fingerprint, last_line
from .live_copy import copy_tail, settle
from .refusals import LiveWriter, Refused, WriteFailed
from .safe_files import create_exclusive, fsync_dir, open_nofollow, symlink_refused, utc_stamp


@dataclass(frozen=True)
class Appended:
    """Where an append wrote: its bytes start at ``start`` (a newline it
    added first included), and ``after`` is the file up to their end."""

    start: int
    after: Fingerprint


@dataclass(frozen=True)
class Rewritten:
    """A rewrite's backup, and ``after``: the file as the rewrite made it,
    up to where what others appended since begins (an undo carries that over)."""

    backup: str
    after: Fingerprint


_UNSET = object()


class Store:
    """The writer of one session file."""

    def __init__(self, path: str | os.PathLike[str], *, force: bool = False, stuck_after: float | None = None):
        """``stuck_after``: the user's setting (None: the model's default)."""
        self.path = os.fspath(path)
        self.force = force
        self.stuck_after = stuck_after
        self.lock_path = self.path + ".lock"
        self._agent_written: float | None | object = _UNSET  # the agent's last write before ours (check_quiet)
        self._state_before: str | None = None  # what the live state said before our write (check_quiet)
        self._tool_before: str | None = None  # and the tools its calls awaited then

    # -- guards -------------------------------------------------------------------
    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the writer lock, or refuse if another process holds it."""
        fd = open_nofollow(self.lock_path, os.O_RDWR | os.O_CREAT)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise Refused(f"{self.path}: another process is writing it (lock held)") from None
                raise
            try:
                same = os.lstat(self.lock_path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # ``clean`` removed it while we waited: another writer may lock a new one
                raise Refused(f"{self.path}: its lock file was removed meanwhile; try again")
            yield
        finally:
            os.close(fd)

    def agent_state(self) -> LiveState | None:
        """The session's live state now (``model.session.live_state``), or
        None when it cannot be read as a session (``verify`` says what is
        wrong, if anything)."""
        from ..model.session.session import open_session  # (only for a write)

        try:
            with open_session(self.path) as session:
                return live_state(session, stuck_after=self.stuck_after)
        except (SessionError, OSError):
            return None

    def check_quiet(self) -> None:
        """Refuse when an agent may still be writing the file: its writer
        lives, or (that unknown) it wrote within ``stuck_after``; a call
        without a result may then still be running. Unless forced (then
        asked all the same, for the state our write must leave as it was,
        but not refused: a racing writer's next line is not waited for)."""
        if self.force:  # not refused: the state is noted once the file is verified (note_forced)
            return
        live = self.note_state()
        if live is None or not live.may_write:
            return
        if live.alive:
            why = f"its client is running with it ({live.inferred})"
        else:
            why = f"its agent wrote it {ago(live.quiet_for)} ago"
        raise LiveWriter(
            f"{self.path}: {why}: a live agent may be writing it"
            + (f", and its {live.tools()} call may still be running (its result may arrive)" if live.running() else "")
        )

    def note_state(self) -> LiveState | None:
        """What the agent is doing now, remembered as the state our write must
        leave as it was (``_remember``)."""
        live = self.agent_state()
        if live is not None:
            self._agent_written, self._state_before = live.written, live.activity.value
            self._tool_before = live.tools() or None
        return live

    def note_forced(self) -> None:
        """A forced edit's state before it, noted once the file is verified:
        asked earlier, a racing writer's lines made the plan stale (refused)
        while it was asked."""
        if self.force and self._agent_written is _UNSET:
            self.note_state()

    def _before_write(self) -> tuple[os.stat_result, own_writes.OwnWrite | None] | None:
        """The file as it is just before a write of ours (cheap: a stat and the ledger)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st, own_writes.own_write(self.path, st)

    def _remember(
        self,
        before: tuple[os.stat_result, own_writes.OwnWrite | None] | None,
        end: int,
        inode: int,
        *,
        appended_at: int | None = None,
        backup: str | None = None,
    ) -> None:
        """After a write of ours that left the file ``end`` bytes long: when
        nothing else wrote it since, remember it (``own_writes``) with when
        the agent had last written it before: as our last write recorded,
        as ``check_quiet`` found, or from the file up to ``appended_at`` (an
        append) or its ``backup`` (a rewrite)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return
        if st.st_size != end or st.st_ino != inode:  # someone appended since: that write is theirs
            return
        state, tool = self._state_before, self._tool_before
        if before is not None and before[1] is not None:
            written: float | None = before[1].agent_written  # (the agent had not written since our last edit)
            if before[1].state:
                state, tool = before[1].state, before[1].tool
        elif isinstance(self._agent_written, float) or self._agent_written is None:
            written = self._agent_written
        else:
            written = self._agent_written_then(before, appended_at, backup)
        own_writes.record(self.path, written, state, tool)

    def _agent_written_then(
        self,
        before: tuple[os.stat_result, own_writes.OwnWrite | None] | None,
        appended_at: int | None,
        backup: str | None,
    ) -> float | None:
        """When the agent had last written the file before our write, read
        after it (not to hold up the write): the last entry before our
        appended bytes, or the backup's, no later than the file's mtime then."""
        from ..model.entries.view import parse_time
        from ..model.session.last_write import last_written
        from ..model.session.session import open_session

        try:
            with open_session(backup or self.path) as session:
                if backup is not None:
                    return last_written(session)
                stamp = None
                for entry in range(session.tree.count - 1, -1, -1):
                    if appended_at is None or session.lines.span(session.tree.entry_line[entry])[0] < appended_at:
                        stamp = parse_time(session.format.view(session.record(entry)).time)
                        break
        except (SessionError, OSError, ValueError):
            return None
        mtime = before[0].st_mtime_ns / 1e9 if before is not None else None
        if stamp is None or mtime is None:
            return None
        return min(mtime, stamp)

    def verify(self, expected: Fingerprint | None, *, grown_ok: bool = False) -> None:
        """Refuse if the file is a symlink (before anything is written; no
        write follows one either) or no longer what a plan was made from;
        ``grown_ok``: a file that only grew since (an agent appended to it)
        is still it (a rewrite carries what was appended over)."""
        if os.path.islink(self.path):
            raise symlink_refused(self.path)
        if expected is None:
            return
        try:
            now = Fingerprint.of(self.path)
        except OSError as exc:  # gone
            raise Refused(
                f"{self.path}: changed since the edit was planned ({exc.strerror or exc}); plan it again"
            ) from None
        if now != expected and not (grown_ok and expected.grown_into(now, self.path)):
            raise Refused(f"{self.path}: changed since the edit was planned; plan it again")

    def check_writable(self) -> None:
        """Refuse when this user may not write the file itself: a directory
        that allows replacing it is not permission to change it."""
        effective = os.access in os.supports_effective_ids
        if not os.access(self.path, os.W_OK, effective_ids=effective):
            raise Refused(f"{self.path}: you may not write this file (its permissions); nothing was changed")

    def check_no_open_writer(self) -> None:
        """Refuse a rewrite while another process holds the file open for
        writing: what it writes later would go to the replaced file. Not
        lifted by ``force``."""
        st = os.stat(self.path)
        holders = open_writers.writers_of(st.st_dev, st.st_ino)
        if holders:
            names = ", ".join(str(holder) for holder in holders[:3]) + (" …" if len(holders) > 3 else "")
            raise Refused(
                f"{self.path}: held open for writing by {names}; a rewrite now would lose what it writes "
                "next (stop it first; forcing does not lift this)"
            )

    # -- writes -------------------------------------------------------------------
    def ends_with_newline(self) -> bool | None:
        """True / False, or None for an empty file."""
        size = os.path.getsize(self.path)
        if not size:
            return None
        with open(self.path, "rb") as f:
            f.seek(size - 1)
            return f.read(1) == b"\n"

    def append_lines(self, records: list[dict[str, Any]], *, expected: Fingerprint | None = None) -> Appended:
        """Append ``records`` as JSON lines; where they went. A failed append
        (a full disk, an I/O error, a short write) is cut back: the file is
        as it was."""
        payload = b"".join(json_text.dumps(record).encode() + b"\n" for record in records)
        with self.locked():
            self.check_quiet()
            self.verify(expected)
            self.note_forced()
            fd = open_nofollow(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                newline = b""
                if self.ends_with_newline() is False:
                    last = last_line(self.path, os.path.getsize(self.path))
                    try:
                        records_io.loads(last)
                    except records_io.JSONDecodeError:
                        raise Refused(f"{self.path}: ends in a torn line; drop it first") from None
                    newline = b"\n"  # a complete record that only lacked its newline
                before = self._before_write()
                start, end = self._append(fd, newline + payload)
                inode = os.fstat(fd).st_ino
                self._remember(before, end, inode, appended_at=start)
                return Appended(start, Fingerprint.as_read(self.path, end, inode))
            finally:
                os.close(fd)

    def _append(self, fd: int, payload: bytes) -> tuple[int, int]:
        """Write ``payload`` at the end (one ``write()`` unless the kernel
        writes less) and fsync; on failure cut back what was written."""
        pieces: list[tuple[int, int]] = []  # (start, end) of each write of ours
        try:
            view = memoryview(payload)
            while view:
                written = os.write(fd, view)
                if not written:
                    raise OSError(errno.EIO, "the write wrote nothing")
                end = os.lseek(fd, 0, os.SEEK_CUR)  # O_APPEND: the end of this very write
                pieces.append((end - written, end))
                view = view[written:]
            os.fsync(fd)
        except OSError as exc:
            raise self._cut_back(fd, pieces, exc) from None
        if not pieces:
            size = os.fstat(fd).st_size
            return size, size
        return pieces[0][0], pieces[-1][1]

    def _cut_back(self, fd: int, pieces: list[tuple[int, int]], error: OSError) -> WriteFailed:
        reason = error.strerror or str(error)
        if not pieces:
            return WriteFailed(f"{self.path}: could not append ({reason}); nothing was written, the file is as it was")
        start, end = pieces[0][0], pieces[-1][1]
        ours_alone = all(a[1] == b[0] for a, b in zip(pieces, pieces[1:], strict=False))
        try:
            if ours_alone and os.fstat(fd).st_size == end:
                os.ftruncate(fd, start)
                os.fsync(fd)
                return WriteFailed(f"{self.path}: could not append ({reason}); the file is as it was")
        except OSError as exc:
            return WriteFailed(
                f"{self.path}: could not append ({reason}) nor cut back the part written at bytes "
                f"{start}-{end} ({exc.strerror or exc}): dropping the torn or bad lines removes it"
            )
        return WriteFailed(
            f"{self.path}: could not append ({reason}), and another process wrote after the part written at "
            f"bytes {start}-{end}: dropping the bad lines removes it"
        )

    def rewrite(self, data: bytes, *, expected: Fingerprint) -> Rewritten:
        """Replace the file's content with ``data`` (what the plan made of
        its first ``expected.size`` bytes); returns the backup's path and
        the file as the rewrite left it.

        The new file is written beside it before the lock is taken. Under
        the lock: the checks (the file is as planned, writable by this user,
        held open for writing by no other process), the old file kept as the
        backup (a hard link: nothing copied), whatever was appended since
        the plan copied over, the rename, then whatever a writer that opened
        the old file before the rename still adds to it, until no process
        holds it open. Owner, group and mode are kept."""
        st = os.lstat(self.path)
        directory = os.path.dirname(os.path.abspath(self.path))
        temp = os.path.join(directory, f".{os.path.basename(self.path)}.tmp-{os.getpid()}-{utc_stamp()}")
        try:
            create_exclusive(temp, data, stat.S_IMODE(st.st_mode), owner=(st.st_uid, st.st_gid))
            with self.locked():
                self.check_quiet()
                self.verify(expected, grown_ok=True)  # what was appended since the plan is carried over
                self.check_writable()
                self.check_no_open_writer()
                self.note_forced()
                before = self._before_write()
                done = self._swap(temp, expected)
                self._remember(before, done.after.size, done.after.inode, backup=done.backup)
                return done
        except BaseException as exc:
            if os.path.lexists(temp):
                os.unlink(temp)
            if isinstance(exc, OSError):
                raise WriteFailed(
                    f"{self.path}: could not rewrite ({exc.strerror or exc}); the file is as it was, "
                    "no backup or temporary file left"
                ) from None
            raise

    def _swap(self, temp: str, expected: Fingerprint) -> Rewritten:
        old = open_nofollow(self.path, os.O_RDONLY)
        backup = ""
        try:
            st = os.fstat(old)
            if st.st_ino != expected.inode:
                raise Refused(f"{self.path}: changed since the edit was planned; plan it again")
            backup = self._keep_as_backup(old, st)
            new, replaced = -1, False
            try:
                new = open_nofollow(temp, os.O_RDWR | os.O_APPEND)
                consumed = copy_tail(old, new, expected.size, whole_lines=True)  # appended since the plan
                os.fsync(new)  # the rewrite is on disk before it replaces anything
                consumed = copy_tail(old, new, consumed, whole_lines=True)  # (appended during the fsync)
                renamed_at = os.fstat(new).st_size  # its own content: whatever follows, others appended
                os.replace(temp, self.path)
                replaced = True
                fsync_dir(os.path.dirname(os.path.abspath(self.path)))
            except BaseException as exc:
                if new >= 0:
                    os.close(new)
                if not replaced:  # the file is as it was: no backup of it is left
                    os.unlink(backup)
                elif isinstance(exc, OSError):
                    raise WriteFailed(
                        f"{self.path}: rewritten, but its folder could not be synced ({exc.strerror or exc}); "
                        f"the old file is {backup}",
                        changed=True,
                    ) from None
                raise
            try:
                inode, own = settle(self.path, old, new, consumed, renamed_at, st)
            except OSError as exc:
                raise WriteFailed(
                    f"{self.path}: rewritten, but copying what was appended during the rewrite failed "
                    f"({exc.strerror or exc}): it is at the end of {backup}",
                    changed=True,
                ) from None
            return Rewritten(backup, Fingerprint.as_read(self.path, own, inode))
        finally:
            os.close(old)

    def _keep_as_backup(self, old: int, st: os.stat_result) -> str:
        """The old file kept as ``<name>.bak-<UTC>``: a hard link to it (so
        even what is appended to it later is kept), else a copy."""
        backup = f"{self.path}.bak-{utc_stamp()}"
        try:
            os.link(self.path, backup, follow_symlinks=False)
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP):
                raise
        else:
            if os.lstat(backup).st_ino == st.st_ino:
                return backup
            os.unlink(backup)
            raise Refused(f"{self.path}: changed since the edit was planned; plan it again")
        size = os.fstat(old).st_size
        try:
            create_exclusive(backup, os.pread(old, size, 0), stat.S_IMODE(st.st_mode), owner=(st.st_uid, st.st_gid))
        except BaseException:
            if os.path.lexists(backup):
                os.unlink(backup)
            raise
        return backup
