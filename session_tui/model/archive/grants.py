"""Who sees what in the archive (``archive grant``): PostgreSQL roles, the
privileges they hold on the archive's tables, and a row in
``archive_grants`` that the row-level security policies of migration 3
read (``migrations.py``).

- A **pusher** role may push as one machine (or several, one grant each):
  it reads and writes that machine's rows only; another machine's rows it
  neither sees nor changes.
- A **reader** role may only read: every machine's rows, or those of one
  machine (``--machine``) and/or the files whose project matches a glob
  (``--project``); several grants of a role add up.

The roles themselves are made by an admin (``CREATE ROLE … LOGIN``: it needs
CREATEROLE, which the archive's owner need not have); the grant is run by
the tables' owner (only an owner may GRANT on its tables). The owner is not
subject to the policies: it is the archive's administrator (and what a
single-role set-up pushes as).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import SessionError
from ..sanitize import inert_line
from .schema import require

#: what every granted role reads (the policies narrow the rows), and what a pusher writes besides
READ = ("schema_version", "archive_grants", "machines", "files", "lines", "chunks", "file_usage")
WRITE = {
    "machines": "INSERT, UPDATE",
    "files": "INSERT, UPDATE, DELETE",
    "lines": "INSERT, UPDATE, DELETE",
    "chunks": "INSERT, UPDATE, DELETE",
    "file_usage": "INSERT, UPDATE, DELETE",
}
KINDS = ("pusher", "reader")


@dataclass
class Grant:
    role: str
    kind: str  # "pusher" or "reader"
    machine: str | None = None
    project: str | None = None  # a glob: * any characters (/ too), ? one

    def said(self) -> str:
        what = "push as" if self.kind == "pusher" else "read"
        where = [f"machine {inert_line(self.machine)!r}"] if self.machine else []
        if self.project:
            where.append(f"projects {inert_line(self.project)!r}")
        scope = " and ".join(where) if where else "every machine and project"
        return f"role {inert_line(self.role)!r} may {what} {scope}"


def like_of(glob: str) -> str:
    """The ``LIKE`` pattern of a project glob (``*``, ``?``; ``%``, ``_`` and ``\\`` taken as themselves)."""
    if "[" in glob:
        raise SessionError(f"--project {inert_line(glob)!r}: a glob here has * and ? only")
    out = []
    for char in glob:
        if char == "*":
            out.append("%")
        elif char == "?":
            out.append("_")
        elif char in "%_\\":
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out)


def _role(conn: Any, name: str) -> tuple[int, bool]:
    """The role's oid and whether the policies pass it by (a superuser, BYPASSRLS, the tables' owner)."""
    found = conn.execute(
        "SELECT r.oid, r.rolsuper OR r.rolbypassrls OR pg_has_role(r.oid, c.relowner, 'USAGE') "
        "FROM pg_roles r, pg_class c WHERE r.rolname = %s AND c.oid = to_regclass('files')",
        (name,),
    ).fetchone()
    if found is None:
        raise SessionError(
            f"no role {inert_line(name)!r} in this server: an admin creates it first "
            "(CREATE ROLE … LOGIN PASSWORD …; see docs/guide/archive.md, 'Who sees what')"
        )
    return int(found[0]), bool(found[1])


def grant(conn: Any, url: str, wanted: Grant) -> list[str]:
    """Give ``wanted``: the privileges on the tables and the row the policies
    read, in one transaction. The notes to say (what an admin must still run)."""
    from psycopg import sql

    require(conn, url)
    if wanted.kind == "pusher" and (wanted.machine is None or wanted.project is not None):
        raise SessionError("a pusher is given one --machine (and no --project)")
    like = like_of(wanted.project) if wanted.project is not None else None
    notes: list[str] = []
    role = sql.Identifier(wanted.role)
    with conn.transaction():
        oid, bypasses = _role(conn, wanted.role)
        if bypasses:
            notes.append(
                f"role {inert_line(wanted.role)!r} owns the archive or bypasses row-level security: it sees "
                "and writes every row whatever it is granted"
            )
        for table in READ:
            conn.execute(sql.SQL("GRANT SELECT ON {} TO {}").format(sql.Identifier(table), role))
        if wanted.kind == "pusher":
            for table, rights in WRITE.items():
                conn.execute(sql.SQL("GRANT " + rights + " ON {} TO {}").format(sql.Identifier(table), role))
        conn.execute(
            "INSERT INTO archive_grants (role, role_name, kind, machine, project, project_like) "
            "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (oid, wanted.role, wanted.kind, wanted.machine, wanted.project, like),
        )
        notes += _may_use(conn, wanted.role, wanted.kind == "pusher")
    return notes


def _may_use(conn: Any, role: str, pusher: bool) -> list[str]:
    """USAGE on the tables' schema (and TEMP on the database, where a pusher
    stages its lines): granted where this role may, else what an admin runs."""
    from psycopg import sql

    notes = []
    schema, database = conn.execute("SELECT current_schema(), current_database()").fetchone()
    needs = [("has_schema_privilege(%s, %s, 'USAGE')", schema, "USAGE ON SCHEMA")]
    if pusher:
        needs.append(("has_database_privilege(%s, %s, 'TEMP')", database, "TEMP ON DATABASE"))
    for check, target, what in needs:
        if conn.execute("SELECT " + check, (role, target)).fetchone()[0]:
            continue
        statement = sql.SQL("GRANT " + what + " {} TO {}").format(sql.Identifier(target), sql.Identifier(role))
        try:
            with conn.transaction():
                conn.execute(statement)
        except Exception:  # (not this role's to give)
            notes.append(f"an admin runs: {statement.as_string(conn)};")
    return notes


def revoke(conn: Any, url: str, wanted: Grant) -> int:
    """Take back the grants of ``wanted.role`` of its kind (only those of
    its machine and project, when given); with none left, its privileges
    too. How many grants were taken back."""
    from psycopg import sql

    require(conn, url)
    role = sql.Identifier(wanted.role)
    with conn.transaction():
        oid, _ = _role(conn, wanted.role)
        gone = conn.execute(
            "DELETE FROM archive_grants WHERE role = %s AND kind = %s "
            "AND (%s::text IS NULL OR machine = %s) AND (%s::text IS NULL OR project = %s)",
            (oid, wanted.kind, wanted.machine, wanted.machine, wanted.project, wanted.project),
        ).rowcount
        left = {kind for (kind,) in conn.execute("SELECT kind FROM archive_grants WHERE role = %s", (oid,))}
        if "pusher" not in left:
            for table, rights in WRITE.items():
                conn.execute(sql.SQL("REVOKE " + rights + " ON {} FROM {}").format(sql.Identifier(table), role))
        if not left:
            for table in READ:
                conn.execute(sql.SQL("REVOKE SELECT ON {} FROM {}").format(sql.Identifier(table), role))
    return int(gone)


def grants(conn: Any, url: str) -> list[Grant]:
    """Every grant (as the tables' owner sees them; another role sees its own)."""
    require(conn, url)
    rows = conn.execute(
        "SELECT coalesce(r.rolname, g.role_name), g.kind, g.machine, g.project FROM archive_grants g "
        "LEFT JOIN pg_roles r ON r.oid = g.role ORDER BY 1, 2, 3 NULLS FIRST, 4 NULLS FIRST"
    ).fetchall()
    return [Grant(*row) for row in rows]
