"""A search of the team archive (``DB_URL``, ``DB_URL#MACHINE/PATH``): the
database gives the candidate lines, and each is checked as a local search
checks a candidate, with the same functions, so that the hits are those a
search of the same files finds.

The candidates are the lines whose chunks meet ``archive_terms.conditions``
(the chunks' trigram index answers them; without pg_trgm, a scan does) in
the files the filters on a file name keep (``machine:``, ``format:``,
``in:``, the addresses given), asked a batch of files at a time: the files
ordered by their newest entry a search may hit (``files.newest_entry``,
written at push; none older than ``after:``), the first batch
``FIRST_BATCH`` bytes of them at least, each next one twice what the page still
needs at the rate hits came so far (the whole rest when none came: one
look-up of the index for a rare word). Each candidate is then what ``search.run_query`` makes
of a line: its record parsed (``records.parse_object``), passed over where
its format does not search it, its strings checked (``Query.may_match``,
``Query.matches``), its document made (``documents.document``: entry,
role, kind, time) and the filters on it applied; a result's tool (for
``tool:``) is that of the call it answers, looked up in the lines before
it, and a record's model (``model:``) the last one named up to it. Hits
come newest first (ties: the later file and line first, as the index
orders them), their snippets cut by ``search.cut_snippet``, line numbers
those of the original file. Once the hits shown are found and
``COUNT_BUDGET`` of checking is spent (from the first candidate: the
server's own time, finding them, is not the check's), counting stops
(``exact`` False) and no file is read whose newest entry is older than the
oldest hit shown (nor any batch after it). A file pushed before its chunks
existed (schema 3) is read whole, first.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..entries.view import model_named
from ..errors import SessionError
from ..formats import Format, get_format
from ..reading.archived import describe, shown_url
from ..reading.record_text import string_values
from ..reading.records import BOM, BadLine, parse_object
from .archive_terms import conditions, like_pattern, pieces
from .documents import Document, document
from .query import Query, plain_ascii
from .search import COUNT_BUDGET, Found, Hit, cut_snippet, on_active_branch
from .secrets_masked import masked

ITERSIZE = 500  # candidate lines' keys fetched at a time
TEXTS = 64  # candidate lines' texts fetched at a time, at most
BACK = 200  # lines read back at a time looking for the model named last
FIRST_BATCH = 2 << 20  # bytes of the newest files whose candidates are asked first
NEAR = 64 << 10  # bytes before a result in which its call is looked for first, line by line
# a line (``l``) that may hold the ASCII text given (a parameter) in its strings: as written, or behind a
# ``\u`` escape (JSON escapes no such character otherwise)
_MAY_HOLD = "(strpos(l.text, %s) > 0 OR strpos(l.text, '\\u') > 0)"
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass
class Where:
    """The archive and the sessions searched: the whole archive, or sessions
    under the (machine, path) addresses given (a file, or a folder)."""

    url: str  # the database's URL (its password kept: a hit's branch is read through it)
    addresses: list[tuple[str, str]]


@dataclass
class _Hit:
    address: str
    machine: str
    path: str
    format: str
    doc: Document
    parts: list[str]


def trigram_index(conn: Any) -> bool:
    """Whether the archive has its trigram index (pg_trgm was there when it was migrated)."""
    return bool(conn.execute("SELECT to_regclass('chunks_trigrams') IS NOT NULL").fetchone()[0])


def indexed_files(conn: Any) -> int:
    return int(conn.execute("SELECT count(*) FROM files").fetchone()[0])


def _files_where(query: Query, where: Where) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    args: list[Any] = []
    if query.machines:
        clauses.append("m.name = ANY(%s)")
        args.append(query.machines)
    if query.format:
        clauses.append("f.format = %s")
        args.append(query.format)
    if query.after is not None:  # (a hit's time is at most its file's newest entry's)
        clauses.append("(NOT f.chunked OR f.newest_entry >= %s)")
        args.append(query.after)
    if query.under:
        clauses.append("(" + " OR ".join("f.path = %s OR f.path LIKE %s" for _ in query.under) + ")")
        for path in query.under:
            args += [path, like_pattern(path.rstrip("/") + "/")[1:]]
    if where.addresses:
        each = "m.name = %s AND (f.path = %s OR f.path LIKE %s)"
        clauses.append("(" + " OR ".join(each for _ in where.addresses) + ")")
        for machine, path in where.addresses:
            args += [machine, path, like_pattern(path.rstrip("/") + "/")[1:]]
    return " AND ".join(clauses) or "TRUE", args


def run_archive_query(
    conn: Any,
    where: Where,
    query: Query,
    limit: int = 50,
    redact: Callable[[str], str] | None = None,
    mark_branches: bool = True,
) -> Found:
    """Hits of ``query`` in the archive's sessions ``where`` (``conn``: a
    connection to it), newest first, as ``search.run_query`` gives those
    of local files (``file``: the session's ``DB_URL#MACHINE/PATH``, its
    password shown as ``***``)."""
    import psycopg

    try:
        checker = _Checker(conn, where.url, query)
        for (name,) in conn.execute("SELECT DISTINCT format FROM files").fetchall():
            checker.format(name)  # (its reader imported before the clock starts, as a local search's are)
        return _run(conn, where, query, limit, redact, mark_branches, checker)
    except psycopg.Error as exc:
        raise SessionError(describe(where.url, exc)) from None


@dataclass
class _File:
    id: int
    machine: str
    path: str
    format: str
    newest: float | None  # the newest time of an entry a search may hit
    chunked: bool
    size: int


def _files(conn: Any, query: Query, where: Where) -> list[_File]:
    """The files searched: those without chunks (their times unknown) first, then by their newest entry."""
    files, args = _files_where(query, where)
    rows = conn.execute(
        "SELECT f.id, m.name, f.path, f.format, f.newest_entry, f.chunked, f.stream_size "
        f"FROM files f JOIN machines m ON m.id = f.machine_id WHERE {files} "
        "ORDER BY f.chunked, f.newest_entry DESC NULLS LAST, f.id DESC",
        args,
    ).fetchall()
    return [_File(*row) for row in rows]


def _next_batch(files: list[_File], at: int, budget: int) -> list[_File]:
    """The files from ``at`` on until they hold ``budget`` bytes (the last may pass it: the newest
    files are often a few KB, and a batch of them alone would tell nothing of how rare a word is)."""
    end, size = at, 0
    while end < len(files) and size < budget:
        size += files[end].size
        end += 1
    return files[at:end]


def _budget(read: int, hits: int, limit: int) -> int:
    """The bytes of files the next batch asks for, ``read`` bytes having given ``hits``: twice
    what the page still needs at that rate (the whole rest when none was found), FIRST_BATCH at least."""
    if hits >= limit:
        return max(FIRST_BATCH, 2 * read)
    return max(FIRST_BATCH, 2 * read, 2 * read * limit // hits if hits else 1 << 62)


def _candidates(terms: str | None) -> str:
    """The query giving a batch's candidate lines in the batch's order (file, then last line first):
    the lines whose chunks meet ``terms``, and every line of a file without chunks (or of any, no terms).
    Their keys only: a common word's are every line of the batch, sorted, and few of them are read
    (``_with_text``)."""
    every = (
        "SELECT b.n, l.file_id, l.start, l.line_no, l.byte_offset FROM unnest(%s::bigint[]) "
        "WITH ORDINALITY AS b(id, n) JOIN lines l ON l.file_id = b.id WHERE l.text IS NOT NULL"
    )
    if terms is None:
        return f"{every} ORDER BY 1, 3 DESC"
    chunked = (
        "SELECT b.n, l.file_id, l.start, l.line_no, l.byte_offset FROM unnest(%s::bigint[]) "
        "WITH ORDINALITY AS b(id, n) JOIN (SELECT DISTINCT c.file_id, c.start FROM chunks c "
        f"WHERE c.file_id = ANY(%s) AND {terms}) h ON h.file_id = b.id "
        "JOIN lines l ON l.file_id = h.file_id AND l.start = h.start WHERE l.text IS NOT NULL"
    )
    return f"{chunked} UNION ALL {every} ORDER BY 1, 3 DESC"


def _run(
    conn: Any,
    where: Where,
    query: Query,
    limit: int,
    redact: Callable[[str], str] | None,
    mark_branches: bool,
    checker: _Checker,
) -> Found:
    began = time.perf_counter()
    terms, term_args, _ = conditions(query)
    sql = _candidates(terms)
    found = Found()
    kept: list[_Hit] = []
    counting = True
    checking: float | None = None
    with conn.transaction():
        # one snapshot for every statement: the batches, and the texts read after their keys, see one archive
        # whatever a push commits meanwhile
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        # a batch's query costs the planner's JIT compile (~55 ms at 2 GB) and two parallel workers' start
        # (~45 ms) past its estimates, for work of a few ms: neither pays off for a page of hits
        conn.execute("SELECT set_config('jit', 'off', true), set_config('max_parallel_workers_per_gather', '0', true)")
        files = _files(conn, query, where)
        at, read, budget = 0, 0, FIRST_BATCH
        while at < len(files):
            batch = _next_batch(files, at, budget)
            at += len(batch)
            read += sum(f.size for f in batch)
            if not counting and len(kept) >= limit and _older(batch[0], kept[-1]):
                break  # (no entry of these files, nor of any after them, is newer than the hits shown)
            ids = [f.id for f in batch]
            by_id = {f.id: f for f in batch}
            if terms is None:
                args: list[Any] = [ids]
            else:
                chunked = [f.id for f in batch if f.chunked]
                args = [chunked, chunked, *term_args, [f.id for f in batch if not f.chunked]]
            # the first batch's chunks read through by their key (a few MB: as quick as the index for a rare
            # word, far quicker for a common one, whose trigrams list nearly every chunk); the next batches
            # through the index (the planner, which cannot tell a rare piece from a common one, would read
            # every chunk of a big batch instead)
            conn.execute(
                "SELECT set_config('enable_bitmapscan', %s, true), set_config('enable_seqscan', 'off', true)",
                ("off" if at == len(batch) else "on",),
            )
            with conn.cursor(name="session_tui_search") as cur:
                cur.itersize = ITERSIZE
                cur.execute(sql, args)
                for _n, file_id, start, line_no, offset, text in _with_text(conn, cur):
                    file = by_id[file_id]
                    if not counting and len(kept) >= limit and _older(file, kept[-1]):
                        break
                    checking = checking or time.perf_counter()
                    hit = checker.check(file_id, file.machine, file.path, file.format, start, line_no, offset, text)
                    if hit is None:
                        continue
                    if counting:
                        found.total += 1
                    kept = _newest([*kept, hit], limit)
                    if counting and len(kept) >= limit and time.perf_counter() - checking > COUNT_BUDGET:
                        counting, found.exact = False, False
            budget = _budget(read, found.total if counting else limit, limit)
    branches: dict[str, array[int] | None] = {}
    for hit in kept:
        shown = cut_snippet([redact(part) for part in hit.parts] if redact else hit.parts, query)
        on_branch = on_active_branch(branches, hit.address, hit.doc.line) if mark_branches else None
        doc = hit.doc
        found.hits.append(
            Hit(
                shown_url(hit.address),
                doc.line + 1,
                masked(doc.entry_id)[0],
                doc.role,
                doc.kind,
                doc.time,
                shown,
                hit.format,
                on_branch,
            )
        )
    found.took_ms = (time.perf_counter() - began) * 1000
    return found


def _with_text(conn: Any, keys: Any) -> Iterator[tuple[Any, ...]]:
    """``keys`` (candidate lines: batch order, file id, start, ...) each with its text, read a few
    lines at a time (8, then up to TEXTS), in their order."""
    size, group = 8, []
    for row in keys:
        group.append(row)
        if len(group) >= size:
            yield from _texts(conn, group)
            size, group = min(size * 2, TEXTS), []
    yield from _texts(conn, group)


def _texts(conn: Any, group: list[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """``group``'s rows, each with its line's text (one statement, by the lines' keys)."""
    if not group:
        return
    found = dict(
        ((file_id, start), text)
        for file_id, start, text in conn.execute(
            "SELECT l.file_id, l.start, l.text FROM unnest(%s::bigint[], %s::bigint[]) AS k(f, s) "
            "JOIN lines l ON l.file_id = k.f AND l.start = k.s",
            ([row[1] for row in group], [row[2] for row in group]),
        )
    )
    for row in group:
        text = found.get((row[1], row[2]))
        if text is not None:
            yield (*row, text)


def _older(file: _File, oldest: _Hit) -> bool:
    """Whether every hit ``file`` may hold comes after ``oldest`` (its entries are older, or have no time)."""
    if not file.chunked or oldest.doc.time is None:
        return False
    return file.newest is None or file.newest < oldest.doc.time


def _newest(hits: list[_Hit], limit: int) -> list[_Hit]:
    """Newest first; of one time, the later file (machine, path) and line first, as the index gives them."""
    ordered = sorted(hits, key=lambda h: (h.machine, h.path, h.doc.line), reverse=True)
    return sorted(ordered, key=lambda h: (h.doc.time is None, -(h.doc.time or 0.0)))[:limit]


class _Checker:
    """Each candidate line checked as a local search checks a candidate."""

    def __init__(self, conn: Any, url: str, query: Query) -> None:
        self.conn = conn
        self.url = url
        self.query = query
        self.formats: dict[str, Format | None] = {}
        self.branches: dict[str, array[int] | None] = {}
        # a file's model looked up last: (from where it was looked back, the line naming it or -1, the model)
        self.models: dict[int, tuple[int, int, str | None]] = {}

    def format(self, name: str) -> Format | None:
        if name not in self.formats:
            try:
                self.formats[name] = get_format(name)
            except ValueError:  # (pushed by a newer session-tui: a format this one does not know)
                self.formats[name] = None
        return self.formats[name]

    def check(
        self, file_id: int, machine: str, path: str, fmt_name: str, start: int, line_no: int, offset: int, text: str
    ) -> _Hit | None:
        query = self.query
        raw = text.encode("utf-8", "surrogatepass")
        if line_no == 1 and raw.startswith(BOM):
            raw, offset = raw[len(BOM) :], offset + len(BOM)
        fmt = self.format(fmt_name)
        if fmt is None or not query.may_match(raw):
            return None
        try:
            record = parse_object(raw)
        except BadLine:
            return None
        if fmt.unsearched(record):
            return None
        parts = string_values(record)
        if not query.matches("\n".join(parts)):
            return None
        try:
            view = fmt.view(record)
            tools: dict[str, str] = {}
            if query.tool and view.result_for is not None and not view.tool_calls:
                tools = self._tools(file_id, start, view.result_for, fmt)
            doc = document(line_no - 1, offset, len(raw.rstrip(b"\r\n")), record, view, tools)
        except (TypeError, ValueError, AttributeError, KeyError):  # (a record its format cannot view: not indexed)
            return None
        if not self._fields(doc, file_id, start, record, fmt):
            return None
        address = f"{self.url}#{machine}{path}"
        if query.active_branch and on_active_branch(self.branches, address, doc.line) is False:
            return None
        return _Hit(address, machine, path, fmt_name, doc, parts)

    def _fields(self, doc: Document, file_id: int, start: int, record: dict[str, Any], fmt: Format) -> bool:
        """Whether the document passes the filters on its fields (as the index's ``candidates._where``)."""
        query = self.query
        if query.role and doc.role != query.role:
            return False
        if query.tool and doc.tool != query.tool:
            return False
        if query.error and not (doc.error and doc.kind == "result"):
            return False
        if query.paths and doc.kind != "call":
            return False
        if query.after is not None and (doc.time is None or doc.time < query.after):
            return False
        if query.before is not None and (doc.time is None or doc.time >= query.before):
            return False
        if query.model:
            named = model_named(record) or self._model_before(file_id, start, fmt)
            # (SQLite's lower(), which the index's filter uses: ASCII only)
            if named is None or query.model.translate(_ASCII_LOWER) not in named.translate(_ASCII_LOWER):
                return False
        return True

    def _tools(self, file_id: int, start: int, call_id: str, fmt: Format) -> dict[str, str]:
        """call id → tool name of the last call with ``call_id`` before the line at ``start``: looked
        for first in the lines of the NEAR bytes before it (a call is most often a line or a few
        before its result) that hold the id as it is written, or any ``\\u`` escape (which may write
        it otherwise), read back from the line before; then, if none there is the call, through the
        chunks' index in the lines before those."""
        if plain_ascii(call_id):
            near = self.conn.execute(
                "SELECT l.text FROM lines l WHERE l.file_id = %s AND l.start < %s AND l.start >= %s "
                f"AND l.text IS NOT NULL AND {_MAY_HOLD} ORDER BY l.start DESC",
                (file_id, start, start - NEAR, call_id),
            )
            named = self._called(near, call_id, fmt)
            if named is not None:
                return {call_id: named}
            start -= NEAR  # (the lines read through: none of them is the call)
        looked = pieces(call_id, word=False)
        holding = " AND ".join(p.clause for p in looked) or "TRUE"
        rows = self.conn.execute(
            "SELECT l.text FROM lines l WHERE l.file_id = %s AND l.start < %s AND l.text IS NOT NULL "
            "AND l.start IN (SELECT c.start FROM chunks c WHERE c.file_id = %s AND c.start < %s "
            f"AND {holding}) ORDER BY l.start DESC",
            (file_id, start, file_id, start, *(p.arg for p in looked)),
        )
        named = self._called(rows, call_id, fmt)
        return {} if named is None else {call_id: named}

    def _called(self, rows: Any, call_id: str, fmt: Format) -> str | None:
        """The tool of the first call with ``call_id`` in ``rows`` (lines, the last first)."""
        for (text,) in rows:
            try:
                record = parse_object(text.encode("utf-8", "surrogatepass"))
                if fmt.unsearched(record):
                    continue
                calls = fmt.view(record).tool_calls
            except (BadLine, TypeError, ValueError, AttributeError, KeyError):
                continue
            for call in reversed(calls):
                if call.id == call_id:
                    return str(call.name)
        return None

    def _model_before(self, file_id: int, start: int, fmt: Format) -> str | None:
        """The model named last in the file's lines before the one at ``start`` (read back from the
        lines that hold ``model``, as a line naming one writes its key, or a ``\\u`` escape, which
        may write it otherwise: not a tool's output of 300 KB between). A file's candidates come
        last first: one after the line found for the one before and no later than it has its model."""
        looked = self.models.get(file_id)
        if looked is not None and looked[1] < start <= looked[0]:
            return looked[2]
        named = self._model_looked_back(file_id, start, fmt)
        self.models[file_id] = (start, *named)
        return named[1]

    def _model_looked_back(self, file_id: int, start: int, fmt: Format) -> tuple[int, str | None]:
        """(the line naming it or -1, the model named last before ``start``)."""
        back = 4  # (the line before most often: a few first, then four times as many, up to BACK)
        while True:
            rows = self.conn.execute(
                "SELECT l.start, l.text FROM lines l WHERE l.file_id = %s AND l.start < %s AND l.text IS NOT NULL "
                f"AND {_MAY_HOLD} ORDER BY l.start DESC LIMIT %s",
                (file_id, start, "model", back),
            ).fetchall()
            back = min(back * 4, BACK)
            if not rows:
                return -1, None
            for at, text in rows:
                start = at
                try:
                    record = parse_object(text.encode("utf-8", "surrogatepass"))
                except BadLine:
                    continue
                if not fmt.unsearched(record):
                    named = model_named(record)
                    if named:
                        return at, named
