"""What ``session-tui mcp``'s tools answer, apart from the protocol: the
search, a session's context, branches, problems and usage, each answer
one JSON text with its secrets masked (unless the server was started
with ``--no-redact``), and every path a client gives checked to resolve
inside the folders served (symlinks too) and to hold a session."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..model.errors import SessionError
from ..model.sanitize import inert_line, json_escape_invisible

if TYPE_CHECKING:  # pragma: no cover
    from ..model.session.session import Session


MAX_HITS = 200  # of a search


MAX_ITEMS = 500  # messages or branches of one answer (a page: ``offset`` goes on)


MAX_CHARS = 50_000  # of a context page's messages, by default (a client's tool-output limit is near 100k)


class ToolRefused(Exception):
    """A call that cannot be answered; ``str()`` says why, in one line."""


def local_path(path: str) -> str:
    return path.removeprefix("file://")


class Tools:
    """The tools' work, each call a JSON-ready dict; ``roots``: the folders
    the server reads (none given: the known session folders, looked up at
    each call)."""

    def __init__(self, roots: list[str], redact: bool = True) -> None:
        self.given_roots = roots
        self.redact = redact
        self._lock = threading.Lock()  # one call at a time: the SDK runs each in a worker thread

    def roots(self) -> list[str]:
        if self.given_roots:
            return self.given_roots
        from ..model.catalog.known import default_paths

        found = [os.path.abspath(p) for p in default_paths()]
        if not found:
            raise ToolRefused("no session folders found; start the server with one: session-tui mcp PATH")
        return found

    # -- paths
    def _inside(self, given: str) -> str:
        """``given`` as an absolute local path, refused unless it resolves
        inside one of the roots (``checked_paths.inside``: symlinks resolved)."""
        from ..model.checked_paths import ResumeRefused, inside
        from ..model.reading.source import is_url

        if not isinstance(given, str) or not given.strip():
            raise ToolRefused("give a path")
        if "\0" in given or "\n" in given or "\r" in given:
            raise ToolRefused(f"{given!r}: not a path")
        if is_url(given):
            raise ToolRefused(f"{given}: a URL; this server reads local files only")
        path = os.path.abspath(local_path(given))
        roots = self.roots()
        for root in roots:
            try:
                inside(root, path)
                return path
            except ResumeRefused:
                continue
        raise ToolRefused(f"{given}: outside the folders this server reads ({', '.join(roots)})")

    def _folder_or_file(self, given: str) -> str:
        from .paths import path_problem

        path = self._inside(given)
        problem = path_problem(path)
        if problem is not None:
            raise ToolRefused(f"{given}: {problem}")
        return path

    def _session_path(self, given: str) -> str:
        """A session file (or ``opencode.db#ID``) inside the roots."""
        from ..model.formats.opencode.database import split_name

        if isinstance(given, str) and "#" in given:
            found = split_name(local_path(given))  # (a malformed id: SessionError)
            if found is not None:
                base = self._folder_or_file(found[0])
                return base if found[1] is None else f"{base}#{found[1]}"
        path = self._inside(given)
        if os.path.isdir(path):
            raise ToolRefused(f"{given}: a folder; give a session file (search gives each hit's file)")
        return self._folder_or_file(path)

    def _open(self, given: str) -> Session:
        from ..model.session.session import open_session

        return open_session(self._session_path(given))

    def _leaf(self, session: Session, leaf: str | None) -> int:
        if leaf is None or not str(leaf).strip():
            return session.active_leaf()
        from ..store.edits import resolve_entry

        return resolve_entry(session, str(leaf).strip())

    # -- the tools
    def search(self, query: str, paths: list[str] | None = None, limit: int = 20) -> dict[str, Any]:
        """The ``search --json`` object: {hits, total, took_ms, indexed_files}."""
        from ..model.search_index.database import using_index
        from ..model.search_index.indexer import catch_up
        from ..model.search_index.query import QueryError, parse
        from ..model.search_index.search import run_query

        try:
            parsed = parse(query)
        except QueryError as exc:
            raise ToolRefused(str(exc)) from None
        if parsed.machines:
            raise ToolRefused("machine:NAME searches the team archive (session-tui search QUERY DB_URL), not files")
        roots = [self._folder_or_file(p) for p in paths] if paths else self.roots()
        limit = max(1, min(MAX_HITS, limit))
        redact = self._redactor().text if self.redact else None

        def work(db: Any) -> tuple[Any, int]:
            catch_up(db, roots, notice=_notice)
            found = run_query(db, parsed, roots, limit, redact=redact, mark_branches=False)
            return found, db.execute("SELECT count(*) FROM files").fetchone()[0]

        found, indexed = using_index(work, notice=_notice)  # (a damaged index is built again, once)
        out: dict[str, Any] = {
            "hits": [hit.as_json() for hit in found.hits],
            "total": found.total,
            "took_ms": round(found.took_ms, 3),
            "indexed_files": indexed,
        }
        if not found.exact:
            out["total_exact"] = False
        return out

    def context(
        self, file: str, leaf: str | None = None, offset: int = 0, limit: int = 50, max_chars: int = MAX_CHARS
    ) -> dict[str, Any]:
        """The messages the client sends the model on resume at ``leaf``
        (``resume_items``: the context with the client's own merging and
        repairs), a page of them: ``limit`` messages, fewer once their JSON
        passes ``max_chars`` (one at least, whole); ``next_offset`` goes on."""
        from ..model.session.context import resume_items

        with self._open(file) as session:
            at = self._leaf(session, leaf)
            sent = resume_items(session, at) if at >= 0 else []
            page = _page(sent, offset, limit)
            items: list[dict[str, Any]] = []
            size = 0
            for item in sent[page]:
                shown = _sent(session, item)
                size += len(json.dumps(shown, ensure_ascii=False))
                if items and size > max_chars:
                    break
                items.append(shown)
            out = {
                "file": session.path,
                "format": session.format.name,
                "leaf": session.format.entry_id(session.record(at)) if at >= 0 else None,
                "leaf_line": session.line_of(at) if at >= 0 else None,
                "active": at == session.active_leaf(),
                "messages": len(sent),
                "offset": page.start,
                "items": items,
            }
            if page.start + len(items) < len(sent):
                out["next_offset"] = page.start + len(items)
            return out

    def branches(self, file: str, offset: int = 0, limit: int = 100) -> dict[str, Any]:
        """Every branch (``model.session.branches``), the most recently written first."""
        from ..model.entries.tree import NONE
        from ..model.entries.view import iso_time
        from ..model.session.branches import branches, details, own_entries
        from ..model.usage.totals import entries_usage

        with self._open(file) as session:
            rows = branches(session)
            page = _page(rows, offset, limit)
            out = []
            for branch in rows[page]:
                told = details(session, branch)
                out.append(
                    {
                        "leaf": session.format.entry_id(session.record(branch.leaf)),
                        "leaf_line": session.line_of(branch.leaf),
                        "active": branch.active,
                        "fork_line": told.fork_line,
                        "first_line": session.line_of(branch.first) if branch.first != NONE else None,
                        "label": told.label,
                        "steps": told.steps,
                        "ends": told.ends,
                        "last_time": iso_time(told.last_time),
                        "tokens": {
                            "input": told.tokens.input,
                            "output": told.tokens.output,
                            "cache_read": told.tokens.cache_read,
                            "cache_write": told.tokens.cache_write,
                        },
                        "cost_usd": _cost(entries_usage(session, own_entries(session, branch)).cost_usd),
                    }
                )
            listed = {"file": session.path, "branches": len(rows), "offset": page.start, "items": out}
            if page.start + len(out) < len(rows):
                listed["next_offset"] = page.start + len(out)
            return listed

    def problems(self, file: str) -> dict[str, Any]:
        """The ``check --json`` report of the session: its problems, dangling
        calls, leaves, active leaf, usage."""
        from ..model.sanitize import mark_undecodable
        from .check import report

        with self._open(file) as session:
            data = report(session, session.path, for_people=False).as_json()
            data["path"] = mark_undecodable(session.path)
            return data

    def usage(self, file: str) -> dict[str, Any]:
        """Tokens and cost (``spending``, as ``check --json`` says them), sub-agents rolled up and apart."""
        from ..model.usage.totals import spending

        with self._open(file) as session:
            spent = spending(session)
            total = spent.total
            return {
                "file": session.path,
                "usage": {**total.as_json(), "responses": total.responses},
                "own": {**spent.own.as_json(), "responses": spent.own.responses},
                "subagents": [
                    {"file": path, **usage.as_json(), "responses": usage.responses}
                    for path, usage in sorted(spent.subagents.items())
                ],
            }

    # -- answers
    def _redactor(self) -> Any:
        from ..model.privacy.redact import Redactor

        return Redactor()

    def answer(self, work: Callable[[], dict[str, Any]]) -> tuple[str, bool]:
        """(the JSON text of ``work()``'s answer, False), or (one line saying
        why there is none, True). Secrets masked in both unless ``--no-redact``."""
        from ..model.checked_paths import ResumeRefused
        from ..store import Refused

        try:
            with self._lock:
                data = work()
            if self.redact:  # (a file's name, a label, a message: any string may hold one)
                data = self._redactor().value(data)
            return _json(data), False
        except (ToolRefused, SessionError, Refused, ResumeRefused) as exc:
            return inert_line(exc), True
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            return inert_line(f"{where}{exc.strerror or exc}"), True
        except Exception as exc:  # a bug: one line, as the CLI says it
            return inert_line(f"internal error: {type(exc).__name__}: {exc}"), True


def _sent(session: Session, item: Any) -> dict[str, Any]:
    """A message of the context: the line of the entry it comes from, the
    message as sent, and the client that adds it on resume (not in the file)."""
    out: dict[str, Any] = {"line": session.line_of(item.entry), "message": item.message}
    if item.added_by:
        out["added_by"] = item.added_by
    return out


def _page(items: list[Any], offset: int, limit: int) -> slice:
    start = max(0, offset)
    return slice(start, start + max(1, min(MAX_ITEMS, limit)))


def _cost(cost: float | None) -> float | None:
    return None if cost is None else round(cost, 6)


def _json(data: Any) -> str:
    """JSON text with invisible and bidi characters escaped (``--json``'s
    form); a name's bytes that are not UTF-8 written as escapes too."""
    text = json_escape_invisible(json.dumps(data, ensure_ascii=False))
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _notice(message: str) -> None:
    print(f"session-tui mcp: {inert_line(message)}", file=sys.stderr)
