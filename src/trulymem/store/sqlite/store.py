"""``SQLiteStore``: the embedded default store, composed of its parts (one module each)."""

from __future__ import annotations

from pathlib import Path

from trulymem.model import Scope
from trulymem.store.base import Stats
from trulymem.store.sqlite.facts import FactMixin
from trulymem.store.sqlite.journal import JournalMixin
from trulymem.store.sqlite.nodes import NodeMixin
from trulymem.store.sqlite.rows import scope_sql
from trulymem.store.sqlite.search import SearchMixin
from trulymem.store.sqlite.transfer import TransferMixin
from trulymem.store.sqlite.vectors import VectorMixin


class SQLiteStore(TransferMixin, NodeMixin, FactMixin, SearchMixin, VectorMixin, JournalMixin):
    """Graph store in one SQLite file: WAL, busy timeout, foreign keys, migrations."""

    def __init__(self, path: str | Path = ":memory:", *, busy_timeout_ms: int = 5000) -> None:
        super().__init__(path, busy_timeout_ms=busy_timeout_ms)
        self._vector_state()

    def stats(self, scope: Scope) -> Stats:
        st = Stats()
        nwhere, nparams = scope_sql(scope, "n")
        for t, c in self._q(f"SELECT type, count(*) FROM nodes n WHERE {nwhere} GROUP BY type", nparams):
            st.nodes_by_type[t] = c
        fwhere, fparams = scope_sql(scope, "f")
        for kind, valid, c in self._q(
            f"SELECT kind, invalid_at IS NULL, count(*) FROM facts f WHERE {fwhere} GROUP BY 1, 2", fparams
        ):
            st.facts_by_kind.setdefault(kind, {"valid": 0, "invalid": 0})["valid" if valid else "invalid"] = c
        if scope.user_id is None:
            st.users = int(self._q("SELECT count(*) FROM users")[0][0])
        else:
            st.users = int(self.user_exists(scope.user_id))
        return st
