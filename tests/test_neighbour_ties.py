"""SQLite's light neighbour rows, as the statement and ``neighbor_edges`` order them: facts
with the same update time (one batch) keep the order the whole read gives, the newest row first,
under every cap, in both directions, whichever node is asked first."""

from __future__ import annotations

from tests.conftest import Clock
from tests.helpers import triplet
from trulymem import TrulyMem
from trulymem.model import Scope
from trulymem.store import NodeQuery
from trulymem.store.base import CURRENT, When


def test_tied_update_times_keep_the_whole_reads_order(mem: TrulyMem, clock: Clock) -> None:
    mem.commit([triplet("user", "likes", f"thing {i}") for i in range(12)]
               + [triplet(f"friend {i}", "knows", "user") for i in range(6)]
               + [triplet("user", "owns", "car", pinned=True), triplet("car", "is", "red")])
    clock.advance(minutes=1)
    mem.commit([triplet("user", "likes", f"later {i}") for i in range(3)] + [triplet("Bob", "drives", "car")])
    scope = Scope(user_id="alice")
    by_name = {n.name: n.id for n in mem.store.nodes(NodeQuery(scope=scope))}
    asked = [by_name[n] for n in ("user", "car", "thing 4", "friend 2")]
    for ids in (asked, asked[::-1], asked[1:2]):
        for per_node in (1, 2, 5, 7, 50):
            for when in (CURRENT, When("all")):
                whole = [f.id for f in mem.store.neighbors(scope, ids, per_node=per_node, when=when)]
                light = [e.id for e in mem.store.neighbor_edges(scope, ids, per_node=per_node, when=when)]
                assert light == whole, (ids, per_node, when)
