"""``PostgresStore``: the server store, composed of its parts (one module each)."""

from __future__ import annotations

from trulymem.store.postgres.journal import JournalMixin
from trulymem.store.postgres.pgvector import PgvectorMixin
from trulymem.store.postgres.search import SearchMixin
from trulymem.store.postgres.transfer import TransferMixin


class PostgresStore(TransferMixin, SearchMixin, PgvectorMixin, JournalMixin):
    """Graph store in one PostgreSQL database: a connection pool, per-user write locks,
    migrations recorded in the database, pgvector when the server has it."""

    def __init__(self, url: str, *, pool_size: int = 8, timeout_s: float = 30.0) -> None:
        super().__init__(url, pool_size=pool_size, timeout_s=timeout_s)
        self._vector_state()
        self._pgvector_setup()
