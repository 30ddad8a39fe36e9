"""`session-tui search QUERY [PATH ...]`: every session under the folders,
searched through the index (caught up with the files first: a result is
never older than the files)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ..model.catalog.known import default_paths
from .options import json_option, redact_option

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings
    from .options import Commands


def run_search(args: Any, redact: bool = False) -> int:
    from ..model.errors import SessionError
    from ..model.sanitize import inert_line
    from ..model.search_index.database import using_index
    from ..model.search_index.indexer import catch_up
    from ..model.search_index.query import QueryError, parse
    from ..model.search_index.search import run_query
    from .search_archive import archive_roots, run_archive_search

    text, archive = archive_roots(args.query, args.paths)
    try:
        query = parse(text)
    except QueryError as exc:
        print(f"session-tui search: {inert_line(exc)}", file=sys.stderr)
        return 2
    if archive is not None:
        return run_archive_search(args, archive, query, redact)
    if query.machines:
        print("session-tui search: machine:NAME searches the team archive: give its DB_URL", file=sys.stderr)
        return 2
    roots = args.paths or default_paths()
    if not roots:
        print("session-tui search: no session folders found; give a PATH", file=sys.stderr)
        return 2
    from .paths import listing_roots, say_path_problems

    if say_path_problems("search", args.paths):
        return 2
    masked = None
    if redact:
        from ..model.privacy.redact import Redactor

        masked = Redactor().text

    def work(db: Any) -> tuple[Any, int]:
        catch_up(db, listing_roots(roots), notice=say)
        found = run_query(db, query, roots, args.limit, redact=masked, mark_branches=not args.json)
        return found, db.execute("SELECT count(*) FROM files").fetchone()[0]

    def say(message: str) -> None:
        print(f"session-tui search: {inert_line(message)}", file=sys.stderr)

    try:
        found, indexed = using_index(work, notice=say)  # (a damaged index is built again, once)
    except (SessionError, OSError) as exc:
        print(f"session-tui search: {inert_line(exc)}", file=sys.stderr)
        return 2
    from .search_output import print_found

    return print_found(found, indexed, args.json, redact)


def add_parser(commands: Commands) -> None:
    search = commands.add_parser(
        "search",
        help='search every session under the folders: words, "exact phrases", role:, tool:, error:, path:, …',
        description="Search the messages, thinking, tool calls and results of every session under the folders "
        "(default: the known session folders), through an index in the cache dir that is first brought up to "
        'date with the files. Words match ignoring case; a "quoted phrase" matches exactly. Filters: '
        "role:user|assistant|tool|summary, tool:NAME, error: (failed results), path:SUBSTRING (tool calls "
        "touching it), model:NAME, format:NAME, after:DATE, before:DATE, in:PATH, branch:active. A PATH may "
        "be the team archive, DB_URL (or DB_URL#MACHINE/PATH for its sessions there), searched on its own "
        "indexes (`search DB_URL QUERY` too), with machine:NAME.",
        epilog="Exit status: 0 hits, 1 none, 2 error.",
    )
    search.add_argument("query", metavar="QUERY")
    search.add_argument(
        "paths", nargs="*", default=[], metavar="PATH", help="folders, files or URLs; or DB_URL[#MACHINE/PATH]"
    )
    json_option(search, "{hits, total, took_ms, indexed_files}")
    search.add_argument("--limit", type=int, default=20, help="hits shown (default 20)")
    redact_option(search)


def run(args: argparse.Namespace, settings: Settings) -> int:
    return run_search(args, redact=settings.redact)
