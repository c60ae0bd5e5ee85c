"""``Store.count_facts`` with a ``limit`` counts at most that many (recall asks ``limit=1``:
"did this person say anything"), on SQLite and PostgreSQL alike."""

from __future__ import annotations

from dataclasses import replace

from tests.conftest import Clock
from tests.helpers import triplet
from trulymem import TrulyMem
from trulymem.model import Scope
from trulymem.store import NodeQuery
from trulymem.store.base import FactQuery


def test_capped_count_is_the_count_up_to_the_limit(mem: TrulyMem, clock: Clock) -> None:
    mem.commit([triplet("user", "likes", f"thing {i}") for i in range(5)] + [triplet("Bob", "knows", "user")])
    scope = Scope(user_id="alice")
    user = next(n.id for n in mem.store.nodes(NodeQuery(scope=scope, keys=["user"])))
    for query in (FactQuery(scope=scope, subject_ids=[user], relation_keys=["likes"]),
                  FactQuery(scope=scope, node_ids=[user]), FactQuery(scope=scope, relation_keys=["knows"]),
                  FactQuery(scope=scope, relation_keys=["hates"]), FactQuery(scope=Scope(user_id="bob"))):
        full = mem.store.count_facts(query)
        for limit in (1, 2, 5, 100):
            capped = replace(query, limit=limit)
            assert mem.store.count_facts(capped) == min(full, limit), (query, limit)
    assert mem.store.count_facts(FactQuery(scope=scope, subject_ids=[user], relation_keys=["likes"])) == 5
