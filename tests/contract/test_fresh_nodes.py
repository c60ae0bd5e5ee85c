"""Triples of nodes a transaction has just created are not looked up on PostgreSQL (no fact can
name such a node yet); once a fact names one, lookups see it again. Same outcomes on both
backends: a repeat in the same transaction reinforces, an opposite preference in the same
batch supersedes."""

from __future__ import annotations

from typing import Any

from trulymem import TrulyMem
from trulymem.model import Scope
from trulymem.store import FactQuery


def test_new_names_committed_twice_in_one_transaction_reinforce(mem: TrulyMem) -> None:
    batch = [{"subject": f"newcomer {i}", "relation": "likes", "object": f"new thing {i}"} for i in range(20)]
    store: Any = mem.store
    with store.transaction():
        first = mem.commit(batch)
        second = mem.commit(batch)
    assert len(first.created) == 20 and len(second.reinforced) == 20 and not second.created
    facts = store.facts(FactQuery(scope=Scope(user_id="alice"), relation_keys=["likes"]))
    assert len(facts) == 20 and all(f.mention_count == 2 for f in facts)


def test_an_opposite_preference_of_new_names_in_one_batch_supersedes(mem: TrulyMem) -> None:
    res = mem.commit([{"subject": "stranger", "relation": "likes", "object": "durian"},
                      {"subject": "stranger", "relation": "dislikes", "object": "durian"}], supersede=True)
    assert len(res.created) == 2 and len(res.superseded) == 1
    current = mem.store.facts(FactQuery(scope=Scope(user_id="alice")))
    assert [f.relation for f in current] == ["dislikes"]
