"""Node vectors for the SQLite store: float32 blobs per node and model, exact cosine
search per user among the searched model's vectors (``settings('embedder')``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from trulymem.embed.names import mismatch
from trulymem.errors import Conflict, InvalidInput
from trulymem.model import Node, Scope
from trulymem.store.sqlite.connection import SQLiteBase
from trulymem.store.sqlite.rows import NODE_COLS, chunks, marks, row_to_node, scope_sql

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from trulymem.embed.base import Matrix

_MODEL = "SELECT value FROM settings WHERE key = 'embedder'"


class VectorMixin(SQLiteBase):
    """Node vectors; ``SQLiteStore.__init__`` sets up their cache (``_vector_state``)."""

    def _vector_state(self) -> None:
        # (scope key, model) -> (data_version, write counter, ids, matrix)
        self._vec_cache: dict[tuple[Any, ...], tuple[int, int, list[str], Matrix]] = {}
        self._vec_writes = 0

    def embedding_model(self) -> str | None:
        rows = self._q(_MODEL)
        return str(rows[0][0]) if rows else None

    def set_embedding_model(self, name: str) -> None:
        current = self.embedding_model()
        if current == name:
            return
        if current is not None and self._q("SELECT 1 FROM node_vectors WHERE model = ? LIMIT 1", (current,)):
            raise Conflict(mismatch(current, name) + " (a database never mixes two models)", field="embedder")
        self.switch_embedding_model(name)

    def switch_embedding_model(self, name: str) -> None:
        self._q("INSERT INTO settings(key, value) VALUES ('embedder', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (name,))
        self._vec_writes += 1

    def put_vectors(self, items: Sequence[tuple[str, npt.NDArray[np.float32]]], model: str | None = None) -> None:
        import numpy as np

        current = self.embedding_model()
        name = model or current
        if name is None:
            raise Conflict("no embedding model recorded: set one before storing vectors", field="embedder")
        rids = self._rids([nid for nid, _ in items])
        rows = self._q(f"SELECT rid, user_id FROM nodes WHERE rid IN ({','.join('?' * len(rids))})",
                       list(rids.values())) if rids else []
        users = dict(rows)
        if name == current:  # the node's text changed: vectors other models made of the old text are stale
            self._many("DELETE FROM node_vectors WHERE node_rid = ? AND model != ?",
                       [(rids[nid], name) for nid, _ in items if nid in rids])
        self._many(
            "INSERT INTO node_vectors(node_rid, model, user_id, vec) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(node_rid, model) DO UPDATE SET vec = excluded.vec",
            [(rids[nid], name, users[rids[nid]], np.asarray(vec, dtype=np.float32).tobytes())
             for nid, vec in items if nid in rids],
        )
        self._vec_writes += 1

    def delete_all_vectors(self) -> int:
        n = int(self._q("SELECT count(*) FROM node_vectors")[0][0])
        self._q("DELETE FROM node_vectors")
        self._q("DELETE FROM settings WHERE key = 'embedder'")
        self._vec_writes += 1
        return n

    def drop_vectors(self, keep: Sequence[str], limit: int) -> int:
        stale = [m for (m,) in self._q("SELECT DISTINCT model FROM node_vectors") if m not in keep]
        n = 0
        for model in stale:
            if n >= limit:
                break
            cur = self._conn.execute("DELETE FROM node_vectors WHERE rowid IN "
                                     "(SELECT rowid FROM node_vectors WHERE model = ? LIMIT ?)", (model, limit - n))
            n += cur.rowcount
        if n:
            self._vec_writes += 1
        return n

    def _to_embed_sql(self, model: str, after: str | None, missing_only: bool) -> tuple[str, list[Any]]:
        where = ["n.rid > ?"]
        params: list[Any] = [int(after) if after else 0]
        if missing_only:
            where.append("NOT EXISTS (SELECT 1 FROM node_vectors v WHERE v.node_rid = n.rid AND v.model = ?)")
            params.append(model)
        return " AND ".join(where), params

    def nodes_to_embed(self, model: str, limit: int, *, after: str | None = None,
                       missing_only: bool = True) -> tuple[list[Node], str | None]:
        where, params = self._to_embed_sql(model, after, missing_only)
        rows = self._q(f"SELECT rid, {NODE_COLS} FROM nodes n "
                       f"WHERE {where} ORDER BY n.rid LIMIT ?", [*params, limit])
        return [row_to_node(r[1:]) for r in rows], (str(rows[-1][0]) if rows else None)

    def count_nodes_to_embed(self, model: str, *, after: str | None = None, missing_only: bool = True) -> int:
        where, params = self._to_embed_sql(model, after, missing_only)
        return int(self._q(f"SELECT count(*) FROM nodes n WHERE {where}", params)[0][0])

    @staticmethod
    def _cache_key(scope: Scope) -> tuple[str, str]:
        if scope.user_id is None:
            raise InvalidInput("the vector cache is kept per user: name the user", field="user_id")
        return scope.user_id, f"{scope.agent_id or '*'}/{scope.app_id or '*'}"

    def cached_vectors(self, scope: Scope, model: str, digests: Sequence[bytes]) -> dict[bytes, bytes]:
        user, part = self._cache_key(scope)
        found: dict[bytes, bytes] = {}
        if len(digests) > 2000:  # most of the scope: one scan beats thousands of key lookups
            want = set(digests)
            return {d: v for d, v in self._q("SELECT digest, vec FROM text_vectors WHERE user_id = ? AND part = ? "
                                              "AND model = ?", (user, part, model)) if d in want}
        for chunk in chunks(list(digests)):
            found.update(self._q(f"SELECT digest, vec FROM text_vectors WHERE user_id = ? AND part = ? AND model = ? "
                                 f"AND digest IN ({marks(len(chunk))})", [user, part, model, *chunk]))
        return found

    def put_cached_vectors(self, scope: Scope, model: str, items: Sequence[tuple[bytes, bytes]]) -> None:
        user, part = self._cache_key(scope)
        self._many("INSERT INTO text_vectors(user_id, part, model, digest, vec) VALUES (?, ?, ?, ?, ?) "
                   "ON CONFLICT(user_id, part, model, digest) DO UPDATE SET vec = excluded.vec",
                   [(user, part, model, d, v) for d, v in items])

    def prune_cached_vectors(self, scope: Scope, model: str, keep: Sequence[bytes]) -> int:
        user, part = self._cache_key(scope)
        keep_set = set(keep)
        stale = [(user, part, model, d) for (d,) in
                 self._q("SELECT digest FROM text_vectors WHERE user_id = ? AND part = ? AND model = ?",
                         (user, part, model)) if d not in keep_set]
        self._many("DELETE FROM text_vectors WHERE user_id = ? AND part = ? AND model = ? AND digest = ?", stale)
        return len(stale)

    def vector_search(self, scope: Scope, query: npt.NDArray[np.float32], limit: int,
                      model: str | None = None) -> list[tuple[str, float]]:
        import numpy as np

        from trulymem.embed.base import cosine_top_k

        name = model or self.embedding_model()
        where, params = scope_sql(scope, "n")
        key = (where, *params, name)
        version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        cached = self._vec_cache.get(key)
        if cached is None or cached[:2] != (version, self._vec_writes):
            user = ("v.user_id = ? AND ", [scope.user_id]) if scope.user_id else ("", [])
            rows = self._q(f"SELECT n.id, v.vec FROM node_vectors v JOIN nodes n ON n.rid = v.node_rid "
                           f"WHERE {user[0]}v.model = ? AND {where}", [*user[1], name, *params])
            ids = [r[0] for r in rows]
            matrix = (np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
                      if rows else np.zeros((0, query.shape[0]), dtype=np.float32))
            cached = (version, self._vec_writes, ids, matrix)
            self._vec_cache[key] = cached
        ids, matrix = cached[2], cached[3]
        if matrix.shape[0] and matrix.shape[1] != query.shape[0]:
            raise Conflict(f"stored vectors have {matrix.shape[1]} dimensions, the query {query.shape[0]}",
                           field="embedder")
        return [(ids[i], score) for i, score in cosine_top_k(query, matrix, limit)]
