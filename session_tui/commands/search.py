"""`session-tui search QUERY [PATH ...]`: every session under the folders,
searched through the index (caught up with the files first: a result is
never older than the files)."""

from __future__ import annotations

import json
import sys
from typing import Any

from ..model.catalog.known import default_paths


def run_search(args: Any) -> int:
    from ..model.errors import SessionError
    from ..model.sanitize import inert_line, json_escape_invisible
    from ..model.search_index.database import using_index
    from ..model.search_index.indexer import catch_up
    from ..model.search_index.query import QueryError, parse
    from ..model.search_index.search import run_query

    try:
        query = parse(args.query)
    except QueryError as exc:
        print(f"session-tui search: {exc}", file=sys.stderr)
        return 2
    roots = args.paths or default_paths()
    if not roots:
        print("session-tui search: no session folders found; give a PATH", file=sys.stderr)
        return 2
    from .paths import say_path_problems

    if say_path_problems("search", args.paths):
        return 2
    redact = None
    if args.redact:
        from ..model.privacy.redact import Redactor

        redact = Redactor().text

    def work(db: Any) -> tuple[Any, int]:
        catch_up(db, roots, notice=say)
        found = run_query(db, query, roots, args.limit, redact=redact, mark_branches=not args.json)
        return found, db.execute("SELECT count(*) FROM files").fetchone()[0]

    def say(message: str) -> None:
        print(f"session-tui search: {inert_line(message)}", file=sys.stderr)

    try:
        found, indexed = using_index(work, notice=say)  # (a damaged index is built again, once)
    except (SessionError, OSError) as exc:
        print(f"session-tui search: {inert_line(exc)}", file=sys.stderr)
        return 2
    if args.json:
        out = {
            "hits": [hit.as_json() for hit in found.hits],
            "total": found.total,
            "took_ms": round(found.took_ms, 3),
            "indexed_files": indexed,
        }
        if not found.exact:  # (counting stopped at its budget: at least that many)
            out["total_exact"] = False
        if args.redact:  # (the snippets are masked already; a file's name may hold a secret too)
            from ..model.privacy.redact import Redactor

            out = Redactor().value(out)
        print(json_escape_invisible(json.dumps(out, ensure_ascii=False)))
    else:
        from ..model.entries.view import iso_time

        for hit in found.hits:
            off = "  (off the active branch)" if hit.active_branch is False else ""
            when = (iso_time(hit.time) or "")[:19].replace("T", " ")
            print(f"{when}  {inert_line(hit.file)}:{hit.line}  {hit.role} {hit.kind}{off}")
            print(f"    {inert_line(hit.snippet)}")
        shown = f"{len(found.hits)} of " if len(found.hits) < found.total else ""
        hits = f"{'at least ' if not found.exact else ''}{found.total} hit{'s' if found.total != 1 else ''}"
        print(f"{shown}{hits} in {indexed} indexed files ({found.took_ms:.0f} ms)")
    return 0 if found.total else 1
