"""Creating and migrating the archive's schema (``archive init``), and the
check every push makes first: the schema is there, and of the version this
session-tui writes.

No superuser is needed: the tables are made by the connecting role, in its
current schema (the database's owner, or a role with CREATE on a schema).
``pg_trgm`` (search by pieces of words) is created when the role
may (it is a trusted extension: a database owner may); else ``init`` says
in one line what a DBA runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import SessionError
from ..reading.archived import NO_SCHEMA, shown_url
from .migrations import CHUNK_TRIGRAMS, LATEST, MIGRATIONS

#: one lock for every init of a database (two at once: the second waits, then finds nothing to do)
INIT_LOCK = 0x5E5510_0041
TRIGRAM = "pg_trgm"


@dataclass
class Migrated:
    before: int  # the version found (0: none)
    after: int
    #: what a DBA must run for pg_trgm, when this role could not (None: it is there)
    trigram_missing: str | None = None


def version(conn: Any) -> int | None:
    """The schema's version in the connection's database (None: no archive there)."""
    found = conn.execute("SELECT to_regclass('schema_version') IS NOT NULL").fetchone()[0]
    if not found:
        return None
    value = conn.execute("SELECT max(version) FROM schema_version").fetchone()[0]
    return int(value or 0)


def migrate(conn: Any, url: str) -> Migrated:
    """Apply every migration the database lacks, in one transaction (all of
    them or none), pg_trgm created first where this role may (version 2
    indexes with it); ``url`` only names the database in what is said."""
    trigram_missing = _trigram(conn)
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (INIT_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
            "version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), "
            "applied_by text NOT NULL DEFAULT current_user)"
        )
        before = version(conn) or 0
        if before > LATEST:
            raise SessionError(
                f"{shown_url(url)}: the archive's schema is version {before}, newer than this session-tui "
                f"knows ({LATEST}): upgrade session-tui"
            )
        for number in range(before + 1, LATEST + 1):
            conn.execute(MIGRATIONS[number - 1])
            conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (number,))
        if trigram_missing is None:  # (a DBA created pg_trgm since the migration ran without it)
            conn.execute(CHUNK_TRIGRAMS)
    return Migrated(before, LATEST, trigram_missing)


def _trigram(conn: Any) -> str | None:
    """Create pg_trgm if this role may; else the line saying what a DBA runs."""
    import psycopg

    if conn.execute("SELECT 1 FROM pg_extension WHERE extname = %s", (TRIGRAM,)).fetchone():
        return None
    try:
        with conn.transaction():
            conn.execute(f"CREATE EXTENSION IF NOT EXISTS {TRIGRAM}")
        return None
    except psycopg.Error as exc:
        database = conn.execute("SELECT current_database()").fetchone()[0]
        why = (exc.diag.message_primary or type(exc).__name__).rstrip(".")
        quoted = '"' + database.replace('"', '""') + '"'
        then = "search reads every line till then"
        return f"{why}: a DBA runs `CREATE EXTENSION {TRIGRAM};` in database {quoted} ({then})"


def require(conn: Any, url: str) -> None:
    """Raise SessionError (one line) unless the archive's schema is there and current."""
    found = version(conn)
    if found is None or found == 0:
        raise SessionError(f"{shown_url(url)}: {NO_SCHEMA}")
    if found < LATEST:
        raise SessionError(
            f"{shown_url(url)}: the archive's schema is version {found}, this session-tui writes {LATEST}: "
            "run `session-tui archive init DB_URL`"
        )
    if found > LATEST:
        raise SessionError(
            f"{shown_url(url)}: the archive's schema is version {found}, newer than this session-tui knows "
            f"({LATEST}): upgrade session-tui"
        )
