"""``session-tui archive init|push|grant DB_URL``: the team archive on PostgreSQL
(``model/archive``; docs/guide/archive.md).

``init`` creates or migrates the schema; ``push`` sends this machine's
session files, each from where the last push stopped; ``grant`` says which
role pushes as which machine and which reads what (row-level security). One line per file
sent, then a summary; an archive that cannot be reached, or has no schema,
is one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..model.errors import SessionError
from ..model.sanitize import inert_line
from ..model.words import plural

if TYPE_CHECKING:  # pragma: no cover
    from ..model.archive.push import Pushed
    from ..model.settings import Settings
    from .options import Commands

EXIT_OK, EXIT_NOTHING, EXIT_ERROR = 0, 1, 2
URL_HELP = (
    "the database, as a libpq URL (postgresql://USER@HOST:PORT/DB?sslmode=…); its password best in "
    "~/.pgpass or $PGPASSWORD, and the PG* variables fill in what it leaves out"
)


def add_parser(commands: Commands) -> None:
    archive = commands.add_parser(
        "archive",
        help="a team's sessions in one PostgreSQL database: init, push, grant",
        description="Keep the sessions of every machine in one PostgreSQL database. `init` creates (or "
        "migrates) its tables; `push` sends this machine's session files, each from where the last push "
        "stopped. A session in the archive is read back by every reading verb as DB_URL#MACHINE/PATH.",
        epilog="Exit status: 0 done, 2 error.",
    )
    verbs = archive.add_subparsers(dest="archive_verb", metavar="VERB", required=True)
    init = verbs.add_parser(
        "init",
        help="create or migrate the archive's tables (no superuser needed)",
        description="Create the archive's tables in the database, or bring them to this version's schema "
        "(versioned migrations, in one transaction). Needs CREATE on the current schema, not a superuser. "
        "Creates the pg_trgm extension when the role may; else says what a DBA runs.",
        epilog="Exit status: 0 done, 2 error.",
    )
    init.add_argument("url", metavar="DB_URL", help=URL_HELP)
    push = verbs.add_parser(
        "push",
        help="send this machine's session files to the archive (only what is new)",
        description="Send every session file under the paths (default: the known session folders) to the "
        "archive, labelled with the machine, its path, format and size. A grown file sends only its new "
        "lines; a replaced or truncated one is sent again; a push killed mid-way is finished by the next. "
        "Secrets are masked before they leave the machine unless --no-redact.",
        epilog="Exit status: 0 done, 2 error (the archive unreachable or without its tables, a file unreadable).",
    )
    push.add_argument("url", metavar="DB_URL", help=URL_HELP)
    push.add_argument("paths", nargs="*", metavar="PATH", help="session files or folders (default: the known ones)")
    push.add_argument("--machine", metavar="NAME", help="the machine's name in the archive (default: the host name)")
    push.add_argument(
        "--follow",
        action="store_true",
        help="keep running: push each file's new lines as soon as they are written, and new files as they "
        "appear (Ctrl-C or SIGTERM stops, between two transactions)",
    )
    push.add_argument(
        "--no-redact",
        action="store_true",
        help="send the files as they are, secrets included (by default each is replaced by its mark)",
    )

    grant = verbs.add_parser(
        "grant",
        help="let a role push as one machine, or read the archive (or some machines or projects of it)",
        description="Give a PostgreSQL role (made by an admin) the rights it needs, and the row that the "
        "archive's row-level security policies read: a pusher reads and writes one machine's rows only; a "
        "reader reads only, every row or those of a machine and/or of projects matching a glob. Run by the "
        "archive's owner. Without --pusher or --reader: the grants there are.",
        epilog="Exit status: 0 done, 2 error.",
    )
    grant.add_argument("url", metavar="DB_URL", help=URL_HELP)
    who = grant.add_mutually_exclusive_group()
    who.add_argument("--pusher", metavar="ROLE", help="the role may push as --machine (its rows only)")
    who.add_argument("--reader", metavar="ROLE", help="the role may read (no write)")
    grant.add_argument("--machine", metavar="NAME", help="the machine pushed as (pusher), or the only one read")
    grant.add_argument(
        "--project", metavar="GLOB", help="a reader reads only the sessions of these projects (* any characters)"
    )
    grant.add_argument("--revoke", action="store_true", help="take the grant back instead")


def run(args: argparse.Namespace, settings: Settings) -> int:
    from ..model.reading.archived import is_archive_url, shown_url

    if not is_archive_url(args.url) or "#" in args.url:
        print(
            f"session-tui archive: {inert_line(shown_url(args.url))}: not a database URL (postgresql://…)",
            file=sys.stderr,
        )
        return EXIT_ERROR
    try:
        if args.archive_verb == "init":
            return run_init(args.url)
        if args.archive_verb == "grant":
            return run_grant(args)
        if args.follow:
            return run_follow(args.url, args.paths, args.machine, not args.no_redact)
        return run_push(args.url, args.paths, args.machine, not args.no_redact)
    except SessionError as exc:
        print(f"session-tui archive {args.archive_verb}: {inert_line(exc)}", file=sys.stderr)
        return EXIT_ERROR


def run_init(url: str) -> int:
    from ..model.archive.schema import migrate
    from ..model.reading.archived import connect, describe, shown_url

    conn = connect(url, application="session-tui archive init")
    try:
        done = migrate(conn, url)
    except SessionError:
        raise
    except Exception as exc:  # a denied CREATE, a dropped connection
        raise SessionError(describe(url, exc)) from None
    finally:
        conn.close()
    where = shown_url(url)
    if done.before == done.after:
        print(f"{where}: the archive's schema is current (version {done.after})")
    elif done.before == 0:
        print(f"{where}: archive created (schema version {done.after})")
    else:
        print(f"{where}: archive migrated from schema version {done.before} to {done.after}")
    if done.trigram_missing:
        print(f"note: {done.trigram_missing}", file=sys.stderr)
    return EXIT_OK


def _bytes(n: int) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def _said(done: Pushed) -> None:
    path = inert_line(done.path)
    if done.how == "unchanged":
        return
    if done.failed:
        print(f"session-tui archive push: {path}: {done.how.removeprefix('failed: ')}", file=sys.stderr)
        return
    if not done.sent:
        print(f"skipped {path}: {done.how.removeprefix('skipped: ')}")
        return
    what = f"{done.format}, {plural(done.lines, 'line')}, {_bytes(done.bytes)}"
    if done.stored is not None:
        what += f"; archived as {inert_line(done.stored)}"
    if done.how == "new":
        print(f"new {path} ({what})")
    elif done.how == "grown":
        print(f"grown {path} (+{what})")
    else:
        print(f"again {path} ({done.how.removeprefix('sent again: ')}; {what})")


def _local_paths(paths: list[str], follow: bool = False) -> list[str] | None:
    """The paths to push (the known folders when none is given); None: a wrong one, said
    (``follow``: a folder may hold no session yet, as for ``live``)."""
    import os

    from ..model.catalog.known import default_paths
    from ..model.reading.source import is_url
    from .paths import say_path_problems

    remote = [p for p in paths if is_url(p)]
    if remote:
        raise SessionError(f"{remote[0]}: only this machine's files are pushed (run the push where they are)")
    if follow:
        missing = [p for p in paths if not os.path.exists(p)]
        if missing:
            print(f"session-tui archive push: {inert_line(missing[0])}: no such file or directory", file=sys.stderr)
            return None
    checked = [p for p in paths if os.path.isfile(p)] if follow else paths
    if say_path_problems("archive push", checked):  # before connecting: a wrong path is said as in every verb
        return None
    return paths or default_paths()


def run_push(url: str, paths: list[str], machine: str | None, redact: bool) -> int:
    from ..model.archive.push import push

    given = _local_paths(paths)
    if given is None:
        return EXIT_ERROR
    totals = push(url, given, machine, redact, _said)
    for note in totals.notes:
        print(f"session-tui archive push: {note}", file=sys.stderr)
    rate = f" ({_bytes(int(totals.bytes / totals.seconds))}/s)" if totals.seconds > 0 and totals.bytes else ""
    others = [
        f"{totals.unchanged} unchanged" if totals.unchanged else "",
        f"{totals.skipped} skipped" if totals.skipped else "",
        f"{totals.failed} failed" if totals.failed else "",
    ]
    more = ", ".join(filter(None, others))
    print(
        f"pushed {plural(totals.files, 'file')}{f' ({more})' if more else ''} as machine {inert_line(totals.machine)}: "
        f"{plural(totals.lines, 'line')}, {_bytes(totals.bytes)} in {totals.seconds:.1f} s{rate}"
    )
    return EXIT_ERROR if totals.failed or totals.notes else EXIT_OK


def run_grant(args: argparse.Namespace) -> int:
    from ..model.archive.grants import Grant, grant, grants, revoke
    from ..model.reading.archived import connect, describe

    role = args.pusher or args.reader
    if role is None and (args.machine or args.project or args.revoke):
        raise SessionError("say whose grant: --pusher ROLE or --reader ROLE")
    if args.pusher and not args.machine and not args.revoke:
        raise SessionError("a pusher pushes as one machine: add --machine NAME")
    if args.pusher and args.project:
        raise SessionError("--project restricts a reader; a pusher has its machine")
    conn = connect(args.url, application="session-tui archive grant")
    try:
        if role is None:
            found = grants(conn, args.url)
            for one in found:
                print(one.said())
            if not found:
                print("no grants: only the archive's owner reads and writes it")
            return EXIT_OK
        wanted = Grant(role, "pusher" if args.pusher else "reader", args.machine, args.project)
        if args.revoke:
            gone = revoke(conn, args.url, wanted)
            print(f"took back {plural(gone, 'grant')} of role {inert_line(role)!r}")
            return EXIT_OK
        notes = grant(conn, args.url, wanted)
    except SessionError:
        raise
    except Exception as exc:  # a denied GRANT (not the tables' owner), a dropped connection
        raise SessionError(describe(args.url, exc)) from None
    finally:
        conn.close()
    print(wanted.said())
    for note in notes:
        print(f"note: {inert_line(note)}", file=sys.stderr)
    return EXIT_OK


def run_follow(url: str, paths: list[str], machine: str | None, redact: bool) -> int:
    """Push, then push each append as it is written, until Ctrl-C or SIGTERM
    (caught: the push under way finishes its file, then it stops)."""
    import signal
    import threading

    from ..model.archive.follow import follow
    from ..model.archive.push import Pusher
    from ..model.reading.archived import describe

    given = _local_paths(paths, follow=True)
    if given is None:
        return EXIT_ERROR
    stop = threading.Event()

    def stopping(signum: int, frame: object) -> None:
        stop.set()
        signal.signal(signum, signal.SIG_DFL)  # (a second one ends it at once)

    previous = {sig: signal.signal(sig, stopping) for sig in (signal.SIGINT, signal.SIGTERM)}

    def said(done: Pushed) -> None:
        _said(done)
        sys.stdout.flush()  # (a service's log shows each file as it goes)

    def armed() -> None:
        print(f"following {plural(len(given), 'path')}: Ctrl-C stops", flush=True)

    try:
        with Pusher(url, machine, redact) as pusher:
            try:
                totals = follow(pusher, given, stop.is_set, said, armed)
            except Exception as exc:
                import psycopg

                if isinstance(exc, psycopg.Error):
                    raise SessionError(inert_line(describe(url, exc))) from None
                raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print(
        f"stopped following as machine {inert_line(totals.machine)}: pushed {plural(totals.lines, 'line')} "
        f"of {plural(totals.files, 'file')}, {_bytes(totals.bytes)} in {totals.seconds:.1f} s"
    )
    return EXIT_ERROR if totals.failed else EXIT_OK
