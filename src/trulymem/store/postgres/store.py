"""``PostgresStore``: the server store, composed of its parts (one module each)."""

from __future__ import annotations

from trulymem.model import Scope
from trulymem.store.base import Stats
from trulymem.store.postgres.journal import JournalMixin
from trulymem.store.postgres.pgvector import PgvectorMixin
from trulymem.store.postgres.rows import scope_sql
from trulymem.store.postgres.search import SearchMixin
from trulymem.store.postgres.transfer import TransferMixin


class PostgresStore(TransferMixin, SearchMixin, PgvectorMixin, JournalMixin):
    """Graph store in one PostgreSQL database: a connection pool, per-user write locks,
    migrations recorded in the database, pgvector when the server has it."""

    def __init__(self, url: str, *, pool_size: int = 8, timeout_s: float = 30.0) -> None:
        super().__init__(url, pool_size=pool_size, timeout_s=timeout_s)
        self._vector_state()
        self._pgvector_setup()

    def stats(self, scope: Scope) -> Stats:
        st = Stats()
        nwhere, nparams = scope_sql(scope, "n")
        for t, c in self._q(f"SELECT type, count(*) FROM nodes n WHERE {nwhere} GROUP BY type", nparams):
            st.nodes_by_type[t] = int(c)
        fwhere, fparams = scope_sql(scope, "f")
        for kind, valid, c in self._q(
            f"SELECT kind, invalid_at IS NULL, count(*) FROM facts f WHERE {fwhere} GROUP BY 1, 2", fparams
        ):
            st.facts_by_kind.setdefault(kind, {"valid": 0, "invalid": 0})["valid" if valid else "invalid"] = int(c)
        if scope.user_id is None:
            st.users = int(self._q("SELECT count(*) FROM users")[0][0])
        else:
            st.users = int(self.user_exists(scope.user_id))
        return st
