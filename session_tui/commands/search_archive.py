"""`session-tui search QUERY DB_URL[#MACHINE/PATH] ...` (or `search DB_URL
QUERY`): a search of the team archive on its own indexes
(``model/search_index/archive_search.py``), printed as a search of local
files is (``search.print_found``): the same ``--json``, each session named
``DB_URL#MACHINE/PATH`` with its password as ``***``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..model.search_index.query import Query

EXIT_ERROR = 2


def archive_roots(text: str, paths: list[str]) -> tuple[str, list[str] | None]:
    """The query and the archive's addresses searched (None: local files).
    ``search DB_URL QUERY ...``: the addresses first, the words after them
    the query; ``search QUERY DB_URL ...``: the query, then the addresses."""
    from ..model.reading.archived import is_archive_url

    if is_archive_url(text):
        given = [text, *paths]
        roots = [p for p in given if is_archive_url(p)]
        words = [p for p in given if not is_archive_url(p)]
        return " ".join(words), roots
    if any(is_archive_url(p) for p in paths):
        return text, list(paths)
    return text, None


def _say(message: str) -> None:
    from ..model.sanitize import inert_line

    print(f"session-tui search: {inert_line(message)}", file=sys.stderr)


def run_archive_search(args: Any, roots: list[str], query: Query, redact: bool) -> int:
    from ..model.archive.schema import require
    from ..model.errors import SessionError
    from ..model.reading.archived import connect, describe, is_archive_url, shown_url, split_address
    from ..model.search_index.archive_search import Where, indexed_files, run_archive_query, trigram_index
    from .search_output import print_found

    local = [p for p in roots if not is_archive_url(p)]
    if local:
        _say(f"{local[0]}: search the archive or local files, not both at once")
        return EXIT_ERROR
    if query.secret is not None:
        _say("secret: is not searched in the archive (its secrets were masked when pushed)")
        return EXIT_ERROR
    try:
        addresses = [split_address(root) for root in roots]
    except SessionError as exc:
        _say(str(exc))
        return EXIT_ERROR
    urls = {a.url for a in addresses}
    if len(urls) > 1:
        _say("one archive at a time: these addresses name " + ", ".join(sorted(map(shown_url, urls))))
        return EXIT_ERROR
    url = addresses[0].url
    whole = any(a.machine is None for a in addresses)
    where = Where(url, [] if whole else [(a.machine or "", a.path or "/") for a in addresses])
    masked = None
    if redact:
        from ..model.privacy.redact import Redactor

        masked = Redactor().text
    try:
        conn = connect(url, read_only=True, application="session-tui search")
        try:
            require(conn, url)
            if not trigram_index(conn):
                _say(
                    f"{shown_url(url)}: the archive has no trigram index (pg_trgm is not installed): every line "
                    "is read; a DBA runs `CREATE EXTENSION pg_trgm;`, then `session-tui archive init DB_URL`"
                )
            found = run_archive_query(conn, where, query, args.limit, redact=masked, mark_branches=not args.json)
            indexed = indexed_files(conn)
        finally:
            conn.close()
    except SessionError as exc:
        _say(str(exc))
        return EXIT_ERROR
    except Exception as exc:  # (a dropped connection, a denied read: one line)
        import psycopg

        if not isinstance(exc, psycopg.Error):
            raise
        _say(describe(url, exc))
        return EXIT_ERROR
    return print_found(found, indexed, args.json, redact)
