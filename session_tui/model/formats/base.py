"""What every format adapter provides. One module per format implements it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ..entries.tokens import Response, hour_cache_writes, response_counts
from ..entries.view import EntryView
from ..errors import check_stop
from ..reading.records import JSONDecodeError, describe_bad, loads
from ..reading.segment import LineKind

if TYPE_CHECKING:  # pragma: no cover
    from ..entries.tree import SessionTree
    from ..memo import Memo
    from ..reading.line_index import LineIndex
    from ..reading.segment import Segment
    from .client import Client


class Session(Protocol):
    """What a format adapter may use of a session (``model.session.Session``
    is one): its index, its records by offset, and a place to keep what it
    works out between calls. The adapters never import the session module."""

    path: str
    tree: SessionTree
    lines: LineIndex
    memo: Memo
    scan_state: dict[str, Any]
    header: dict[str, Any] | None
    titles: list[tuple[int, int, str, str | None]]
    pointers: list[tuple[int, object]]
    resume_model: str | None  # the model the context is sent to on resume (None: the session's last)

    @property
    def format(self) -> Format: ...

    def record(self, entry: int) -> dict[str, Any]: ...

    def raw_line(self, line: int) -> bytes: ...

    def find(self, entry_id: str) -> int | None: ...

    def sidecar(self) -> tuple[str, dict[str, Any]] | None: ...


class Sent(NamedTuple):
    """A message the client sends the model on resume."""

    entry: int  # the entry it comes from (an addition: the entry it answers or follows)
    message: dict[str, Any]
    added_by: str | None = None  # the client that adds it on resume; None: it is in the file


def best_title(titles: list[tuple[int, int, str, str | None]], known: Callable[[str], bool]) -> str | None:
    """Among title records (line, rank, text, the entry id it names or
    None): the highest rank, the latest on a tie; one that names an entry
    titles only a conversation in this file (``known(id)``)."""
    best = None
    for _line, rank, text, names in titles:
        if names is not None and not known(names):
            continue
        if best is None or rank >= best[0]:
            best = (rank, text)
    return best[1] if best else None


def unparsable(raw: bytes, error: Exception, line: int, seg: Segment) -> int:
    """A line orjson rejected: blank, or bad with a reason."""
    if not raw.strip():
        return LineKind.BLANK
    seg.bad.append((line, describe_bad(raw.rstrip(b"\r\n"), error)))
    return LineKind.BAD


def not_an_object(obj: object, line: int, seg: Segment) -> int:
    seg.bad.append((line, f"JSON {type(obj).__name__} is not an object"))
    return LineKind.BAD


class Compacted(NamedTuple):
    """A compaction as the format records it: its summary, the entries it
    summarised (root side first) and, when those are not in the file, why."""

    summary: str
    span: list[int]
    note: str = ""


CONTINUED = "its start is not in this file (a continued session)"


def path_up(session: Session, start: int) -> Iterator[int]:
    """``start`` and its ancestors, leaf side first."""
    node = start
    while node >= 0:
        yield node
        node = session.tree.parent[node]


class Format:
    """A format adapter: how records of one on-disk format map onto the tree.

    ``classify`` runs once per line while indexing (the hot loop) and records
    only the entry skeleton; everything else reads full records back by
    offset on demand (``Session.record``).
    """

    name = ""
    #: no ids on disk: each entry's parent is the entry before it
    linear = False
    #: a repeated id is a copy the tool itself makes (not damage): noted, not a problem
    duplicates_expected = False
    #: ``classify`` reads ``seg.state``, carried over from earlier lines: the
    #: file is scanned in order, in one process
    stateful = False
    #: the client that writes and resumes this format (None: no client resumes it)
    client: Client | None = None

    def compaction(self, session: Session, entry: int, record: dict[str, Any]) -> Compacted | None:
        """What the compaction at ``entry`` (its ``record``) summarised; None:
        the entry is no compaction."""
        return None

    def sniff(self, objs: list[dict[str, Any]], path: str | None = None) -> bool:
        """Whether the first parsed records of a file (at ``path``) look like this format."""
        raise NotImplementedError

    def scan_lines(self, pieces: list[bytes], first_line: int, seg: Segment) -> None:
        """Parse each line of ``pieces`` (line numbers from ``first_line``) into
        ``seg``: the hot loop of indexing, so it stays lean."""
        kinds = bytearray()
        classify = self.classify
        for line, raw in enumerate(pieces, first_line):
            try:
                obj = loads(raw)
            except JSONDecodeError as exc:
                kinds.append(unparsable(raw, exc, line, seg))
                continue
            kinds.append(classify(obj, line, seg) if type(obj) is dict else not_an_object(obj, line, seg))
        seg.line_kinds.frombytes(kinds)

    def classify(self, obj: dict[str, Any], line: int, seg: Segment) -> int:
        """Record what ``obj`` (line ``line``) adds to ``seg``; return its LineKind."""
        raise NotImplementedError

    def entry_id(self, record: dict[str, Any]) -> str | None:
        raise NotImplementedError

    def active_leaf(self, session: Session) -> int:
        """Entry index of the active leaf, or -1 for an empty session."""
        raise NotImplementedError

    def context(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
    ) -> list[tuple[int, dict[str, Any]]]:
        """(entry index, message) pairs the model would be sent from ``leaf``;
        ``should_stop`` is polled every few thousand entries (raise Cancelled)."""
        raise NotImplementedError

    def resume_model(self, session: Session, items: list[tuple[int, dict[str, Any]]]) -> str | None:
        """The model the context is shown as sent to, for a format whose
        client sends it differently by model (pi); None for the others."""
        return None

    def context_and_notes(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
    ) -> tuple[list[tuple[int, dict[str, Any]]], list[tuple[int, str]]]:
        """``context`` and notes on what could not be applied while building
        it — (0-based line, text); formats without such rules have none."""
        return self.context(session, leaf, should_stop), []

    def context_tail(self, session: Session, entries: list[int]) -> list[tuple[int, dict[str, Any]]] | None:
        """What ``entries`` (appended after a leaf, in path order) add to its
        context, or None when they change what came before (a summary, a
        rollback): then the context is built again. Formats that do not say
        build it again."""
        return None

    def tool_stream(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
    ) -> Iterable[tuple[int, dict[str, Any]]] | None:
        """The context at ``leaf`` as an iterable of (entry, message) good
        enough to pair tool calls while reading fewer records (a one-shot
        check of a big file), or None: pair over the context itself."""
        return None

    def context_notes(self, session: Session, leaf: int) -> list[tuple[int, str]]:
        """What could not be applied while building the context at ``leaf``
        (0-based line, text); formats without such rules have none."""
        return []

    #: the scan fills ``Segment.tally`` (tokens, first and last time): totals need no record read again
    tallies_usage = False
    #: with ``tallies_usage``: the tally holds its responses too (``ScanTally.unpriced``, ``priced``)
    tallies_responses = False

    #: what the client sends for a call whose result is not in the file (None: nothing, an error)
    fills_dangling: str | None = None
    #: the field naming an entry's parent (None: the format links entries by order)
    parent_key: str | None = None
    #: a tool result may answer a call anywhere before it, not only right after it (Codex)
    results_anywhere = False
    #: its client marks a tool result as failed (``EntryView.is_error``): worth reading results for
    marks_errors = False
    #: what the client does with a torn last line: (severity, what happens)
    torn_tail: tuple[str, str] | None = None

    def resume(self, session: Session, items: list[tuple[int, dict[str, Any]]]) -> list[Sent]:
        """What the format's own client sends the model when it resumes at
        the end of ``items`` (the file's context): its repairs included,
        marked as added by it. Formats with no client of their own send the
        file's messages as they are."""
        return [Sent(entry, message) for entry, message in items]

    def read_only(self, session: Session) -> str | None:
        """Why session-tui does not write this file (an older version of the
        format), or None."""
        return None

    def same_step(self, previous: dict[str, Any], message: dict[str, Any]) -> bool:
        """Whether ``message`` continues the model response ``previous``
        (one response recorded as several messages): calls stay open."""
        return False

    def call_entry(self, session: Session, entry: int, call_id: str) -> int:
        """The entry that records the call ``call_id`` of the context message
        at ``entry`` (formats that keep a response's calls in records of their
        own, opencode's parts, say which; the message's by default)."""
        return entry

    def tool_call_ids(self, message: dict[str, Any]) -> list[str]:
        """Ids of the tool calls a context message makes."""
        raise NotImplementedError

    def tool_result_id(self, message: dict[str, Any]) -> str | None:
        """The call id a context message answers, if it is a tool result."""
        raise NotImplementedError

    def tool_result_ids(self, message: dict[str, Any]) -> list[str]:
        """Every call id a context message answers (one message may answer several)."""
        result = self.tool_result_id(message)
        return [result] if result is not None else []

    def view(self, record: dict[str, Any]) -> EntryView:
        """What the view shows of an entry's record."""
        raise NotImplementedError

    def unsearched(self, record: dict[str, Any]) -> bool:
        """Whether the search index leaves ``record`` out: a record the model
        never sees and no user searches (a client's own telemetry)."""
        return False

    def title(self, session: Session) -> str | None:
        """The session's title: the best of its title records (``session.titles``)."""
        return best_title(session.titles, lambda names: session.find(names) is not None)

    def origin(self, session: Session) -> str | None:
        """The session this one was forked from, as the file records it."""
        return None

    def subagents(self, session: Session) -> dict[int, str]:
        """Transcripts of sub-agents beside the file, by the entry of the
        call that spawned them."""
        return {}

    def expected_root(self, record: dict[str, Any]) -> bool:
        """Whether an entry whose parent is not in the file is normal here."""
        return False

    def ends_turn(self, record: dict[str, Any]) -> bool:
        """Whether the client waits for the user after ``record`` though the
        model did not answer it (the live state's rule reads it as an
        answer): a turn the user interrupted, a local command's output."""
        return False

    def is_leaf_pointer(self, record: dict[str, Any]) -> bool:
        """Whether ``record`` only moves the leaf (session-tui's own, where
        the format keeps it as an entry): no node of a branch."""
        return False

    def leaf_pointers(self, session: Session) -> int:
        """How many of the session's entries are such records (``is_leaf_pointer``)."""
        return 0

    def off_branch(self, session: Session, should_stop: Callable[[], bool] | None = None) -> set[int]:
        """Entries on the trunk of a one-branch file that the model no longer
        sees (Codex: rolled-back turns). Shown greyed, off the active path."""
        return set()

    def ended_runs(self, session: Session) -> list[tuple[int, int]]:
        """(first, last) of each run of consecutive ``off_branch`` entries:
        in a one-branch file, the branches that ended (turns a rollback undid)."""
        runs: list[list[int]] = []
        for entry in sorted(self.off_branch(session)):
            if runs and runs[-1][1] == entry - 1:
                runs[-1][1] = entry
            else:
                runs.append([entry, entry])
        return [(first, last) for first, last in runs]

    def sidecar_path(self, path: str) -> str | None:
        """A metadata file that belongs to the session file, if the format has one."""
        return None

    def entry_tokens(self, session: Session, entry: int) -> dict[str, Any] | None:
        """Usage of ``entry`` recorded outside its own record (Codex: the
        token_count after it); None: the view's ``tokens``."""
        return None

    def client_window(self, session: Session, entry: int) -> int | None:
        """The context window the client counts the response at ``entry``
        against, where it says so itself (recorded with the response, or its
        own fixed limit); None: the model's in the price table."""
        return None

    #: the responses are found entry by entry (``entry_response``): a file that grew adds to what was found
    responses_by_entry = True

    def responses(self, session: Session, should_stop: Callable[[], bool] | None = None) -> list[Response]:
        """Every model response the file records, each once (one written over
        several entries, which each carry its usage, by its entry with the
        highest output), every branch, in file order."""
        found: dict[str | int, Response] = {}
        for entry in range(session.tree.count):
            check_stop(should_stop, entry)
            add_response(found, self.entry_response(session, entry))
        return list(found.values())

    def entry_response(
        self, session: Session, entry: int, record: dict[str, Any] | None = None
    ) -> tuple[str | int, Response] | None:
        """The response ``entry`` records a part of, keyed by the response
        (its entries share the key), or None: no usage. ``record``: the
        entry's record, when the caller has read it already."""
        record = session.record(entry) if record is None else record
        view = self.view(record)
        if not view.tokens:
            return None
        counts = response_counts(view.tokens)
        if not any(counts):
            return None
        cost = view.tokens.get("cost_usd")
        inner = record.get("message")
        message: dict[str, Any] = inner if isinstance(inner, dict) else record
        model, provider = message.get("model"), message.get("provider")
        return view.step if view.step is not None else entry, Response(
            entry,
            model if isinstance(model, str) else None,
            provider if isinstance(provider, str) else None,
            *counts,
            time=view.time,
            recorded_cost=float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None,
            cache_write_1h=min(counts[3], hour_cache_writes(view.tokens)),
        )


class LinearFile(Format):
    """A file that is one branch: one message per line, the last one the
    active leaf, the context every message up to the leaf as recorded; an
    optional ``<stem>.meta.json`` beside it."""

    linear = True

    def active_leaf(self, session: Session) -> int:
        return session.tree.count - 1

    def context(
        self, session: Session, leaf: int, should_stop: Callable[[], bool] | None = None
    ) -> list[tuple[int, dict[str, Any]]]:
        out: list[tuple[int, dict[str, Any]]] = []
        for i in range(leaf + 1):
            check_stop(should_stop, i)
            out.append((i, session.record(i)))
        return out

    def context_tail(self, session: Session, entries: list[int]) -> list[tuple[int, dict[str, Any]]] | None:
        return [(i, session.record(i)) for i in entries]

    def sidecar_path(self, path: str) -> str | None:
        stem = path[: -len(".jsonl")] if path.endswith(".jsonl") else path
        return stem + ".meta.json"

    def origin(self, session: Session) -> str | None:
        found = session.sidecar()
        parent = found[1].get("parentId") if found else None
        return f"session {parent}" if isinstance(parent, (str, int)) and parent != "" else None


def add_response(found: dict[str | int, Response], part: tuple[str | int, Response] | None) -> None:
    """Add an entry's part of a response to ``found`` (by response, in file
    order of each one's last part): the part with the highest output stands
    for the response."""
    if part is None:
        return
    key, response = part
    if key in found and found[key].output > response.output:
        return
    found.pop(key, None)  # (in file order: where its last line is)
    found[key] = response


def cwd_back(session: Session, leaf: int, limit: int) -> str | None:
    """The ``cwd`` of the first record that carries one, from ``leaf`` back
    (at most ``limit`` records)."""
    tree = session.tree
    entry = leaf
    for _ in range(limit):
        if entry < 0:
            break
        found = session.record(entry).get("cwd")
        if isinstance(found, str) and found:
            return found
        entry = tree.parent[entry]
    return None
