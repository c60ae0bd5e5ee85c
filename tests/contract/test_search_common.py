"""Fact search by a word most facts carry (a relation word) walks back from the newest fact on
PostgreSQL instead of sorting every match: the same facts, newest first, as the search that
collects every match, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import pytest

from tests.helpers import triplet
from trulymem import TrulyMem
from trulymem.model import Scope
from trulymem.store import FactQuery, queries
from trulymem.store.base import When


def test_a_common_word_finds_the_newest_matching_facts(mem: TrulyMem, monkeypatch: pytest.MonkeyPatch) -> None:
    n = queries.COMMON + 20
    for start in range(0, n, 400):
        mem.commit([triplet(f"person {i}", "likes", f"thing {i}") for i in range(start, min(n, start + 400))]
                   + [triplet(f"person {start}", "visited", "Lisbon")])
    mem.purge({"subject": f"person {n - 1}", "relation": "likes"}, mode="supersede",
              replacement={"object": "nothing"})
    scope = Scope(user_id="alice")
    listed, _ = mem.store.list_facts(FactQuery(scope=scope, relation_keys=["likes"]), None, n + 10)
    newest = [f.id for f in reversed(listed) if f.invalid_at is None]

    for phrases, limit in (([("likes",)], 7), ([("likes",), ("visited",)], 3), ([("visited",)], 2)):
        found = mem.store.search_facts(scope, phrases, limit)
        with monkeypatch.context() as m:
            m.setattr(queries, "COMMON", 10 * n)  # every match collected and sorted
            m.setitem(mem.store.__dict__, "_common_seen", set())  # the store's remembered common matches
            assert mem.store.search_facts(scope, phrases, limit) == found
        assert len(found) == limit
        if phrases == [("likes",)]:
            assert [f.id for f in found] == newest[:limit]
            assert all(f.subject and f.object for f in found)
    everything = mem.store.search_facts(scope, [("likes",)], 3, when=When("all"))
    assert [f.object for f in everything[:2]] == ["nothing", f"thing {n - 1}"]
    assert mem.store.search_facts(scope, [("likes",)], 3, when=When("invalid"))[0].object == f"thing {n - 1}"



def test_a_word_no_longer_common_still_finds_its_facts(mem: TrulyMem) -> None:
    # the store remembers that a match was common; after a purge it is rare, and what is
    # left is still found, newest first
    mem.commit([triplet(f"person {i}", "likes", f"thing {i}") for i in range(queries.COMMON + 20)])
    kept = mem.commit([triplet("keeper", "likes", f"tea {i}") for i in range(3)])
    scope = Scope(user_id="alice")
    assert len(mem.store.search_facts(scope, [("likes",)], 5)) == 5
    mem.purge({"subject_contains": "person"}, mode="hard", confirm=True)
    found = mem.store.search_facts(scope, [("likes",)], 5)
    assert [f.id for f in found] == [f.id for f in reversed(kept.facts)]


def test_the_walk_over_one_users_facts_skips_other_users(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # "m" is searched; "a" sorts below it (a walk past m's oldest fact reaches a's) and "z" above;
    # a's and z's newer facts are interleaved with m's. Small steps make the walk take several.
    from trulymem.store.postgres import search

    monkeypatch.setattr(queries, "COMMON", 30)
    monkeypatch.setattr(search, "_FIRST_STEP", 8)
    mems = {u: TrulyMem(db, user_id=u, embedder="none") for u in ("a", "m", "z")}
    try:
        for batch in range(4):
            for u, m in mems.items():
                rel = (lambda i: "likes") if u != "m" else (lambda i: "likes" if i % 5 == 0 else "visited")
                m.commit([triplet(f"{u} person {batch}-{i}", rel(i), f"thing {i}") for i in range(60)])
        store = mems["m"].store
        scope = Scope(user_id="m")
        listed, _ = store.list_facts(FactQuery(scope=scope, relation_keys=["likes"]), None, 1000)
        newest = [f.id for f in reversed(listed)]
        assert len(newest) == 48
        for limit in (1, 10, 40, 48, 60):
            store.__dict__["_common_seen"] = set()
            found = store.search_facts(scope, [("likes",)], limit)
            assert [f.id for f in found] == newest[:limit]
            assert all(f.user_id == "m" and f.subject.startswith("m person") for f in found)
            with monkeypatch.context() as mp:
                mp.setattr(queries, "COMMON", 10_000)  # every match collected and sorted
                store.__dict__["_common_seen"] = set()
                assert store.search_facts(scope, [("likes",)], limit) == found
    finally:
        for m in mems.values():
            m.close()


def test_a_rare_word_is_counted_and_collected_in_one_statement(pg_url: str) -> None:
    """PostgreSQL counts a word's matches and collects the newest of them in one statement (recall
    made two): the same facts as the count, then the collecting search."""
    import dataclasses
    from typing import Any

    mem = TrulyMem(pg_url, user_id="alice", embedder="none")
    mem.commit([triplet(f"person {i}", "likes" if i % 3 else "visited", f"thing {i}") for i in range(60)])
    store: Any = mem.store
    statements: list[str] = []
    original = type(store)._q

    def spy(self: Any, sql: str, params: Any = ()) -> Any:
        statements.append(sql)
        return original(self, sql, params)

    scope = Scope(user_id="alice")
    with pytest.MonkeyPatch.context() as m:
        m.setattr(type(store), "_q", spy)
        found = store.search_facts(scope, [("visited",)], 5)
        assert len(statements) == 1
        m.setattr(type(store), "dialect", dataclasses.replace(
            store.dialect, search=dataclasses.replace(store.dialect.search, facts_counted=None)))
        assert store.search_facts(scope, [("visited",)], 5) == found  # count, then collect
        assert len(statements) == 3
    assert [f.object for f in found] == [f"thing {i}" for i in (57, 54, 51, 48, 45)]
    assert store.search_facts(scope, [("nowhere",)], 5) == []
    mem.close()
