from __future__ import annotations

import itertools

import pytest

from .postgres import Cluster, cluster, why_not

_numbers = itertools.count()


@pytest.fixture(scope="session")
def pg() -> Cluster:
    """This worker's PostgreSQL cluster (tests/archive/postgres.py): started once, stopped at the end."""
    reason = why_not()
    if reason:
        pytest.skip(reason)
    with cluster() as found:
        yield found


@pytest.fixture
def db_url(pg: Cluster) -> str:
    """A new empty database owned by the archive's role (no superuser), over the unix socket."""
    return pg.fresh_database(f"t{next(_numbers)}")


@pytest.fixture(autouse=True)
def no_pg_environment(monkeypatch, tmp_path) -> None:
    """No PG* variable or ~/.pgpass of the user's is read: each test names its database in its URL."""
    import os

    for name in list(os.environ):
        if name.startswith("PG"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "pgpass"))
