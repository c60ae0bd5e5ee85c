"""Node vectors for the SQLite store: float32 blobs per node and model, cosine search per
scope among the searched model's vectors (``settings('embedder')``): exact below a size
threshold, an HNSW index above it, both kept current from the rows written since (see
``vector_index``)."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trulymem.errors import Conflict, StoreError
from trulymem.model import Scope
from trulymem.store.sqlite.connection import SQLiteBase
from trulymem.store.sqlite.rows import chunks, marks, scope_sql
from trulymem.store.sqlite.vector_index import VectorSet, ann_suits, ann_threshold

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt



class VectorMixin(SQLiteBase):
    """Node vectors; ``SQLiteStore.__init__`` sets up their cache (``_vector_state``)."""

    def _vector_state(self) -> None:
        # (scope SQL, its params, model) -> the vectors read so far and the (data_version,
        # write counter) they were last brought up to date at
        self._vec_sets: dict[tuple[Any, ...], VectorSet] = {}
        self._vec_seen: dict[tuple[Any, ...], tuple[int, int]] = {}
        self._vec_writes = 0

    def _rolled_back(self) -> None:
        # Rows read inside the transaction are gone and their rowids will be used again.
        for vs in self._vec_sets.values():
            vs.stop_building()
        self._vec_sets.clear()
        self._vec_seen.clear()

    def close(self) -> None:
        for vs in self._vec_sets.values():
            vs.stop_building()  # after its current slice: what it merged so far is saved below
        try:
            for key, vs in self._vec_sets.items():
                if self.path != ":memory:":
                    vs.save(self._index_folder(), self._index_stem(key))
        except (OSError, RuntimeError):
            pass  # a missing save costs the next process a rebuild, never a wrong answer
        super().close()

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
        # Every write takes a new, higher rowid (REPLACE drops the node's old row): searchers in
        # any process bring their vectors up to date by reading the rows past the last they saw.
        base = self._q("SELECT coalesce(max(rowid), 0) FROM node_vectors")[0][0]
        self._many(
            "INSERT OR REPLACE INTO node_vectors(rowid, node_rid, model, user_id, vec) VALUES (?, ?, ?, ?, ?)",
            [(base + i + 1, rids[nid], name, users[rids[nid]], np.asarray(vec, dtype=np.float32).tobytes())
             for i, (nid, vec) in enumerate((nid, vec) for nid, vec in items if nid in rids)],
        )
        self._vec_writes += 1

    def delete_all_vectors(self) -> int:
        n = int(self._q("SELECT count(*) FROM node_vectors")[0][0])
        self._q("DELETE FROM node_vectors")
        self._q("DELETE FROM settings WHERE key = 'embedder'")
        self._vec_writes += 1
        for vs in self._vec_sets.values():
            vs.stop_building()
        self._vec_sets.clear()
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
        from trulymem.embed.threads import blas_threads, limited

        name = model or self.embedding_model()
        where, params = scope_sql(scope, "n")
        key = (where, *params, name)
        threads = blas_threads()
        with self._lock, limited(threads):  # the sets change while searching: one thread at a time
            vs = self._current_set(key, scope, name, int(query.shape[0]))
            with vs.lock:  # the background build takes it between its slices
                if limit <= 0 or not len(vs):
                    return []
                if len(vs) >= ann_threshold() and vs.delta and ann_suits(name or ""):
                    if vs.delta >= ann_threshold() or vs.building:  # a first build, or a large load since
                        vs.build_in_background(threads, self._saver(key))  # searched exactly meanwhile
                    else:
                        vs.merge_some(threads)
                for _ in range(3):
                    found = vs.search(query, limit + 8, threads)
                    ids = self._live_ids([rid for rid, _ in found], name, where, params)
                    gone = [rid for rid, _ in found if rid not in ids]
                    for rid in gone:  # deleted, or its vector dropped, since it was read
                        vs.forget(rid)
                    out = [(ids[rid], score) for rid, score in found if rid in ids][:limit]
                    if len(out) >= limit or not gone:
                        return out
        return out

    def build_vector_index(self, scope: Scope, model: str | None = None) -> int:
        """Build (or bring up to date) and save the scope's vector index now, in this thread —
        what the first search past the threshold starts in the background. Returns the vectors
        indexed; 0 when the scope's vectors stay exact (below the threshold, or an exact model)."""
        from trulymem.embed.threads import blas_threads, limited

        name = model or self.embedding_model()
        where, params = scope_sql(scope, "n")
        key = (where, *params, name)
        with self._lock:
            dim = self._q("SELECT length(vec) / 4 FROM node_vectors WHERE model = ? LIMIT 1", (name,))
            if not dim:
                return 0
            vs = self._current_set(key, scope, name, int(dim[0][0]))
            save = self._saver(key)
        if len(vs) < ann_threshold() or not ann_suits(name or ""):
            return 0
        with limited(blas_threads()):
            vs.build_now(blas_threads(), save)
        return len(vs.index) if vs.index is not None else 0

    def _saver(self, key: tuple[Any, ...]) -> Callable[[VectorSet], None] | None:
        """What saves a set of ``key`` from the background build (the stem read now: the build
        thread runs no SQL on the shared connection)."""
        if self.path == ":memory:":
            return None
        folder, stem = self._index_folder(), self._index_stem(key)

        def save(vs: VectorSet) -> None:
            try:
                vs.save(folder, stem)
            except (OSError, RuntimeError):
                pass  # saving only spares the next process a rebuild

        return save

    def _current_set(self, key: tuple[Any, ...], scope: Scope, model: str | None, dim: int) -> VectorSet:
        """The scope's vectors, with the rows written since they were last read added."""
        version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        vs = self._vec_sets.get(key)
        if vs is not None and vs.dim != dim:
            if len(vs):
                raise Conflict(f"stored vectors have {vs.dim} dimensions, the query {dim}", field="embedder")
            vs = None
        if vs is not None and self._vec_seen.get(key) == (version, self._vec_writes):
            return vs
        if vs is None:
            # a saved index only where this model is indexed: an exact model stays exact even if one was saved
            vs = (self._load_set(key, dim) if ann_suits(model or "") else None) or VectorSet(dim)
            self._vec_sets[key] = vs
        with vs.lock:
            self._read_rows(vs, scope, model)
        self._vec_seen[key] = (version, self._vec_writes)
        return vs

    def _read_rows(self, vs: VectorSet, scope: Scope, model: str | None) -> None:
        import numpy as np

        where, params = scope_sql(scope, "n")
        user = ("+v.user_id = ? AND ", [scope.user_id]) if scope.user_id else ("", [])
        # The rowid range leads (a catch-up reads a few rows, not the user's million); CROSS JOIN
        # keeps the planner from starting at the user's nodes.
        sql = (f"SELECT v.rowid, v.node_rid, v.vec FROM node_vectors v CROSS JOIN nodes n ON n.rid = v.node_rid "
               f"WHERE v.rowid > ? AND {user[0]}+v.model = ? AND {where} ORDER BY v.rowid")
        args = [vs.seen, *user[1], model, *params]
        try:
            if not len(vs):  # a first load: size the matrix once (doubling would leave up to 2x slack)
                vs.reserve(int(self._conn.execute(f"SELECT count(*) FROM ({sql})", args).fetchone()[0]))
            cur = self._conn.execute(sql, args)
            while rows := cur.fetchmany(20_000):
                flat = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32)
                if flat.size != len(rows) * vs.dim:
                    raise Conflict(f"stored vectors have {len(rows[0][2]) // 4} dimensions, the query {vs.dim}",
                                   field="embedder")
                vs.add([r[0] for r in rows], [r[1] for r in rows], flat.reshape(len(rows), vs.dim))
        except sqlite3.DatabaseError as exc:
            raise StoreError(str(exc)) from exc

    def _live_ids(self, rids: Sequence[int], model: str | None, where: str, params: Sequence[Any]) -> dict[int, str]:
        """Node ids of ``rids`` still in the scope with a vector of ``model``."""
        if not rids:
            return {}
        return dict(self._q(
            f"SELECT n.rid, n.id FROM node_vectors v JOIN nodes n ON n.rid = v.node_rid "
            f"WHERE v.node_rid IN ({marks(len(rids))}) AND v.model = ? AND {where}", [*rids, model, *params]))

    # --- the index saved beside the database ------------------------------------
    def _index_folder(self) -> Path:
        return Path(self.path + ".vectors")

    def _index_stem(self, key: tuple[Any, ...]) -> str:
        # The first node's id tells this database from another created at the same path.
        first = self._q("SELECT id FROM nodes ORDER BY rid LIMIT 1")
        text = repr((first[0][0] if first else "", *key))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]

    def _load_set(self, key: tuple[Any, ...], dim: int) -> VectorSet | None:
        if self.path == ":memory:" or not self._index_folder().is_dir():
            return None
        newest = int(self._q("SELECT coalesce(max(rowid), 0) FROM node_vectors")[0][0])
        return VectorSet.load(self._index_folder(), self._index_stem(key), dim, newest)
