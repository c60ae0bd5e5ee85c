"""Read-only views of one user's memory for the web app, built on the Store contract.

``graph_view`` is the whole graph at a time (``as_of``) with a level of detail: at
most ``max_nodes`` nodes — persona, tasks and states first, then pinned, then the
best connected — and the rest counted per type, so a memory of 10k+ facts loads in
one small answer. ``node_view`` is one node with every fact that touches it, valid or
not (its history), each fact with its provenance: who wrote it, in which session and
turn, and the message it came from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from trulymem.errors import InvalidInput, NotFound
from trulymem.model import Fact, Node, NodeType, Scope
from trulymem.recall.results import fact_text, message_text, shown_messages
from trulymem.store.base import FactQuery, NodeQuery, Store
from trulymem.text import name_key

MAX_FACTS = 200_000  # read at once for a graph view; beyond it the newest are shown
DEFAULT_NODES = 1500
MAX_NODES = 20_000
# what a small view keeps first: the structure an agent runs on
_RANK = {NodeType.PERSONA.value: 0, NodeType.TASK.value: 1, NodeType.STATE.value: 2}


def need_user(scope: Scope) -> Scope:
    if scope.user_id is None:
        raise InvalidInput("name the user whose memory to show: ?user_id=", field="user_id")
    return scope


def fact_json(f: Fact) -> dict[str, Any]:
    return {"id": f.id, "source": f.subject_id, "target": f.object_id, "subject": f.subject, "object": f.object,
            "relation": f.relation, "kind": f.kind.value, "confidence": f.confidence, "speculation": f.speculation,
            "pinned": f.pinned, "type": f.type, "valid": f.is_valid, "mention_count": f.mention_count,
            "created_at": f.created_at.isoformat(), "updated_at": f.updated_at.isoformat(),
            "valid_at": f.valid_at.isoformat(), "invalid_at": f.invalid_at.isoformat() if f.invalid_at else None,
            "superseded_by": f.superseded_by}


def node_json(n: Node, degree: int = 0) -> dict[str, Any]:
    """A node as the graph and the panel show it; a message has a ``label``: its words and time, not its id."""
    out: dict[str, Any] = {"id": n.id, "name": n.name, "type": n.type, "degree": degree}
    if n.type == NodeType.EPISODE:  # only there: a graph of 10k nodes loads at once
        out["label"] = message_text(n)
    return out


def graph_view(store: Store, scope: Scope, *, as_of: datetime | None = None,
               max_nodes: int = DEFAULT_NODES) -> dict[str, Any]:
    """Nodes and facts valid at ``as_of`` (default now), at most ``max_nodes`` nodes. Only the
    nodes drawn are read (a view of 10k+ facts reads its facts and 1,500 nodes)."""
    if not 1 <= max_nodes <= MAX_NODES:
        raise InvalidInput(f"must be from 1 to {MAX_NODES}", field="max_nodes")
    scope = need_user(scope)
    with store.transaction(write=False):
        facts = store.facts(FactQuery(scope=scope, validity="current", as_of=as_of, limit=MAX_FACTS))
        degree: Counter[str] = Counter()
        for f in facts:
            degree[f.subject_id] += 1
            degree[f.object_id] += 1
        structure = store.nodes(NodeQuery(scope=scope, types=list(_RANK), created_before=as_of))
        kept = _keep(degree, structure, facts, max_nodes)
        nodes = store.nodes(NodeQuery(scope=scope, ids=list(kept)))
        by_type = store.stats(scope).nodes_by_type if len(kept) < len(degree) else {}
        first = store.nodes(NodeQuery(scope=scope, newest_first=False, limit=1))
    shown_types = Counter(n.type for n in nodes)
    shown = [f for f in facts if f.subject_id in kept and f.object_id in kept]
    return {
        "user_id": scope.user_id,
        "as_of": as_of.isoformat() if as_of else None,
        "first": first[0].created_at.isoformat() if first else None,
        "nodes": [node_json(n, degree[n.id]) for n in nodes],
        "edges": [_edge(f) for f in shown],
        # what is not drawn, by type (counted over the memory as it is now)
        "clusters": [{"type": t, "count": c - shown_types[t]} for t, c in sorted(by_type.items())
                     if c > shown_types[t]],
        "total": {"nodes": len(degree), "facts": len(facts), "truncated": len(facts) >= MAX_FACTS},
        "shown": {"nodes": len(nodes), "facts": len(shown)},
        "hidden": len(degree) - len(nodes),
    }


def _edge(f: Fact) -> dict[str, Any]:
    """An edge as the graph draws it: what a label and a style need, no more (10k of them load at once)."""
    return {"id": f.id, "source": f.subject_id, "target": f.object_id, "relation": f.relation, "kind": f.kind.value,
            "pinned": f.pinned, "speculation": f.speculation}


def _keep(degree: Counter[str], structure: list[Node], facts: list[Fact], max_nodes: int) -> dict[str, None]:
    """The nodes a view of at most ``max_nodes`` shows: the agent's structure (persona, tasks,
    states), then facts — pinned first, then between well-connected nodes — each bringing both
    its ends, so what is drawn is connected rather than a scatter of hubs."""
    if len(degree) <= max_nodes:
        return dict.fromkeys(degree)
    kept: dict[str, None] = {}
    for n in sorted((n for n in structure if n.id in degree), key=lambda n: (_RANK[n.type], -degree[n.id])):
        if len(kept) >= max_nodes // 4:
            break
        kept[n.id] = None
    ranked = sorted(facts, key=lambda f: (not f.pinned, -min(degree[f.subject_id], degree[f.object_id]),
                                          -(degree[f.subject_id] + degree[f.object_id])))
    for f in ranked:
        if len(kept) >= max_nodes:
            break
        ends = [i for i in (f.subject_id, f.object_id) if i not in kept]
        if len(kept) + len(ends) <= max_nodes:
            kept.update(dict.fromkeys(ends))
    return kept


def neighbourhood(store: Store, scope: Scope, node_id: str, *, as_of: datetime | None = None,
                  limit: int = 200) -> dict[str, Any]:
    """One node's neighbours and the facts to them: what the graph adds when a node is expanded."""
    scope = need_user(scope)
    with store.transaction(write=False):
        _node(store, scope, node_id)
        facts = store.facts(FactQuery(scope=scope, node_ids=[node_id], as_of=as_of, limit=limit))
        ids = list({i for f in facts for i in (f.subject_id, f.object_id)})
        nodes = store.nodes(NodeQuery(scope=scope, ids=ids))
    return {"center": node_id, "nodes": [node_json(n) for n in nodes], "edges": [_edge(f) for f in facts]}


def _node(store: Store, scope: Scope, node_id: str) -> Node:
    found = store.nodes(NodeQuery(scope=scope.user_wide(), ids=[node_id], limit=1))
    if not found:
        raise NotFound(f"no node {node_id!r}", field="node_id")
    return found[0]


def node_view(store: Store, scope: Scope, node_id: str, *, as_of: datetime | None = None) -> dict[str, Any]:
    """A node, its facts now (or at ``as_of``) and every earlier version, each with provenance."""
    scope = need_user(scope)
    with store.transaction(write=False):
        node = _node(store, scope, node_id)
        every = store.facts(FactQuery(scope=scope.user_wide(), node_ids=[node_id], validity="all", limit=2000))
        valid_then = {f.id for f in store.facts(FactQuery(scope=scope.user_wide(), node_ids=[node_id],
                                                          as_of=as_of, limit=2000))} if as_of else None
        messages = _messages(store, scope, {m for f in every for m in f.message_ids})
        shown = shown_messages(store, scope, every)
    current: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = []
    for f in sorted(every, key=lambda f: f.created_at, reverse=True):
        item = {**fact_json(f), "provenance": _provenance(f, messages), "text": fact_text(f, shown),
                "subject_label": shown.get(f.subject_id) or f.subject, "object_label": shown.get(f.object_id) or f.object}
        if valid_then is not None:
            item["valid_then"] = f.id in valid_then
        (current if f.is_valid else history).append(item)
    return {"node": {**node_json(node, len(current)), "summary": node.summary, "metadata": node.metadata,
                     "created_at": node.created_at.isoformat(), "updated_at": node.updated_at.isoformat(),
                     "agent_id": node.agent_id, "app_id": node.app_id},
            "facts": current, "history": history}


def _provenance(f: Fact, messages: dict[str, str]) -> dict[str, Any]:
    return {"source": f.source, "session_id": f.session_id, "turn_id": f.turn_id, "agent_id": f.agent_id,
            "app_id": f.app_id, "messages": [{"id": m, "text": messages.get(m)} for m in f.message_ids]}


def _messages(store: Store, scope: Scope, ids: Iterable[str]) -> dict[str, str]:
    """Message id -> what was said and when, from the conversation's episodes (an episode's name is its message id)."""
    keys = {name_key(i): i for i in ids}
    if not keys:
        return {}
    found = store.nodes(NodeQuery(scope=scope.user_wide(), keys=list(keys), types=[NodeType.EPISODE.value]))
    return {keys[n.key]: message_text(n) for n in found if n.key in keys}


def fact_versions(store: Store, scope: Scope, fact_id: str) -> list[dict[str, Any]]:
    """A fact's versions, oldest first: those it replaced (``superseded_by`` it), it, its successors."""
    scope = need_user(scope).user_wide()
    with store.transaction(write=False):
        found = store.facts(FactQuery(scope=scope, ids=[fact_id], validity="all"))
        if not found:
            raise NotFound(f"no fact {fact_id!r}", field="fact_id")
        chain: list[Fact] = [found[0]]
        for _ in range(100):  # back: the fact each version replaced
            before = store.facts(FactQuery(scope=scope, superseded_by=[chain[0].id], validity="all", limit=1))
            if not before:
                break
            chain.insert(0, before[0])
        for _ in range(100):  # forward: what replaced the newest version
            nxt = chain[-1].superseded_by
            after = store.facts(FactQuery(scope=scope, ids=[nxt], validity="all")) if nxt else []
            if not after:
                break
            chain.append(after[0])
    return [fact_json(f) for f in chain]
