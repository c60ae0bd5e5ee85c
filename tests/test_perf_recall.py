"""Recall batches its neighbour queries: one statement per direction and hop, whatever
the number of nodes it expands, with the same facts as one query per node."""

from __future__ import annotations

from pathlib import Path

from trulymem import TrulyMem
from trulymem.model import Scope
from trulymem.store.base import CURRENT
from trulymem.store.sqlite import SQLiteStore


def graph(path: Path) -> TrulyMem:
    mem = TrulyMem(path, user_id="u")
    mem.commit([{"subject": f"person {i}", "relation": "knows", "object": f"person {(i * 7) % 60}"} for i in range(60)]
               + [{"subject": "user", "relation": "likes", "object": f"person {i}"} for i in range(0, 60, 3)]
               + [{"subject": f"person {i}", "relation": "lives_in", "object": f"city {i % 5}"} for i in range(60)])
    return mem


def test_neighbour_queries_are_one_statement_per_direction_and_hop(db_path: Path) -> None:
    mem = graph(db_path)
    seen: list[str] = []
    mem.store._conn.set_trace_callback(seen.append)  # type: ignore[attr-defined]
    res = mem.recall("person 3 city 2", depth=2)
    mem.store._conn.set_trace_callback(None)  # type: ignore[attr-defined]
    assert res.facts
    batched = [s for s in seen if "json_each(?) j JOIN facts" in s or "FROM json_each('[" in s]
    assert 0 < len(batched) <= 2 * 3
    mem.close()


def test_batched_neighbours_are_the_per_node_lookups(db_path: Path) -> None:
    mem = graph(db_path)
    store = mem.store
    assert isinstance(store, SQLiteStore)
    scope = Scope(user_id="u")
    ids = [n.id for n in mem.recall("person", depth=0).nodes][:12]
    together = store.neighbors(scope, ids, per_node=3, when=CURRENT)
    one_by_one: dict[str, object] = {}
    for column in ("subject", "object"):  # the old order: per direction, per node
        for nid in ids:
            for f in store.neighbors(scope, [nid], per_node=3, when=CURRENT):
                if getattr(f, f"{column}_id") == nid:
                    one_by_one.setdefault(f.id, f)
    assert {f.id for f in together} == set(one_by_one)
    mem.close()
