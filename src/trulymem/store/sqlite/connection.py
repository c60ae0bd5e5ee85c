"""The connection every part of the SQLite store shares: opening the file (pragmas,
WAL, migrations), transactions, the query helpers, node rowids, and the small
``users`` and ``settings`` tables."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from trulymem.errors import Conflict, StoreBusy, StoreError
from trulymem.store.nul import refuse_nul, refuse_nul_rows
from trulymem.store.queries import SQLReads
from trulymem.store.schema import migrate
from trulymem.store.sqlite.rows import DIALECT, chunks, marks, ts


def _retry_locked(step: Callable[[], object], timeout_ms: int) -> None:
    """Switching to WAL needs a moment alone with a brand-new file; the busy handler
    does not cover it, so retry while another process is creating the same database."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _store_error(exc: sqlite3.DatabaseError, prefix: str = "") -> StoreError:
    """SQLite's error as trulymem's: a lock still held when the busy timeout ran out is
    ``StoreBusy`` (retry shortly; a server answers 503 with Retry-After), not a failure."""
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and ("database is locked" in text or "database is busy" in text):
        return StoreBusy(f"{prefix}{text}: another writer held the database longer than the busy timeout; "
                         "nothing was changed, retry shortly")
    return StoreError(f"{prefix}{text}")


class SQLiteBase(SQLReads):
    """One SQLite connection (WAL, busy timeout, foreign keys, migrations) and the helpers
    the store's parts build on; ``SQLiteStore`` composes the parts."""

    dialect = DIALECT

    def __init__(self, path: str | Path = ":memory:", *, busy_timeout_ms: int = 5000) -> None:
        self.path = str(path) if str(path) == ":memory:" else str(Path(path).expanduser())
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                if not Path(self.path).exists():  # a new database is the owner's alone; SQLite gives -wal/-shm its mode
                    Path(self.path).touch(mode=0o600)
            self._conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000
            )
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            # Random-id indexes touch pages all over the file: a bigger page cache pays for itself.
            self._conn.execute("PRAGMA cache_size = -65536")
            # Checkpoint every ~200 MB of WAL instead of 4 MB: index pages rewritten by consecutive
            # batches are copied back once. At 1M facts one 5,000-fact commit writes ~60 MB of index
            # pages; checkpointing after each cost 11% more CPU than after every fourth (7.4k -> 8.2k
            # facts per CPU s) and more wall. The file is cut back to 64 MB after a checkpoint.
            self._conn.execute("PRAGMA wal_autocheckpoint = 50000")
            self._conn.execute("PRAGMA journal_size_limit = 67108864")
            if self.path != ":memory:":
                _retry_locked(lambda: self._conn.execute("PRAGMA journal_mode = WAL"), busy_timeout_ms)
                self._conn.execute("PRAGMA synchronous = NORMAL")
            migrate(self._conn)
        except (sqlite3.DatabaseError, OSError) as exc:
            raise StoreError(f"cannot open database {self.path!r}: {exc}") from exc
        self._lock = threading.RLock()
        self._depth = 0
        # node id -> rowid for nodes touched in the current transaction (filled only inside one and
        # dropped when it ends: a rolled-back insert or another writer's delete can never leave a
        # stale mapping behind)
        self._tx_rids: dict[str, int] = {}
        # ids of nodes this transaction created that no fact inserted since names (active_facts_for)
        self._tx_fresh: set[str] = set()
        self._tx_dirty: set[int] = set()  # rowids of nodes to (re)embed, see dirty_nodes

    @contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[None]:
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._tx_rids.clear()
            self._tx_fresh.clear()
            self._tx_dirty.clear()
            try:
                self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            except sqlite3.OperationalError as exc:
                raise _store_error(exc, "cannot start a transaction: ") from exc
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                self._tx_rids.clear()
                self._tx_fresh.clear()
                self._tx_dirty.clear()
                self._conn.execute("ROLLBACK")
                self._rolled_back()
                raise
            self._depth = 0
            self._tx_rids.clear()
            self._tx_fresh.clear()
            self._tx_dirty.clear()
            try:
                self._conn.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                self._conn.execute("ROLLBACK")
                self._rolled_back()
                raise _store_error(exc, "commit failed: ") from exc

    def _rolled_back(self) -> None:
        """Called after a rollback: parts that cache rows read inside the transaction drop them."""

    def close(self) -> None:
        try:
            self._conn.execute("PRAGMA optimize")  # refresh planner statistics where they are stale
        except sqlite3.DatabaseError:
            pass  # closing must not fail because the statistics could not be refreshed
        self._conn.close()

    def _q(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        refuse_nul(params)  # as PostgreSQL does: one behaviour on every backend
        try:
            rows: list[tuple[Any, ...]] = self._conn.execute(sql, params).fetchall()
            return rows
        except sqlite3.IntegrityError as exc:
            raise Conflict(f"database constraint failed: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise _store_error(exc) from exc

    def _many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        refuse_nul_rows(rows)
        try:
            self._conn.executemany(sql, rows)
        except sqlite3.IntegrityError as exc:
            raise Conflict(f"database constraint failed: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise _store_error(exc) from exc

    def _rids(self, ids: Sequence[str]) -> dict[str, int]:
        known = self._tx_rids  # empty outside a transaction
        out = {i: known[i] for i in ids if i in known}
        for chunk in chunks(list(set(ids) - out.keys())):
            out.update(self._q(f"SELECT id, rid FROM nodes WHERE id IN ({marks(len(chunk))})", chunk))
        return out

    def ensure_user(self, user_id: str, now: datetime) -> None:
        self._q("INSERT OR IGNORE INTO users(user_id, created_at) VALUES (?, ?)", (user_id, ts(now)))

    def user_exists(self, user_id: str) -> bool:
        return bool(self._q("SELECT 1 FROM users WHERE user_id = ?", (user_id,)))

    def settings(self, prefix: str) -> dict[str, str]:
        rows = self._q("SELECT key, value FROM settings WHERE key >= ? AND key < ? ORDER BY key",
                       (prefix, prefix + "\U0010ffff"))
        return {str(k): str(v) for k, v in rows}

    def put_setting(self, key: str, value: str | None) -> None:
        with self.transaction():
            if value is None:
                self._q("DELETE FROM settings WHERE key = ?", (key,))
            else:
                self._q("INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                        (key, value))
