"""A private PostgreSQL cluster for the archive's tests: its own data
directory and unix socket in a temp dir, a free port on 127.0.0.1, started
by the suite and stopped at its end (one per xdist worker: the fixture is
session-scoped, and each worker is a session).

The server binaries are Debian's (``/usr/lib/postgresql/N/bin``, the
``postgresql`` package) or any ``initdb`` on PATH. PostgreSQL refuses to run
as root: as root, the cluster is the ``postgres`` user's (``runuser``).
A guard process stops the server if the test process dies without its
teardown (a SIGKILLed worker leaves nothing running).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote

#: the roles every cluster has: the archive's owner (no superuser: it owns the database) and a role
#: that may only use a schema another role owns (it cannot create an extension)
OWNER, LIMITED, DATABASE, PASSWORD = "archivist", "limited", "archive", "s3cret-pw"


def server_bin() -> str | None:
    """The folder of initdb, pg_ctl and postgres (the newest version installed), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[-3]))
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    return os.path.dirname(initdb) if initdb else None


def why_not() -> str | None:
    """Why no cluster can be started here (one reason), or None."""
    if server_bin() is None:
        return "PostgreSQL server binaries not found (apt-get install postgresql)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to run the server as"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    root: str  # the temp dir: data/ and the socket
    port: int
    bin: str
    user: str | None  # the user the server runs as (None: this process's)

    @property
    def socket_dir(self) -> str:
        return self.root

    def url(self, user: str = OWNER, database: str = DATABASE) -> str:
        """A libpq URL over the unix socket (trust: no password needed)."""
        return f"postgresql://{quote(user)}@/{quote(database)}?host={quote(self.root, safe='')}&port={self.port}"

    def tcp_url(self, user: str = OWNER, database: str = DATABASE, password: str | None = PASSWORD) -> str:
        secret = f":{quote(password, safe='')}" if password is not None else ""
        return f"postgresql://{quote(user)}{secret}@127.0.0.1:{self.port}/{quote(database)}"

    def psql(self, sql: str, database: str = "postgres", user: str = "postgres") -> str:
        """Run ``sql`` as ``user`` through psql (ON_ERROR_STOP); its output."""
        out = subprocess.run(
            [os.path.join(self.bin, "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
            + ["-h", self.root, "-p", str(self.port), "-U", user, "-d", database, "-c", sql],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if out.returncode:
            raise RuntimeError(out.stderr)
        return out.stdout

    def fresh_database(self, name: str, owner: str = OWNER) -> str:
        """A new empty database owned by ``owner``; its URL."""
        self.psql(f'CREATE DATABASE "{name}" OWNER "{owner}"')
        return self.url(owner, name)


def _as_server_user(user: str | None, argv: list[str]) -> list[str]:
    return ["runuser", "-u", user, "--", *argv] if user else argv


def _run(argv: list[str], **kwargs) -> None:
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, **kwargs)
    if out.returncode:
        raise RuntimeError(f"{' '.join(argv)}: {out.stderr or out.stdout}")


GUARD = """
import os, subprocess, sys, time
parent, argv = int(sys.argv[1]), sys.argv[2:]
while True:
    try:
        os.kill(parent, 0)
    except ProcessLookupError:
        break
    if not os.path.exists(argv[argv.index('-D') + 1]):
        raise SystemExit
    time.sleep(1)
subprocess.run(argv, capture_output=True)
"""


@contextlib.contextmanager
def cluster() -> Iterator[Cluster]:
    """A started cluster with the archive's roles and database; stopped and removed afterwards."""
    bin_dir = server_bin()
    assert bin_dir is not None
    user = "postgres" if os.geteuid() == 0 else None
    root = tempfile.mkdtemp(prefix="stui-pg-")
    guard = None
    try:
        if user:
            entry = pwd.getpwnam(user)
            os.chown(root, entry.pw_uid, entry.pw_gid)
        os.chmod(root, 0o700)
        data = os.path.join(root, "data")
        pwfile = os.path.join(root, "pw")
        with open(pwfile, "w") as f:
            f.write("postgres-pw\n")
        if user:
            os.chown(pwfile, entry.pw_uid, entry.pw_gid)
        _run(
            _as_server_user(
                user,
                [os.path.join(bin_dir, "initdb"), "-D", data, "-U", "postgres", "--auth-local=trust"]
                + ["--auth-host=scram-sha-256", f"--pwfile={pwfile}", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"],
            ),
            cwd="/",
        )
        pg_ctl = os.path.join(bin_dir, "pg_ctl")
        stop = _as_server_user(user, [pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"])
        options = (
            f"-c listen_addresses=127.0.0.1 -c unix_socket_directories={root} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c shared_buffers=32MB -c max_connections=40"
        )
        for attempt in range(5):
            port = free_port()
            log = os.path.join(root, "server.log")
            started = subprocess.run(
                _as_server_user(user, [pg_ctl, "-D", data, "-l", log, "-w", "-t", "60", "-o", f"-p {port} {options}"])
                + ["start"],
                capture_output=True,
                text=True,
                cwd="/",
                timeout=120,
            )
            if started.returncode == 0:
                break
            if attempt == 4:
                raise RuntimeError(f"the test cluster did not start: {open(log).read()[-2000:]}")
            time.sleep(0.2)  # (the port was taken in the meantime: another one)
        guard = subprocess.Popen(
            [sys.executable, "-c", GUARD, str(os.getpid()), *stop],
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        found = Cluster(root, port, bin_dir, user)
        found.psql(f"CREATE ROLE {OWNER} LOGIN PASSWORD '{PASSWORD}'")
        found.psql(f"CREATE ROLE {LIMITED} LOGIN PASSWORD '{PASSWORD}'")
        found.psql(f"CREATE DATABASE {DATABASE} OWNER {OWNER}")
        try:
            yield found
        finally:
            subprocess.run(stop, capture_output=True, timeout=120, cwd="/")
    finally:
        if guard is not None:
            guard.kill()
            guard.wait()
        shutil.rmtree(root, ignore_errors=True)
