"""``Store.update_nodes`` (many node updates in a few statements) does what ``update_node``
one node at a time does, on every backend."""

from __future__ import annotations

from typing import Any

from tests.conftest import Clock
from tests.helpers import triplet
from trulymem import TrulyMem
from trulymem.model import Node, Scope
from trulymem.store import NodeQuery
from trulymem.text import phrases, query_terms


def _nodes(mem: TrulyMem, user: str) -> dict[str, Node]:
    return {n.name: n for n in mem.store.nodes(NodeQuery(scope=Scope(user_id=user)))}


def _found(mem: TrulyMem, user: str, query: str) -> set[str]:
    names = {n.id: name for name, n in _nodes(mem, user).items()}
    hits = mem.store.search_nodes(Scope(user_id=user), phrases(query_terms(query)), 50)
    return {names[nid] for nid, score in hits if score > 0}


def _updates(nodes: dict[str, Node]) -> list[tuple[str, str | None, dict[str, Any] | None]]:
    return [(nodes["Kari"].id, "Kari paints watercolour harbours", {"context": "she sails in summer"}),
            (nodes["Oslo"].id, "Oslo, the capital", None),  # metadata kept
            (nodes["Bergen"].id, None, {"rain": "often"})]


def test_update_nodes_is_update_node_many_times(db: str, clock: Clock) -> None:
    mem = TrulyMem(db, user_id="one", embedder="hashing", clock=clock)
    batch = TrulyMem(db, user_id="many", embedder="hashing", clock=clock)
    for m in (mem, batch):
        m.commit([triplet("Kari", "visited", "Oslo"), triplet("Kari", "visited", "Bergen")])
        with m.store.transaction():
            oslo = _nodes(m, m.scope.user_id or "")["Oslo"]
            m.store.update_node(oslo.id, clock(), summary="old", metadata={"founded": 1040})
    now = clock()
    with mem.store.transaction():
        for nid, summary, meta in _updates(_nodes(mem, "one")):
            mem.store.update_node(nid, now, summary=summary, metadata=meta)
    with batch.store.transaction():
        batch.store.update_nodes(_updates(_nodes(batch, "many")), now)
        batch.store.update_nodes([], now)  # nothing to do
    one, many = _nodes(mem, "one"), _nodes(batch, "many")
    assert many["Oslo"].metadata == {"founded": 1040} and many["Oslo"].summary == "Oslo, the capital"
    assert many["Bergen"].summary is None and many["Bergen"].metadata == {"rain": "often"}
    for name in one:
        a, b = one[name], many[name]
        assert (a.summary, a.metadata, a.updated_at, a.type) == (b.summary, b.metadata, b.updated_at, b.type), name
    # the text index follows: the summary and the metadata's context are searchable
    assert _found(batch, "many", "watercolour") == _found(mem, "one", "watercolour") == {"Kari"}
    assert _found(batch, "many", "sails") == {"Kari"}
    assert _found(batch, "many", "capital") == {"Oslo"}
    mem.close()
    batch.close()
