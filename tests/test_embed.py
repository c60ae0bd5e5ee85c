from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.helpers import snapshot, triplet
from trulymem import ConfigError, TrulyMem
from trulymem.embed import HashingEmbedder, get_embedder


def test_hashing_embedder_is_normalised_and_lexically_sensible() -> None:
    e = HashingEmbedder()
    a, b, c, d = e.embed_passages(["running in the park", "a runner in parks", "猫娘喜欢鱼", ""])
    assert e.dim == 512 and a.dtype == np.float32
    assert abs(float(np.linalg.norm(a)) - 1) < 1e-5 and float(np.linalg.norm(d)) == 0
    assert float(a @ b) > float(a @ c)
    assert float(e.embed_query("猫娘") @ c) > 0.3
    assert e.embed_batch([]).shape == (0, 512)


@pytest.mark.parametrize(("name", "needle"), [("nope", "unknown embedder"), ("st:/no/such/model", "pip install"),
                                              ("model2vec:/no/such", "pip install")])
def test_bad_embedder_names_are_clear(name: str, needle: str) -> None:
    pytest.importorskip("numpy")
    try:
        import sentence_transformers  # noqa: F401
        if name.startswith("st:"):
            pytest.skip("sentence-transformers is installed here")
    except ImportError:
        pass
    try:
        import model2vec  # noqa: F401
        if name.startswith("model2vec:"):
            pytest.skip("model2vec is installed here")
    except ImportError:
        pass
    with pytest.raises(ConfigError, match=needle):
        get_embedder(name)


def test_writes_embed_new_nodes_in_the_same_transaction(db_path: Path) -> None:
    mem = TrulyMem(db_path, user_id="u", embedder="hashing")
    mem.commit([triplet("user", "enjoys", "long distance running")])
    assert mem.store.embedding_model() == "hashing-ngram-512"
    assert mem.store.count_nodes_without_vectors() == 0
    hits = mem.store.vector_search(mem.scope, mem.embedder.embed_query("a runner"), 3)  # type: ignore[union-attr]
    assert hits[0][0] in {n.id for n in mem.recall("running", depth=0).nodes}
    before = snapshot(mem)
    assert not mem.call("memory_commit", {"triplets": [triplet("a", "r", "b"), {"subject": "x"}]}).ok
    assert snapshot(mem) == before and mem.store.count_nodes_without_vectors() == 0


def test_vectors_find_what_words_alone_miss(db_path: Path) -> None:
    mem = TrulyMem(db_path, user_id="u", embedder="hashing")
    mem.commit([triplet("user", "practises", "marathon running"), triplet("user", "owns", "a red bicycle")])
    res = mem.recall("runners", depth=0)  # no full-text hit: 'runners' is not a word in the memory
    assert "marathon running" in {n.name for n in res.nodes}
    assert any("vector" in n.why[0] for n in res.nodes if n.name == "marathon running")


def test_a_database_never_mixes_two_models(db_path: Path) -> None:
    TrulyMem(db_path, user_id="u", embedder="hashing").commit([triplet("a", "r", "b"), triplet("b", "r", "c")])

    class Other(HashingEmbedder):
        def __init__(self) -> None:
            super().__init__(dim=64)
            self.name = "other-64"

    with pytest.raises(ConfigError, match="reindex"):
        TrulyMem(db_path, user_id="u", embedder=Other())
    mem = TrulyMem(TrulyMem(db_path, user_id="u").store, user_id="u")
    mem.embedder = Other()
    calls: list[tuple[int, int]] = []
    assert mem.reindex(batch=2, progress=lambda done, total: calls.append((done, total))) == 3
    assert calls == [(2, 3), (3, 3)] and mem.store.embedding_model() == "other-64"
    assert TrulyMem(db_path, user_id="u", embedder=Other()).recall("a", depth=0).nodes
