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
