"""What recall has read of nodes and facts: types of the nodes expansion looked at, whole
nodes and facts only where a stage needs their text or metadata, or they are returned."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from trulymem.model import Fact, Node, Scope
from trulymem.store.base import Edge, FactQuery, NodeQuery, Store


class NodeCache:
    """Nodes read so far in one recall: ``types`` of every node looked up (a node absent
    from the store, or created after ``as_of``, is in neither map), ``full`` of those read whole."""

    def __init__(self, store: Store, scope: Scope, as_of: datetime | None) -> None:
        self.store, self.scope, self.as_of = store, scope, as_of
        self.types: dict[str, str] = {}
        self.full: dict[str, Node] = {}
        self.enrichment: dict[str, bool] = {}  # engine._enrichment's answer per node read whole

    def load_types(self, ids: Iterable[str]) -> None:
        todo = [n for n in ids if n not in self.types]
        if todo:
            self.types.update(self.store.node_types(self.scope, todo, created_before=self.as_of))

    def learn(self, edges: Iterable[Edge]) -> None:
        """The endpoint types the edges came with: the next hop's frontier needs no lookup for
        them. Not with ``as_of``: an endpoint's type says nothing of when the node was made."""
        if self.as_of is not None:
            return
        for e in edges:
            if e.subject_type is not None:
                self.types.setdefault(e.subject_id, e.subject_type)
            if e.object_type is not None:
                self.types.setdefault(e.object_id, e.object_type)

    def load(self, ids: Iterable[str]) -> None:
        todo = [n for n in ids if n not in self.full]
        if todo:
            for n in self.store.nodes(NodeQuery(scope=self.scope, ids=todo, created_before=self.as_of)):
                self.full[n.id] = n
                self.types[n.id] = n.type

    def add(self, nodes: Iterable[Node]) -> None:
        """Nodes another stage read whole, in a scope within this one and as of the same time."""
        for n in nodes:
            self.full.setdefault(n.id, n)
            self.types.setdefault(n.id, n.type)

    def get(self, node_id: str) -> Node | None:
        return self.full.get(node_id)


def whole_facts(store: Store, scope: Scope, ids: list[str], have: dict[str, Fact]) -> dict[str, Fact]:
    """The facts ``ids`` whole: those in ``have``, the rest read in one query (by id: they were
    already chosen under the recall's ``When``)."""
    out = {i: have[i] for i in ids if i in have}
    missing = [i for i in ids if i not in out]
    if missing:
        out.update((f.id, f) for f in store.facts(FactQuery(scope=scope, ids=missing, validity="all")))
    return out
