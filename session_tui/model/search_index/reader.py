"""Reading a session file's documents for the index, a batch at a time:
what the indexer writes. Pure reading (no index), so that a worker process
can read the next batches while the indexer writes the ones before: the
worker is a subprocess of its own (``python -c`` on ``serve``), never a fork
of a process that may have threads, and never a re-run of the program."""

from __future__ import annotations

import pickle
import struct
import subprocess
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate
from typing import IO, Any

from ..errors import Cancelled, SessionError
from ..formats.sources import open_source
from ..pipes import write_all
from ..sanitize import mark_undecodable

BATCH = 20_000  # documents per batch (the indexer commits each: a killed run resumes from the last)
_LENGTH = struct.Struct("<Q")


@dataclass
class Batch:
    fmt: str
    docs: list[tuple[Any, ...]]  # (line, offset, length, entry, role, kind, tool, error, time, model, secrets, escaped)
    texts: list[str]  # what is indexed of each: its strings, then its fields' marks
    reached: int  # the byte the file is read to
    lines: int  # the lines read (the next one's number)
    model: str | None
    calls: dict[str, str] = field(default_factory=dict)  # call id → tool name, so far
    last: bool = False
    bytes_read: int = 0


def read_batches(
    path: str,
    start: int,
    lines: int,
    model: str | None,
    calls: dict[str, str],
    should_stop: Callable[[], bool] | None = None,
) -> Iterator[Batch]:
    """The documents of ``path`` from byte ``start`` (line ``lines``), a batch
    of BATCH at a time, the last one marked."""
    from ..entries.view import model_named
    from ..reading.records import BOM, BadLine, parse_object
    from ..reading.segment import LineBlocks
    from ..session.session import Session
    from .documents import document
    from .marks import marks
    from .query import ESCAPED
    from .secrets_masked import masked

    with Session(path) as probe:
        fmt = probe.detect()  # (its first lines only)
        view, unsearched = probe.format.view, probe.format.unsearched
    source = open_source(path)
    try:
        stop = source.stat().size
        blocks = LineBlocks(source.reader, start, stop)
        line, reached, docs, texts = lines, start, [], []
        for block, starts, end in blocks:
            if should_stop is not None and should_stop():
                raise Cancelled()
            flagged = _flagged(block)
            for k, (raw, offset) in enumerate(zip(block, starts, strict=True)):
                number, line = line, line + 1
                if number == 0 and raw.startswith(BOM):
                    raw = raw[len(BOM) :]
                    offset += len(BOM)
                try:
                    record = parse_object(raw)
                except BadLine:
                    continue
                if unsearched(record):  # (its model and calls no document's either)
                    continue
                model = _utf8(model_named(record)) or model
                try:
                    doc = document(number, offset, len(raw.rstrip(b"\r\n")), record, view(record), calls)
                except (TypeError, ValueError, AttributeError, KeyError):  # (a record its format cannot view)
                    continue
                # (no secret at rest in the index, not even in an id; a lone surrogate is only ever a ``\\u`` escape)
                text = mark_undecodable(doc.text) if b"\\u" in raw else doc.text
                text, kinds = masked(text) if k in flagged else (text, ())
                entry, tool = _utf8(doc.entry_id), _utf8(doc.tool)
                entry, tool, named = (entry, tool, model) if not kinds else _masked(entry, tool, model)
                # (whether a term may be in it only escaped: ``Query.may_match`` then looks no further)
                escaped = 1 if b"\\u" in raw and ESCAPED.search(raw) else None
                docs.append(
                    (doc.line, doc.offset, doc.length, entry, doc.role, doc.kind, tool, int(doc.error))
                    + (doc.time, named, ",".join(kinds) or None, escaped)
                )
                texts.append(text + "\n" + marks(doc.role, doc.kind, doc.tool, doc.error, fmt, kinds))
            reached = end
            if len(docs) >= BATCH:
                yield Batch(fmt, docs, texts, reached, line, model, dict(calls), bytes_read=blocks.pos - start)
                docs, texts = [], []
        yield Batch(fmt, docs, texts, reached, line, model, dict(calls), last=True, bytes_read=blocks.pos - start)
    finally:
        source.close()


def _flagged(block: list[bytes]) -> set[int]:
    """The lines of ``block`` that may hold a secret (the detector's byte
    prefilter over the raw lines, a pass per needle over the whole block):
    only those are masked. A line without a candidate holds no secret in
    any of its strings (``privacy.secrets.has_candidate``), so the check
    of every other record's text is skipped: most of the reader's time."""
    from ..privacy.secrets import candidate_lines

    found = candidate_lines(b"".join(block))
    if not found:
        return set()
    ends = list(accumulate(map(len, block)))
    return {bisect_right(ends, start) for start, _ in found}


def _utf8(value: str | None) -> str | None:
    """A name as SQLite can hold it: a lone surrogate a record's JSON escapes (``\\ud83d``) as its placeholder."""
    return mark_undecodable(value) if value else value


def _masked(*fields: str | None) -> tuple[str | None, ...]:
    """The fields of a record that held a secret, each masked as its text is."""
    from .secrets_masked import masked

    return tuple(masked(value)[0] if value else value for value in fields)


# -- the worker -----------------------------------------------------------------------
def _send(fd: int, value: object) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    write_all(fd, _LENGTH.pack(len(data)) + data)  # (not a buffered file: a stopped write lost its place)


def _receive(stream: IO[bytes]) -> Any:
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        raise EOFError("the reader went away")
    size = _LENGTH.unpack(head)[0]
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the reader went away")
    return pickle.loads(data)  # (from our own subprocess, over its pipe)


def serve() -> None:
    """The worker: for each request (path, start, lines, model, calls) read
    from stdin, its batches to stdout, or ("error", message)."""
    requests, answers = sys.stdin.buffer, sys.stdout.fileno()
    while True:
        try:
            request = _receive(requests)
        except EOFError:
            return
        try:
            for batch in read_batches(*request):
                _send(answers, batch)
        except (SessionError, OSError) as exc:
            _send(answers, ("error", str(exc)))


class Worker:
    """A reader in a subprocess of its own: ``ask`` a file, then take its
    batches with ``batches`` (ask the next one first: it reads while this
    process writes)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from session_tui.model.search_index.reader import serve; serve()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # (never over the TUI's screen: a failure is an end of its answers)
        )

    def ask(self, path: str, start: int, lines: int, model: str | None, calls: dict[str, str]) -> None:
        assert self.process.stdin is not None
        try:
            _send(self.process.stdin.fileno(), (path, start, lines, model, calls))
        except OSError:  # (it went away: ``batches`` says so)
            pass

    def batches(self) -> Iterator[Batch]:
        """The batches of the file asked first and not yet taken (SessionError: it cannot be read)."""
        assert self.process.stdout is not None
        while True:
            found = _receive(self.process.stdout)
            if isinstance(found, tuple):
                raise SessionError(found[1])
            yield found
            if found.last:
                return

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
