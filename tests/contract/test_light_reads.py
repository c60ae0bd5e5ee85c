"""The light reads recall expands over (``Store.neighbor_edges``, ``Store.node_types``) give
what the whole reads give, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from dataclasses import replace

from tests.conftest import Clock
from tests.helpers import triplet
from trulymem import TrulyMem
from trulymem.model import Scope
from trulymem.store import NodeQuery
from trulymem.store.base import CURRENT, Edge, When


def _graph(mem: TrulyMem, clock: Clock) -> None:
    # a hub with more facts than a cap, pinned ones, an invalidated one; every fact its own update
    # time, because SQL leaves the order of exact ties to the plan and a cap cutting through a run
    # of ties could keep either side of it
    for i in range(8):
        mem.commit([triplet("user", "likes", f"thing {i}")])
        clock.advance(minutes=1)
    clock.advance(days=1)
    for t in (triplet("user", "owns", "car", pinned=True), triplet("car", "is", "red"),
              triplet("Bob", "knows", "user"), triplet("Bob", "drives", "car")):
        mem.commit([t])
        clock.advance(minutes=1)
    clock.advance(days=1)
    mem.commit([triplet("user", "lives in", "Lisbon")])
    mem.purge({"subject": "user", "relation": "lives in"}, mode="supersede", replacement={"object": "Porto"})


def _ids(mem: TrulyMem, *names: str) -> list[str]:
    by_name = {n.name: n.id for n in mem.store.nodes(NodeQuery(scope=Scope(user_id="alice")))}
    return [by_name[n] for n in names]


def _in_order(edges: list[Edge]) -> list[list[Edge]]:
    """The edges as runs of equal rank (pinned, update time): the graph has no ties, so each run
    is one edge; a tie a purge may leave (the superseded fact and its replacement) stays comparable
    whichever order the plan gives it."""
    runs: list[list[Edge]] = []
    last = None
    for e in edges:
        if (e.pinned, e.updated_at) != last:
            runs.append([])
            last = (e.pinned, e.updated_at)
        runs[-1].append(e)
    return [sorted(run, key=lambda e: e.id) for run in runs]


def test_neighbor_edges_are_the_neighbours_facts_in_order(mem: TrulyMem, clock: Clock) -> None:
    _graph(mem, clock)
    scope = Scope(user_id="alice")
    nodes = _ids(mem, "user", "car", "Bob", "Lisbon", "thing 3")
    for per_node in (1, 2, 3, 20):
        for when in (CURRENT, When("all"), When("invalid")):
            for ids in (nodes, nodes[::-1], nodes[2:3], ["no such node", *nodes[:2]]):
                whole = mem.store.neighbors(scope, ids, per_node=per_node, when=when)
                light = mem.store.neighbor_edges(scope, ids, per_node=per_node, when=when)
                assert _in_order([replace(e, subject_type=None, object_type=None) for e in light]) == _in_order(
                    [Edge.of(f) for f in whole]), (per_node, when, ids)
                types = mem.store.node_types(scope, [x for e in light for x in (e.subject_id, e.object_id)])
                assert all(e.subject_type == types[e.subject_id] and e.object_type == types[e.object_id]
                           for e in light)
    assert mem.store.neighbor_edges(scope, [], per_node=3) == []
    assert mem.store.neighbor_edges(Scope(user_id="bob"), nodes, per_node=3) == []


def test_node_types_are_the_nodes_types(mem: TrulyMem, clock: Clock) -> None:
    start = clock()
    clock.advance(days=1)
    _graph(mem, clock)
    scope = Scope(user_id="alice")
    ids = _ids(mem, "user", "car", "Lisbon")
    whole = {n.id: n.type for n in mem.store.nodes(NodeQuery(scope=scope, ids=ids))}
    assert mem.store.node_types(scope, [*ids, "no such node"]) == whole
    assert len(whole) == 3
    assert mem.store.node_types(scope, ids, created_before=start) == {}
    assert mem.store.node_types(Scope(user_id="bob"), ids) == {}
    assert mem.store.node_types(scope, []) == {}
