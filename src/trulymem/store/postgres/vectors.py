"""Node vectors for the PostgreSQL store: float32 bytes per node and model, and search.

With the pgvector extension (``pgvector.py``) each vector is also kept as a ``vector``
and searched through an HNSW index per model. Without it — Debian's PostgreSQL packages
have none — search is exact: the scope's vectors are read once into a matrix kept per
process, reread when a per-user epoch (bumped by every vector write) says they changed."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from trulymem.errors import Conflict
from trulymem.model import Scope
from trulymem.store.postgres.connection import PostgresBase
from trulymem.store.postgres.rows import chunks, scope_sql

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from trulymem.embed.base import Matrix



class VectorMixin(PostgresBase):
    """Node vectors; ``PostgresStore.__init__`` sets up their cache (``_vector_state``)."""

    _pgvector = False

    def _vector_state(self) -> None:
        self._vec_lock = threading.Lock()
        self._vec_cache: dict[tuple[Any, ...], tuple[tuple[int, int], list[str], Matrix]] = {}

    def switch_embedding_model(self, name: str) -> None:
        self._q("INSERT INTO settings(key, value) VALUES ('embedder', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (name,))

    def _bump(self, users: Sequence[str] | None) -> None:
        if users is None:
            self._q("UPDATE vector_epochs SET epoch = epoch + 1")
            return
        self._q("INSERT INTO vector_epochs(user_id, epoch) SELECT u, 1 FROM unnest(%s::text[]) AS u "
                "ON CONFLICT (user_id) DO UPDATE SET epoch = vector_epochs.epoch + 1", (sorted(set(users)),))

    def put_vectors(self, items: Sequence[tuple[str, npt.NDArray[np.float32]]], model: str | None = None) -> None:
        import numpy as np

        current = self.embedding_model()
        name = model or current
        if name is None:
            raise Conflict("no embedding model recorded: set one before storing vectors", field="embedder")
        users = self._user_of([nid for nid, _ in items])
        present = [(nid, vec) for nid, vec in items if nid in users]
        if not present:
            return
        ids = [nid for nid, _ in present]
        owners = [users[nid] for nid in ids]
        if name == current:  # the node's text changed: vectors other models made of the old text are stale
            self._q("DELETE FROM node_vectors v USING unnest(%s::text[], %s::text[]) AS d(u, i) "
                    "WHERE v.user_id = d.u AND v.node_id = d.i AND v.model <> %s", (owners, ids, name))
        blobs = [np.asarray(vec, dtype=np.float32).tobytes() for _, vec in present]
        self._q("INSERT INTO node_vectors(user_id, node_id, model, vec) "
                "SELECT u, i, %s, b FROM unnest(%s::text[], %s::text[], %s::bytea[]) AS x(u, i, b) "
                "ON CONFLICT (user_id, node_id, model) DO UPDATE SET vec = excluded.vec", (name, owners, ids, blobs))
        if self._pgvector:
            self._pgvector_put(name, owners, ids, [vec for _, vec in present])  # type: ignore[attr-defined]
        self._bump(owners)

    def delete_all_vectors(self) -> int:
        n = int(self._q("SELECT count(*) FROM node_vectors")[0][0])
        self._q("DELETE FROM node_vectors")
        self._q("DELETE FROM settings WHERE key = 'embedder'")
        self._bump(None)
        return n

    def drop_vectors(self, keep: Sequence[str], limit: int) -> int:
        n = self._n("DELETE FROM node_vectors WHERE (user_id, node_id, model) IN (SELECT user_id, node_id, model "
                    "FROM node_vectors WHERE model <> ALL(%s) LIMIT %s)", (list(keep), limit))
        if n:
            self._bump(None)
        return n

    def cached_vectors(self, scope: Scope, model: str, digests: Sequence[bytes]) -> dict[bytes, bytes]:
        user, part = self._cache_key(scope)
        found: dict[bytes, bytes] = {}
        for chunk in chunks(list(digests)):
            found.update((bytes(d), bytes(v)) for d, v in self._q(
                "SELECT digest, vec FROM text_vectors WHERE user_id = %s AND part = %s AND model = %s "
                "AND digest = ANY(%s)", (user, part, model, list(chunk))))
        return found

    def put_cached_vectors(self, scope: Scope, model: str, items: Sequence[tuple[bytes, bytes]]) -> None:
        user, part = self._cache_key(scope)
        for chunk in chunks(list(items)):
            self._q("INSERT INTO text_vectors(user_id, part, model, digest, vec) "
                    "SELECT %s, %s, %s, d, v FROM unnest(%s::bytea[], %s::bytea[]) AS x(d, v) "
                    "ON CONFLICT (user_id, part, model, digest) DO UPDATE SET vec = excluded.vec",
                    (user, part, model, [d for d, _ in chunk], [v for _, v in chunk]))

    def prune_cached_vectors(self, scope: Scope, model: str, keep: Sequence[bytes]) -> int:
        user, part = self._cache_key(scope)
        return self._n("DELETE FROM text_vectors WHERE user_id = %s AND part = %s AND model = %s "
                       "AND NOT (digest = ANY(%s))", (user, part, model, list(keep)))

    def _epoch(self, scope: Scope) -> tuple[int, int]:
        if scope.user_id is not None:
            rows = self._q("SELECT epoch FROM vector_epochs WHERE user_id = %s", (scope.user_id,))
            return (int(rows[0][0]) if rows else 0, 0)
        total, count = self._q("SELECT coalesce(sum(epoch), 0), count(*) FROM vector_epochs")[0]
        return int(total), int(count)

    def vector_search(self, scope: Scope, query: npt.NDArray[np.float32], limit: int,
                      model: str | None = None) -> list[tuple[str, float]]:
        name = model or self.embedding_model()
        if name is None:
            return []
        if self._pgvector and self._pgvector_ready(name, query.shape[0]):  # type: ignore[attr-defined]
            found: list[tuple[str, float]] = self._pgvector_search(scope, query, limit, name)  # type: ignore[attr-defined]
            return found
        return self._exact_search(scope, query, limit, name)

    def _exact_search(self, scope: Scope, query: npt.NDArray[np.float32], limit: int,
                      name: str) -> list[tuple[str, float]]:
        import numpy as np

        from trulymem.embed.base import cosine_top_k

        where, params = scope_sql(scope, "n")
        key = (where, *params, name)
        epoch = self._epoch(scope)
        with self._vec_lock:
            cached = self._vec_cache.get(key)
        if cached is None or cached[0] != epoch:
            rows = self._q(f"SELECT n.id, v.vec FROM node_vectors v JOIN nodes n ON n.user_id = v.user_id "
                           f"AND n.id = v.node_id WHERE v.model = %s AND {where} ORDER BY n.seq", [name, *params])
            ids = [r[0] for r in rows]
            matrix = (np.frombuffer(b"".join(bytes(r[1]) for r in rows), dtype=np.float32).reshape(len(rows), -1)
                      if rows else np.zeros((0, query.shape[0]), dtype=np.float32))
            cached = (epoch, ids, matrix)
            with self._vec_lock:
                self._vec_cache[key] = cached
        ids, matrix = cached[1], cached[2]
        if matrix.shape[0] and matrix.shape[1] != query.shape[0]:
            raise Conflict(f"stored vectors have {matrix.shape[1]} dimensions, the query {query.shape[0]}",
                           field="embedder")
        return [(ids[i], score) for i, score in cosine_top_k(query, matrix, limit)]
