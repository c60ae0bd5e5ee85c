"""pgvector, when the server has it: each stored vector is also a ``vector`` value, searched
through an HNSW index (cosine) per model and dimension, with iterative scans so a user's
filter still fills ``limit``. The float32 bytes stay the source of truth (exports, the
exact fallback), so a database moves between servers with and without the extension."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from trulymem.errors import StoreError
from trulymem.model import Scope
from trulymem.store.postgres.rows import scope_sql
from trulymem.store.postgres.vectors import VectorMixin

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


def _literal(vec: Any) -> str:
    import numpy as np

    return "[" + ",".join(map(repr, np.asarray(vec, dtype=np.float32).tolist())) + "]"


def _index_name(model: str, dim: int) -> str:
    return "node_vectors_hnsw_" + hashlib.sha1(f"{model}\0{dim}".encode()).hexdigest()[:16]


class PgvectorMixin(VectorMixin):
    """``_pgvector_setup`` on open; ``vector_search`` uses the index once it exists."""

    def _pgvector_setup(self) -> None:
        self._hnsw: set[str] = set()
        try:
            with self.transaction():
                if not self._q("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"):
                    return
                self._q("SELECT pg_advisory_xact_lock(7362002)")
                self._q("CREATE EXTENSION IF NOT EXISTS vector")
                self._q("ALTER TABLE node_vectors ADD COLUMN IF NOT EXISTS emb vector")
        except StoreError:
            return  # no right to create the extension: the exact search serves
        self._pgvector = True
        self._hnsw = {r[0] for r in self._q("SELECT indexname FROM pg_indexes WHERE tablename = 'node_vectors' "
                                            "AND indexname LIKE 'node\\_vectors\\_hnsw\\_%%'")}

    def _pgvector_put(self, model: str, owners: Sequence[str], ids: Sequence[str], vecs: Sequence[Any]) -> None:
        self._q("UPDATE node_vectors v SET emb = x.e::vector FROM unnest(%s::text[], %s::text[], %s::text[]) "
                "AS x(u, i, e) WHERE v.user_id = x.u AND v.node_id = x.i AND v.model = %s",
                (list(owners), list(ids), [_literal(v) for v in vecs], model))

    def _pgvector_ready(self, model: str, dim: int) -> bool:
        """Whether the model's HNSW index exists; built (once, by whoever asks first) if not."""
        name = _index_name(model, dim)
        if name in self._hnsw:
            return True
        if self._tx.conn is not None and self._tx.write:
            return False  # never build an index inside someone's write transaction: search exactly now
        model_sql = model.replace("'", "''")
        try:
            self._q(f"CREATE INDEX IF NOT EXISTS {name} ON node_vectors USING hnsw "
                    f"((emb::vector({dim})) vector_cosine_ops) WHERE model = '{model_sql}' AND emb IS NOT NULL "
                    f"AND vector_dims(emb) = {dim}")
        except StoreError:
            return False
        self._hnsw.add(name)
        return True

    def _pgvector_search(self, scope: Scope, query: npt.NDArray[np.float32], limit: int,
                         model: str) -> list[tuple[str, float]]:
        dim = int(query.shape[0])
        where, params = scope_sql(scope, "v")
        where = where.replace("v.agent_id", "n.agent_id").replace("v.app_id", "n.app_id")
        sql = (f"SELECT n.id, 1 - (v.emb::vector({dim}) <=> %s::vector({dim})) FROM node_vectors v "
               f"JOIN nodes n ON n.user_id = v.user_id AND n.id = v.node_id "
               f"WHERE v.model = %s AND v.emb IS NOT NULL AND vector_dims(v.emb) = {dim} AND {where} "
               f"ORDER BY v.emb::vector({dim}) <=> %s::vector({dim}) LIMIT %s")
        q = _literal(query)
        with self.transaction(write=False):
            # relaxed iterative scans keep walking the graph until the filter has filled the limit
            self._q("SET LOCAL hnsw.iterative_scan = relaxed_order")
            self._q(f"SET LOCAL hnsw.ef_search = {max(40, min(1000, 2 * limit))}")
            rows = self._q(sql, (q, model, *params, q, limit))
        found = [(str(r[0]), float(r[1])) for r in rows]
        found.sort(key=lambda x: -x[1])  # relaxed order: exact distances, re-sorted
        return found
