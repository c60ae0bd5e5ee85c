"""The connections every part of the PostgreSQL store shares: a psycopg pool, the
transaction of the calling thread, the query helpers, per-user write locks, and the
small ``users`` and ``settings`` tables.

A write transaction takes a transaction-scoped advisory lock per user the first time it
touches that user (before reading what it will change), so writes of one user are
serialised as SQLite's ``BEGIN IMMEDIATE`` serialises them, while different users write
in parallel. Unique constraints (one node per folded name, one valid fact per triple, one
task chain) hold whatever a caller does. Read transactions see one snapshot.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from trulymem.errors import ConfigError, Conflict, InvalidInput, StoreBusy, StoreError
from trulymem.extras import needs
from trulymem.model import Scope
from trulymem.store.nul import MESSAGE
from trulymem.store.postgres.rows import DIALECT
from trulymem.store.queries import SQLReads

if TYPE_CHECKING:
    import psycopg

_FIRST_ANALYZE = 2_000  # facts a store inserts before it first refreshes planner statistics
# A refresh samples 300 x this many rows: 30 (9,000 rows) gives the write path's lookups table sizes
# and distinct counts at a third of the default's cost (100k facts: ~300 -> ~100 ms a refresh).
# The ANALYZE at close runs at the server's default; autovacuum's next one comes only after ~10%
# more rows change (a refresh resets its counter), so a long-lived process keeps the coarser figures.
_REFRESH_TARGET = 30
_ANALYZE = ("ANALYZE facts(user_id, id, subject_id, object_id, relation_key, kind, invalid_at), "
            "nodes(user_id, id, key, type)")
# A read transaction (one snapshot, as SQLite's WAL readers) whose prepared statements are still
# planned for their own arguments: generic plans of `key = ANY(array)` lookups read whole tables
# (nodes by key: 81 ms -> 4 ms at 50k facts). LOCAL: for the whole session it re-planned every
# foreign-key check of a commit (SPI plans of the RI triggers; 30k facts: server CPU 2.8 -> 5.0 s).
# Both in one round trip (no parameters: the simple query protocol takes several statements).
_BEGIN_READ = b"BEGIN ISOLATION LEVEL REPEATABLE READ; SET LOCAL plan_cache_mode = force_custom_plan"
_TUPLES_OK = 2  # libpq's PGRES_TUPLES_OK: a result with rows (psycopg.pq.ExecStatus.TUPLES_OK)
# Off for a pooler in transaction mode that does not track prepared statements (PgBouncer < 1.21):
# the next transaction may land on a server connection that never saw them.
PREPARE_ENV = "TRULYMEM_PG_PREPARE"
_SWITCH = {"1": True, "on": True, "true": True, "yes": True, "0": False, "off": False, "false": False, "no": False}


def prepare_reads() -> bool:
    """Whether read transactions prepare their statements: ``TRULYMEM_PG_PREPARE``, default on."""
    value = os.environ.get(PREPARE_ENV, "").strip().lower()
    if not value:
        return True
    if value not in _SWITCH:
        raise ConfigError(f"{PREPARE_ENV} must be on or off, not {value!r}", field=PREPARE_ENV)
    return _SWITCH[value]


def _modules() -> tuple[Any, Any]:
    try:
        import psycopg
        import psycopg_pool
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise StoreError(needs("the PostgreSQL backend", "postgres", exc.name)) from exc
    return psycopg, psycopg_pool


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    head, sep, tail = url.partition("@")
    if not sep or ":" not in head.split("//", 1)[-1]:
        return url
    scheme, _, cred = head.partition("//")
    return f"{scheme}//{cred.split(':', 1)[0]}:***@{tail}"


def _configure(conn: psycopg.Connection[Any]) -> None:
    """Lists go as binary arrays: the text form quotes and escapes every element in Python
    (2.4 us per id, 9.6 per timestamp, against 0.6 and 0.5), and a commit of 1,000 triplets
    sends several thousand ids and keys."""
    from psycopg.types.array import ListBinaryDumper

    conn.adapters.register_dumper(list, ListBinaryDumper)


class _Tx(threading.local):
    conn: psycopg.Connection[Any] | None = None
    depth = 0
    write = False
    locked: set[str]
    dirty: set[tuple[str, str]]  # (user_id, node id) to (re)embed, see dirty_nodes
    owners: dict[str, str]  # node id -> user_id of nodes this transaction resolved (they exist)
    fresh: set[str]  # nodes this transaction created that no fact names yet (see active_facts_for)

    def __init__(self) -> None:
        self.locked = set()
        self.dirty = set()
        self.owners = {}
        self.fresh = set()


class PostgresBase(SQLReads):
    """A pool of connections to one database (migrated on open) and the helpers the
    store's parts build on; ``PostgresStore`` composes the parts."""

    dialect = DIALECT

    def __init__(self, url: str, *, pool_size: int = 8, timeout_s: float = 30.0) -> None:
        from trulymem.store.postgres.schema import migrate

        psycopg, psycopg_pool = _modules()
        self._prepare = prepare_reads()  # before any connection: a bad value changes nothing
        self.url = url
        self._errors = psycopg.errors
        self._psycopg = psycopg
        self._pool_timeout: type[Exception] = psycopg_pool.PoolTimeout
        self._pool: Any = psycopg_pool.ConnectionPool(
            url, min_size=1, max_size=pool_size, timeout=timeout_s, open=False, configure=_configure,
            # statements are prepared only where _q asks, in a read transaction (see _BEGIN_READ);
            # never by count (None would refuse even those)
            kwargs={"autocommit": True, "prepare_threshold": 2**31,
                    "options": "-c TimeZone=UTC -c lock_timeout=60000"},
        )
        try:
            self._pool.open(wait=True, timeout=timeout_s)
            with self._pool.connection() as conn:
                migrate(conn)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            self._pool.close()
            raise StoreError(f"cannot open database {redact(url)}: {exc}") from exc
        except BaseException:
            self._pool.close()
            raise
        self._tx = _Tx()
        self._users: set[str] = set()  # users seen committed (see user_exists)
        self._grown = 0  # facts this store inserted
        self._analyzed = 0  # ... when it last refreshed planner statistics
        self._analyze_at = _FIRST_ANALYZE  # ... when it refreshes them next (see _refresh_statistics)

    @contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[None]:
        tx = self._tx
        if tx.depth:
            tx.depth += 1
            try:
                yield
            finally:
                tx.depth -= 1
            return
        try:
            conn = self._pool.getconn()
        except self._pool_timeout as exc:
            raise StoreBusy(f"cannot start a transaction: {exc}; retry shortly") from exc
        except Exception as exc:
            raise StoreError(f"cannot start a transaction: {exc}") from exc
        try:
            conn.execute(b"BEGIN" if write else _BEGIN_READ)
        except Exception as exc:
            self._pool.putconn(conn)  # broken: the pool replaces it
            raise StoreError(f"cannot start a transaction: {exc}") from exc
        tx.conn, tx.depth, tx.write = conn, 1, write
        tx.locked.clear()
        tx.dirty.clear()
        tx.owners.clear()
        tx.fresh.clear()
        try:
            try:
                yield
            except BaseException:
                self._end(conn, "ROLLBACK")
                raise
            try:
                self._end(conn, "COMMIT")
            except self._psycopg.Error as exc:
                raise self._translate(exc, "commit failed: ") from exc
            if self._grown >= self._analyze_at:
                self._refresh_statistics(conn)
        finally:
            tx.conn, tx.depth, tx.write = None, 0, False
            tx.locked.clear()
            tx.dirty.clear()
            tx.owners.clear()
            tx.fresh.clear()
            self._pool.putconn(conn)

    def _end(self, conn: psycopg.Connection[Any], verb: str) -> None:
        if conn.closed:
            return
        if verb == "ROLLBACK":
            try:
                # not execute("ROLLBACK"): rollback() also drops psycopg's prepared statements, which a
                # failure may have broken ("cached plan must not change result type" after an ALTER)
                conn.rollback()
            except self._psycopg.Error:
                pass  # the connection is broken; the pool discards it
        else:
            conn.execute("COMMIT")

    def _refresh_statistics(self, conn: psycopg.Connection[Any]) -> None:
        """ANALYZE the columns the write path's and recall's lookups filter on, each time this
        store has inserted three times as many facts as the table held at the last refresh (the
        table grew fourfold: 2k, 8k, 32k, 128k … facts, ~0.1-0.2 s each; doubling ran twice as
        many, ~6 us of a fact's ~85 us server CPU at 100k). Autovacuum's ANALYZE comes a minute
        or more after a bulk load; until then the planner took a fresh user's thousands of
        facts for a handful and hashed or scanned all of them in every commit (the existing-
        triple lookup 70-110 ms per 1,000 triples at 25k facts, the supersede update a scan)."""
        # Moved on first: a refresh that fails or times out is not retried by every next commit.
        self._analyzed = self._grown
        self._analyze_at = self._grown + max(_FIRST_ANALYZE, 3 * self._grown)
        try:
            conn.execute(f"SET lock_timeout = '2s'; SET default_statistics_target = {_REFRESH_TARGET}")
            try:  # the caller's commit is done: it must not wait long
                conn.execute(_ANALYZE)
                rows = conn.execute("SELECT reltuples FROM pg_class WHERE oid = 'facts'::regclass").fetchone()
            finally:
                conn.execute("RESET lock_timeout; RESET default_statistics_target")  # the pool's own settings
        except self._psycopg.Error:
            return  # an optimisation only: autovacuum takes them within a minute or so
        self._analyze_at = self._grown + max(_FIRST_ANALYZE, 3 * int(rows[0]) if rows else 0)

    def close(self) -> None:
        if self._grown - self._analyzed >= _FIRST_ANALYZE:  # as SQLite's PRAGMA optimize at close
            try:
                with self._pool.connection() as conn:
                    conn.execute("ANALYZE facts, nodes")
            except self._psycopg.Error:
                pass  # an optimisation only: autovacuum takes them within a minute or so
        self._pool.close()

    def _translate(self, exc: Exception, prefix: str = "") -> Exception:
        # a NUL in a parameter: refused by the client (text) or the server (0x00 in UTF8), as SQLite's
        # store refuses it (trulymem.store.nul)
        if isinstance(exc, self._psycopg.DataError) and ("NUL" in str(exc) or "0x00" in str(exc)):
            return InvalidInput(MESSAGE)
        # lock_timeout ran out, or the server rolled the transaction back (deadlock, serialization): retryable
        state = getattr(exc, "sqlstate", None) or ""
        if state == "55P03" or state.startswith("40"):  # 40001 serialization, 40P01 deadlock: nothing was written
            return StoreBusy(f"{prefix}{str(exc).splitlines()[0]}: nothing was changed, retry shortly")
        if isinstance(exc, self._psycopg.IntegrityError):
            return Conflict(f"{prefix}database constraint failed: {str(exc).splitlines()[0]}")
        return StoreError(f"{prefix}{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")

    @contextmanager
    def _cursor(self) -> Iterator[psycopg.Cursor[Any]]:
        conn = self._tx.conn
        try:
            if conn is not None:
                with conn.cursor() as cur:
                    yield cur
            else:
                with self._pool.connection() as own, own.cursor() as cur:
                    yield cur
        except self._psycopg.Error as exc:
            raise self._translate(exc) from exc

    def _q(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        tx = self._tx
        # A read transaction's statements (recall's) are prepared: parsed and analysed once per
        # connection, ~1 of a recall's ~8 ms server CPU. A write transaction's are not: without
        # force_custom_plan (see _BEGIN_READ) the server would try generic plans after five runs.
        prepare = self._prepare and tx.conn is not None and not tx.write
        with self._cursor() as cur:
            cur.execute(sql.encode(), params, prepare=prepare)  # bytes: our SQL has no client-side formatting
            # rows or not from the result's status: ``cur.description`` builds a Column per column
            # (a fifth of a recall's statements' client CPU)
            res = cur.pgresult
            return cur.fetchall() if res is not None and res.status == _TUPLES_OK else []

    def _n(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a write; returns how many rows it touched."""
        with self._cursor() as cur:
            cur.execute(sql.encode(), params)
            return int(cur.rowcount)

    def _many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        with self._cursor() as cur:
            cur.executemany(sql.encode(), rows)

    def _copy(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """``COPY … FROM STDIN`` of ``rows``: the fastest way in for a batch of new rows. Rows
        made lazily are made while the server inserts the ones already sent (32 kB at a time)."""
        with self._cursor() as cur, cur.copy(sql.encode()) as copy:
            for row in rows:
                copy.write_row(row)

    def _reading(self, scope: Scope) -> None:
        self._lock_users([scope.user_id])  # a write transaction reads what it will change under the lock

    def _lock_users(self, user_ids: Sequence[str | None]) -> None:
        """Serialise this write transaction with every other one writing these users."""
        tx = self._tx
        if not tx.write or tx.conn is None:
            return
        todo = sorted({u for u in user_ids if u is not None} - tx.locked)
        for user in todo:
            self._q("SELECT pg_advisory_xact_lock(hashtextextended(%s, 7362))", (user,))
            tx.locked.add(user)

    def _user_of(self, node_ids: Sequence[str]) -> dict[str, str]:
        """node id -> its user, for the existing ones (those resolved in this transaction without a query)."""
        known = self._tx.owners
        out = {i: known[i] for i in node_ids if i in known}
        todo = list(dict.fromkeys(i for i in node_ids if i not in out))
        for start in range(0, len(todo), 1000):
            out.update(self._q("SELECT id, user_id FROM nodes WHERE id = ANY(%s)", (todo[start:start + 1000],)))
        return out

    def ensure_user(self, user_id: str, now: datetime) -> None:
        self._lock_users([user_id])
        self._q("INSERT INTO users(user_id, created_at) VALUES (%s, %s) ON CONFLICT DO NOTHING", (user_id, now))

    def user_exists(self, user_id: str) -> bool:
        """Kept once seen committed: a user row is never deleted, and every tool call asks (a round
        trip of each recall's ~13). A write transaction's own insert may still roll back: not kept."""
        if user_id in self._users:
            return True
        found = bool(self._q("SELECT 1 FROM users WHERE user_id = %s", (user_id,)))
        if found and not self._tx.write:
            if len(self._users) >= 100_000:
                self._users.clear()
            self._users.add(user_id)
        return found

    def settings(self, prefix: str) -> dict[str, str]:
        rows = self._q("SELECT key, value FROM settings WHERE starts_with(key, %s) ORDER BY key", (prefix,))
        return {str(k): str(v) for k, v in rows}

    def put_setting(self, key: str, value: str | None) -> None:
        with self.transaction():
            if value is None:
                self._q("DELETE FROM settings WHERE key = %s", (key,))
            else:
                self._q("INSERT INTO settings(key, value) VALUES (%s, %s) "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))
