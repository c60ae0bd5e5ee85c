"""A mem0 memory's history: its versions as mem0's history rows."""

from __future__ import annotations

import uuid
from typing import Any

from trulymem.errors import NotFound
from trulymem.mem0.ids import chain, public_id, retirement, stored_ids
from trulymem.mem0.items import role_of
from trulymem.memories import is_memory
from trulymem.model import Fact, Scope
from trulymem.store.base import FactQuery
from trulymem.tools.base import ToolContext

_HISTORY_IDS = uuid.UUID("9b7c1e0a-4f6d-4c1b-8a3e-5d2f7a6b0c91")  # history event ids: uuid5 of fact id + event


def history(ctx: ToolContext, memory_id: str, base: Scope) -> list[dict[str, Any]]:
    """The memory's versions, oldest first, as mem0's history rows: ADD, one UPDATE per new
    text, DELETE; each names the memory's public id, and ``created_at`` is the memory's
    creation while ``updated_at`` is the event's time (as mem0 records them). A memory
    retired into another (a dream's merge, a lost conflict) ends with a DELETE whose
    ``metadata`` (a field of mem0's platform history rows) says ``reason`` (``merged`` or
    ``superseded``), ``superseded_by`` (that memory's id) and ``current`` (the memory that
    holds it now, or null when that was deleted since)."""
    scope = base.user_wide()
    with ctx.store.transaction(write=False):
        found = ctx.store.facts(FactQuery(scope=scope, ids=stored_ids(memory_id), validity="all"))
        if not found or not is_memory(found[0]):
            raise NotFound(f"no memory {memory_id!r}", field="memory_id")
        versions = chain(ctx.store, scope, found[0])
        gone = retirement(ctx.store, scope, versions[-1])
    first, last = versions[0], versions[-1]
    pid, born = public_id(first.id), first.created_at.isoformat()

    def event(f: Fact, kind: str, old: str | None, new: str | None, at: str) -> dict[str, Any]:
        return {"id": str(uuid.uuid5(_HISTORY_IDS, f"{f.id}:{kind}")), "memory_id": pid, "old_memory": old,
                "new_memory": new, "event": kind, "created_at": born, "updated_at": at,
                "is_deleted": kind == "DELETE", "actor_id": f.metadata.get("actor_id"),
                "role": f.metadata.get("role") or role_of(f.relation, f.subject)}

    events = [event(f, "UPDATE" if i else "ADD", versions[i - 1].object if i else None, f.object,
                    f.created_at.isoformat()) for i, f in enumerate(versions)]
    if last.invalid_at is not None:
        events.append(event(last, "DELETE", last.object, None, last.invalid_at.isoformat()))
        if gone is not None:
            events[-1]["metadata"] = {"reason": gone.reason, "superseded_by": gone.successor, "current": gone.current}
    return events
