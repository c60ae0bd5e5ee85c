"""What recall reads whole (issue 17): only the nodes it returns. Expansion and the reranker
judge the rest from light reads (types, edges), and a node read whole costs a row with its
text and metadata, at 1M facts a random page."""

from __future__ import annotations

from collections.abc import Callable

from tests.helpers import triplet
from trulymem import TrulyMem
from trulymem.model import Node
from trulymem.store import NodeQuery


def _recording(mem: TrulyMem) -> set[str]:
    """The ids of every node ``mem``'s store reads whole by id from now on."""
    seen: set[str] = set()
    read: Callable[[NodeQuery], list[Node]] = mem.store.nodes

    def nodes(query: NodeQuery) -> list[Node]:
        seen.update(query.ids or ())
        return read(query)

    mem.store.nodes = nodes  # type: ignore[method-assign]
    return seen


def test_recall_reads_whole_only_the_nodes_it_returns(mem: TrulyMem) -> None:
    # a hub with more neighbours than the reranker looks at (60), each with a neighbour of its own
    mem.commit([triplet("user", "likes", f"thing {i}") for i in range(90)])
    mem.commit([triplet(f"thing {i}", "made_by", f"maker {i}") for i in range(90)])
    read = _recording(mem)
    res = mem.recall("user", depth=2, limit=5)
    assert len(res.facts) == 5
    returned = {n.id for n in res.nodes}
    assert read and read <= returned, f"read whole but not returned: {len(read - returned)}"


def test_live_nodes_is_by_node_id(mem: TrulyMem) -> None:
    mem.commit([triplet("user", "lives in", "Lisbon"), triplet("user", "likes", "tea")])
    mem.purge({"subject": "user", "relation": "likes"}, mode="soft", confirm=True)
    ids = {n.name: n.id for n in mem.store.nodes(NodeQuery(scope=mem.scope.user_wide()))}
    live = mem.store.live_nodes([ids["tea"], ids["Lisbon"], ids["user"], ids["Lisbon"], "no such node"])
    assert live == {ids["Lisbon"], ids["user"]}
