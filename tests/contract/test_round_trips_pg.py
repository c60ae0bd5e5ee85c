"""What cuts a PostgreSQL recall's round trips and server work: a read transaction's statements
are prepared yet planned for their own arguments (never a generic plan, which reads whole
tables for ``= ANY(array)`` lookups), and a user seen committed is not asked for again."""

from __future__ import annotations

from typing import Any

import pytest

from trulymem import TrulyMem
from trulymem.model import Scope, utcnow
from trulymem.store.base import NodeQuery

BACKENDS = ("postgres",)


def test_repeated_statements_are_prepared_and_planned_for_their_arguments(db: str) -> None:
    mem = TrulyMem(db, user_id="u", embedder="none")
    mem.commit([{"subject": f"person {i}", "relation": "knows", "object": "user"} for i in range(50)])
    store: Any = mem.store
    # more than five runs: PostgreSQL's own "auto" mode tries a generic plan from the sixth
    keys = [["person 1"], ["person 2", "person 3"], ["user"], ["person 4"], ["nobody"], ["person 5"],
            ["person 6", "person 7"], ["person 8"]]
    with store.transaction(write=False):  # one connection throughout
        assert store._q("SHOW plan_cache_mode") == [("force_custom_plan",)]
        found = [len(store.nodes(NodeQuery(scope=Scope(user_id="u"), keys=k))) for k in keys]
        plans = store._q("SELECT coalesce(sum(generic_plans), 0), coalesce(sum(custom_plans), 0) "
                         "FROM pg_prepared_statements WHERE starts_with(statement, 'SELECT n.id')")
    assert found == [1, 2, 1, 1, 0, 1, 2, 1]
    generic, custom = plans[0]
    assert generic == 0 and custom == 8  # prepared at the first run, each run planned for its own keys
    mem.close()


def test_a_write_transaction_prepares_nothing(db: str) -> None:
    # its statements would get generic plans after five runs (force_custom_plan is the read transaction's)
    mem = TrulyMem(db, user_id="u", embedder="none")
    store: Any = mem.store
    with store.transaction():
        for i in range(7):
            store.nodes(NodeQuery(scope=Scope(user_id="u"), keys=[f"person {i}"]))
        assert store._q("SELECT count(*) FROM pg_prepared_statements") == [(0,)]
        assert store._q("SHOW plan_cache_mode") == [("auto",)]
    mem.close()


def test_a_user_is_kept_as_existing_only_once_committed(db: str) -> None:
    mem = TrulyMem(db, user_id="u", embedder="none")
    store: Any = mem.store
    with pytest.raises(RuntimeError), store.transaction():
        store.ensure_user("later", utcnow())
        assert store.user_exists("later")  # its own insert, not yet committed
        raise RuntimeError("roll back")
    assert not store.user_exists("later")
    store.ensure_user("later", utcnow())  # autocommit
    asked: list[str] = []
    original = type(store)._q

    def spy(self: Any, sql: str, params: Any = ()) -> Any:
        asked.append(sql)
        return original(self, sql, params)

    type(store)._q = spy
    try:
        assert store.user_exists("later") and store.user_exists("later")
        assert not store.user_exists("nobody") and not store.user_exists("nobody")
    finally:
        type(store)._q = original
    assert len(asked) == 3  # "later" read once, then kept; "nobody" read each time
    mem.close()


def test_node_search_in_one_statement_finds_what_two_did(db: str) -> None:
    from trulymem.store.queries import COMMON, SQLReads

    mem = TrulyMem(db, user_id="u", embedder="none")
    # "widget" names more than COMMON nodes (common), "gadget" a few, "gizmo" one; 中文 bigrams too
    mem.commit([{"subject": f"widget {i}", "relation": "is", "object": "part"} for i in range(COMMON + 50)])
    mem.commit([{"subject": f"gadget {i} 中文", "relation": "uses", "object": "gizmo"} for i in range(5)])
    store: Any = mem.store
    scope = Scope(user_id="u")
    statements: list[str] = []
    seen: dict[str, int] = {}
    original = type(store)._q

    def spy(self: Any, sql: str, params: Any = ()) -> Any:
        statements.append(sql)
        return original(self, sql, params)

    for phrases in ([("gadget",)], [("widget",)], [("widget",), ("gizmo",)], [("gadget", "1")], [("中",)],
                    [("中文",)], [("nothing",)], [("widget",), ("nothing",)], []):
        type(store)._q = spy
        try:
            got = store.search_nodes(scope, phrases, 20)
        finally:
            type(store)._q = original
        assert got == SQLReads.search_nodes(store, scope, phrases, 20), phrases
        seen[str(phrases)] = len(got)
        # two statements only while every phrase is common (a word in nothing is rare)
        assert len(statements) == (0 if not phrases else 2 if phrases == [("widget",)] else 1), phrases
        statements.clear()
    assert seen["[('gadget',)]"] == 5 and seen["[('widget',)]"] == 20 and seen["[('nothing',)]"] == 0
    mem.close()


def test_preparing_can_be_switched_off_for_a_pooler(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # a pooler in transaction mode that does not track prepared statements (PgBouncer < 1.21)
    monkeypatch.setenv("TRULYMEM_PG_PREPARE", "off")
    mem = TrulyMem(db, user_id="u", embedder="none")
    mem.commit([{"subject": "person 1", "relation": "knows", "object": "user"}])
    store: Any = mem.store
    with store.transaction(write=False):
        for _ in range(3):
            store.nodes(NodeQuery(scope=Scope(user_id="u"), keys=["person 1"]))
        assert store._q("SELECT count(*) FROM pg_prepared_statements") == [(0,)]
    assert mem.recall("person 1").nodes
    mem.close()


def test_a_bad_prepare_switch_is_refused_by_name(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from trulymem.errors import ConfigError

    monkeypatch.setenv("TRULYMEM_PG_PREPARE", "sometimes")
    with pytest.raises(ConfigError, match="TRULYMEM_PG_PREPARE must be on or off, not 'sometimes'"):
        TrulyMem(db, user_id="u", embedder="none")

