"""A node a transaction creates is in no fact until a fact naming it is inserted: both
backends skip the existing-fact probe for such triples (an ingest's links to its new
episodes). The skip must never outlive the transaction that created the node, nor survive
an insert or a rollback."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from trulymem.model import Fact, NodeType, Scope, new_id
from trulymem.store import open_store
from trulymem.store.base import NodeQuery, NodeSpec, Store

NOW = datetime(2025, 6, 1, 9, 0, tzinfo=UTC)
SCOPE = Scope(user_id="u")


def _fact(subject_id: str, object_id: str, relation: str = "likes") -> Fact:
    return Fact(id=new_id(), user_id="u", subject_id=subject_id, relation=relation, object_id=object_id,
                created_at=NOW, updated_at=NOW, valid_at=NOW)


def _resolve(store: Store, *names: str) -> dict[str, str]:
    store.ensure_user("u", NOW)
    return store.resolve_nodes(SCOPE, [NodeSpec(n, n, NodeType.ENTITY) for n in names], NOW)


def test_a_fact_inserted_in_the_same_transaction_is_found(db: str) -> None:
    store = open_store(db)
    with store.transaction():
        ids = _resolve(store, "a", "b")
        triple = (ids["a"], "likes", ids["b"])
        assert store.active_facts_for([triple]) == {}  # new nodes: no fact, no probe needed
        store.insert_facts([_fact(ids["a"], ids["b"])])
        assert triple in store.active_facts_for([triple])
    store.close()


def test_a_node_created_earlier_is_probed_once_its_transaction_ended(db: str) -> None:
    """Another writer may name a node once the transaction that created it commits."""
    first, other = open_store(db), open_store(db)
    with first.transaction():
        ids = _resolve(first, "a", "b")  # nodes only, no fact
    with other.transaction():
        other.insert_facts([_fact(ids["a"], ids["b"])])
    triple = (ids["a"], "likes", ids["b"])
    with first.transaction():
        again = _resolve(first, "a", "b", "c")  # found, not created: probed
        assert again["a"] == ids["a"]
        assert triple in first.active_facts_for([triple])
    assert triple in first.active_facts_for([triple])  # outside any transaction too
    first.close()
    other.close()


def test_a_rolled_back_creation_leaves_nothing_to_skip(db: str) -> None:
    store = open_store(db)
    with pytest.raises(RuntimeError), store.transaction():
        _resolve(store, "a", "b")
        raise RuntimeError("abandon")
    with store.transaction():
        ids = _resolve(store, "a", "b")
        store.insert_facts([_fact(ids["a"], ids["b"])])
    triple = (ids["a"], "likes", ids["b"])
    with store.transaction():
        _resolve(store, "a", "b")
        assert triple in store.active_facts_for([triple])
    store.close()


def test_a_probe_before_any_resolve_sees_another_writers_fact(db: str) -> None:
    """What made a node fresh ends with its transaction: a later probe, in a new transaction
    that resolved nothing or outside any, asks the database (a dream or an import probes first)."""
    first, other = open_store(db), open_store(db)
    with first.transaction():
        ids = _resolve(first, "a", "b")
    with other.transaction():
        other.insert_facts([_fact(ids["a"], ids["b"])])
    triple = (ids["a"], "likes", ids["b"])
    assert triple in first.active_facts_for([triple])
    with first.transaction():
        assert triple in first.active_facts_for([triple])
    first.close()
    other.close()


def test_a_node_created_outside_a_transaction_is_never_fresh(db: str) -> None:
    """Outside a transaction each statement commits at once: another writer may name the node."""
    first, other = open_store(db), open_store(db)
    ids = _resolve(first, "c", "d")
    with other.transaction():
        other.insert_facts([_fact(ids["c"], ids["d"])])
    triple = (ids["c"], "likes", ids["d"])
    assert triple in first.active_facts_for([triple])
    first.close()
    other.close()


def test_an_update_never_lands_on_a_node_that_took_a_deleted_ones_place(db: str) -> None:
    """A node resolved outside a transaction, then deleted by another writer whose new node may
    reuse its row: updating the gone node changes nothing."""
    first, other = open_store(db), open_store(db)
    x = _resolve(first, "x")["x"]
    with other.transaction():
        other.delete_orphan_nodes([x])
        y = _resolve(other, "y")["y"]
    first.update_node(x, NOW, summary="meant for x")
    assert [n.summary for n in other.nodes(NodeQuery(scope=SCOPE, ids=[y]))] == [None]
    assert other.nodes(NodeQuery(scope=SCOPE, ids=[x])) == []
    first.close()
    other.close()
