"""The Memories table and the task chain at a time: the listings the web app filters.

The table lists plain facts (not the task chain's or persona's structure, and not
the facts that only say which message said what), filtered by type, relation,
pinning and when they became true; the task chain can be read as it stood at an
earlier time, as the graph can."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from trulymem.errors import InvalidInput
from trulymem.model import EdgeKind, NodeType, Scope
from trulymem.store.base import FactQuery, NodeQuery, Store
from trulymem.text.normalize import relation_key
from trulymem.tools.tasks import chain_entries, description_of
from trulymem.web.graph import MAX_FACTS, fact_json, need_user

MAX_ROWS = 5000


def memories(store: Store, scope: Scope, *, type_: str | None = None, relation: str | None = None,
             pinned: bool | None = None, since: datetime | None = None, until: datetime | None = None,
             as_of: datetime | None = None, limit: int = 500) -> dict[str, Any]:
    """Current (or, with ``as_of``, then-valid) facts matching every filter, newest first, with the
    types and relations there are to filter by."""
    if not 1 <= limit <= MAX_ROWS:
        raise InvalidInput(f"must be from 1 to {MAX_ROWS}", field="limit")
    if since and until and since > until:
        raise InvalidInput("must not be after 'until'", field="since")
    scope = need_user(scope)
    with store.transaction(write=False):
        facts = store.facts(FactQuery(scope=scope, kinds=[EdgeKind.FACT], validity="current", as_of=as_of,
                                      limit=MAX_FACTS))
        ends = {i for f in facts for i in (f.subject_id, f.object_id)}
        episodes = {i for i, t in store.node_types(scope, list(ends)).items() if t == NodeType.EPISODE}
    plain = [f for f in facts if f.subject_id not in episodes and f.object_id not in episodes]
    key = relation_key(relation) if relation else None
    rows = [f for f in plain
            if (type_ is None or f.type == type_) and (key is None or relation_key(f.relation) == key)
            and (pinned is None or f.pinned == pinned)
            and (since is None or f.valid_at >= since) and (until is None or f.valid_at <= until)]
    return {
        "total": len(rows),
        "memories": [{**fact_json(f), "agent_id": f.agent_id, "app_id": f.app_id} for f in rows[:limit]],
        "types": sorted({f.type for f in plain if f.type}),
        "relations": sorted({f.relation for f in plain}),
        "truncated": len(facts) >= MAX_FACTS,
    }


def tasks_at(store: Store, scope: Scope, as_of: datetime, limit: int = 50, kind: str = "task") -> dict[str, Any]:
    """The task chain as it stood at ``as_of``: the tasks (``kind``: or the turn records, or
    both: ``all``) created by then, newest first, each in the state it was in then."""
    scope = need_user(scope)
    with store.transaction(write=False):
        tasks = store.nodes(NodeQuery(scope=scope, types=[NodeType.TASK], created_before=as_of, limit=limit)) \
            if kind == "all" else chain_entries(store, scope, limit, kind == "turn", before=as_of)
        states = store.facts(FactQuery(scope=scope.user_wide(), subject_ids=[t.id for t in tasks],
                                       kinds=[EdgeKind.HAS_STATE], validity="current", as_of=as_of)) if tasks else []
    state = {f.subject_id: f.object for f in states}
    return {"as_of": as_of.isoformat(), "tasks": [
        {"task_id": t.name, "node_id": t.id, "description": description_of(t), "state": state.get(t.id),
         "created_at": t.created_at.isoformat(), "kind": str(t.metadata.get("kind") or "task")} for t in tasks]}
