"""PostgreSQL's plans for the write path's lookups on a database with a hub and planner
statistics: the existing-triple lookup probes the partial unique index once per triple,
never walking every fact of a busy subject (it did: 0.4-1.3 s per 1,000 triples at 100k)."""

from __future__ import annotations

from typing import Any

from trulymem import TrulyMem

BACKENDS = ("postgres",)


def _hub_triplets(n: int, relation: str = "rel") -> list[dict[str, str]]:
    # every subject is "user", every object one of 40: busy nodes whose facts a bad plan walks
    return [{"subject": "user", "relation": f"{relation}{i % 97}", "object": f"thing {i % 40}"} for i in range(n)]


def test_the_existing_triple_lookup_probes_the_unique_index(db: str) -> None:
    mem = TrulyMem(db, user_id="u", embedder="none")
    mem.commit(_hub_triplets(3000))
    mem.commit([{"subject": f"person {i}", "relation": "knows", "object": "user"} for i in range(200)])
    store: Any = mem.store
    with store.transaction():
        store._q("ANALYZE facts")
        store._q("ANALYZE nodes")
    seen: list[tuple[str, Any]] = []
    original = type(store)._q

    def spy(self: Any, sql: str, params: Any = ()) -> Any:
        if "facts_active_triple" not in sql and "relation_key = v.r" in sql:
            seen.append((sql, params))
        return original(self, sql, params)

    type(store)._q = spy
    try:
        res = mem.commit(_hub_triplets(600) + _hub_triplets(300, relation="new"))
    finally:
        type(store)._q = original
    assert len(res.reinforced) == 600 and len(res.created) == 300
    assert seen
    with store.transaction(write=False):
        # a table this small is read whole and merged; at 100k facts it is a loop of index probes,
        # and which index the loop probes is the point
        for setting in ("enable_seqscan", "enable_mergejoin", "enable_hashjoin", "enable_bitmapscan"):
            store._q(f"SET LOCAL {setting} = off")
        for sql, params in seen:
            plan = " | ".join(r[0] for r in store._q("EXPLAIN " + sql, params))
            assert "facts_active_triple" in plan and "facts_subject" not in plan and "facts_object" not in plan, plan
    mem.close()


def _last_analyze(store: Any) -> Any:
    with store.transaction(write=False):
        return store._q("SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'facts'")[0][0]


def test_a_bulk_load_refreshes_planner_statistics_as_it_grows(db: str) -> None:
    # autovacuum's ANALYZE comes a minute after a load; the store's own comes once the facts it
    # inserted reach the table's size at the last refresh, so each refresh is some time apart
    mem = TrulyMem(db, user_id="u", embedder="none")
    store: Any = mem.store
    before = _last_analyze(store)  # the emptied test database may keep an earlier test's
    mem.commit([{"subject": "user", "relation": "saw", "object": f"thing {i}"} for i in range(1500)])
    assert _last_analyze(store) == before
    mem.commit([{"subject": "user", "relation": "saw", "object": f"thing {i}"} for i in range(1500, 2100)])
    first = _last_analyze(store)
    assert first is not None and first != before
    with store.transaction(write=False):
        assert store._q("SELECT reltuples FROM pg_class WHERE relname = 'facts'")[0][0] >= 2000
        # the refresh samples fewer rows than the default; the connection goes back to the pool as it was
        assert store._q("SHOW default_statistics_target")[0][0] == "100"
        assert store._q("SELECT count(*) FROM pg_stats WHERE tablename = 'facts' AND attname = 'subject_id'")[0][0]
    mem.commit([{"subject": "user", "relation": "saw", "object": f"thing {i}"} for i in range(2100, 3000)])
    assert _last_analyze(store) == first  # 900 more: not yet
    mem.close()



def test_a_walk_that_finds_fewer_than_asked_forgets_common(db: str) -> None:
    """The store remembers a common word; once a purge leaves fewer matches than a search
    asks for, the next search asks again instead of walking every fact on each call."""
    from trulymem.model import Scope
    from trulymem.store import queries

    a = TrulyMem(db, user_id="a", embedder="none")
    a.commit([{"subject": f"person {i}", "relation": "likes", "object": f"thing {i}"}
              for i in range(queries.COMMON + 100)])
    store: Any = a.store
    assert len(store.search_facts(Scope(user_id="a"), [("likes",)], 5)) == 5
    assert store.__dict__["_common_seen"]  # the common path ran and was remembered
    a.purge({"subject_contains": "person 1"}, mode="hard", confirm=True)
    a.purge({"subject_contains": "person"}, mode="hard", confirm=True)
    a.commit([{"subject": "keeper", "relation": "likes", "object": f"tea {i}"} for i in range(3)])
    assert len(store.search_facts(Scope(user_id="a"), [("likes",)], 5)) == 3
    assert not store.__dict__["_common_seen"]  # fewer than asked: no longer taken for common
    assert len(store.search_facts(Scope(user_id="a"), [("likes",)], 5)) == 3
    a.close()


def test_the_common_walk_reads_one_users_facts_by_user_and_seq(db: str) -> None:
    """A step of the common-word walk is a keyset on (user_id, seq): facts_user_seq is the one
    index that gives that order without sorting, whatever the planner thinks of the word."""
    from trulymem.model import Scope
    from trulymem.store.base import CURRENT
    from trulymem.store.postgres.rows import FACT_COLS_NAMED, scope_sql, when_sql
    from trulymem.store.postgres.search import _WALK

    for user in ("a", "b"):
        with TrulyMem(db, user_id=user, embedder="none") as m:
            m.commit(_hub_triplets(2000, relation="likes"))
    mem = TrulyMem(db, user_id="a", embedder="none")
    store: Any = mem.store
    where, params = scope_sql(Scope(user_id="a"), "f")
    when, wparams = when_sql(CURRENT)
    sql = _WALK.format(cols=FACT_COLS_NAMED, where=where, when=when)
    with store.transaction(write=False):
        store._q("ANALYZE facts")
        store._q("SET LOCAL enable_seqscan = off")  # a table this small is read whole otherwise
        plan = " | ".join(r[0] for r in store._q(
            "EXPLAIN " + sql, ("a", 2**63 - 1, 4096, "'likes'", *params, *wparams, 20)))
    assert "facts_user_seq" in plan and "facts_seq" not in plan and "facts_tsv" not in plan, plan
    assert "Sort" not in plan, plan  # rows stream in index order: a walk stops once it has enough
    mem.close()


def test_recall_neighbour_rows_walk_the_endpoint_indexes_and_type_each_node_once(db: str) -> None:
    """Recall's light neighbour rows: per asked node a capped walk of facts_subject / facts_object,
    the asked node's own type read once per node (OFFSET 0 keeps it out of the rows), not per row."""
    from trulymem.model import Scope
    from trulymem.store.base import CURRENT
    from trulymem.store.queries import neighbor_sql

    mem = TrulyMem(db, user_id="u", embedder="none")
    mem.commit(_hub_triplets(2000))
    store: Any = mem.store
    with store.transaction(write=False):
        ids = [r[0] for r in store._q("SELECT id FROM nodes WHERE user_id = 'u' ORDER BY seq LIMIT 8")]
        store._q("ANALYZE facts")
        store._q("SET LOCAL enable_seqscan = off")  # a table this small is read whole otherwise
        sql, params = neighbor_sql(store.dialect, Scope(user_id="u"), ids, 4, CURRENT)
        plan = " | ".join(r[0] for r in store._q("EXPLAIN " + sql, params))
    assert "facts_subject" in plan and "facts_object" in plan, plan
    # the asked node's type: one lookup per asked node (u.value), none per row for the asked side
    assert plan.count("(id = u.value)") == 1 and plan.count("(id = u_1.value)") == 1, plan
    assert "(id = f.subject_id)" not in plan and "(id = f_1.object_id)" not in plan, plan
    assert "Sort" not in plan, plan  # each node's rows come in its index's order
    mem.close()
