"""Memories as mem0 shows them: public ids (a memory's first version's), creation times
that survive updates, ``role``/``actor_id`` at the top level."""

from __future__ import annotations

from typing import Any

from trulymem.mem0.ids import Versioned, first_facts, public_id
from trulymem.memories import MEMORY_RELATION, MemoryItem, shown_metadata
from trulymem.model import Scope
from trulymem.tools.base import ToolContext

OWNER = "user"
SUBJECTS = {"user": OWNER, "assistant": "assistant"}  # who a message's text is about: not the user, for an assistant
ROLE_KEYS = ("role", "actor_id")  # mem0's per-message keys, shown at an item's top level


def said_by(message: dict[str, str]) -> dict[str, str]:
    """What a memory's metadata keeps of who said it: the subject says user or assistant,
    so only another role and a ``name`` (mem0's ``actor_id``) are written down."""
    out = {} if message["role"] in SUBJECTS else {"role": message["role"]}
    return {**out, **({"actor_id": message["name"]} if "name" in message else {})}


def role_of(relation: str, subject: str | None) -> str | None:
    return subject if relation == MEMORY_RELATION and subject in SUBJECTS.values() else None


def item_dict(m: MemoryItem, score: float | None = None, pid: str | None = None) -> dict[str, Any]:
    """A memory as mem0 shows it: its public id, and ``role``/``actor_id`` at the top level
    (a free-text memory's role is its subject, user or assistant, unless another is noted);
    ``type``, ``pinned``, ``confidence`` and ``speculation`` both at the top level and, where
    they differ from the default, in ``metadata`` (where mem0 clients read them)."""
    out = m.model_dump(mode="json")
    meta = shown_metadata(m)
    for key in ROLE_KEYS:
        out[key] = meta.pop(key, None)
    out["role"] = out["role"] or role_of(m.relation, m.subject)
    out.update(id=pid or public_id(m.id), metadata=meta)
    if score is not None:
        out["score"] = round(score, 4)
    return out


def item_dicts(ctx: ToolContext, items: list[MemoryItem], scores: list[float | None] | None = None) \
        -> list[dict[str, Any]]:
    """Items with their stable public ids and creation times (call inside a transaction)."""
    firsts = first_facts(ctx.store, Scope.everyone(), items)
    return [item_dict(_dated(m, firsts[m.id]), None if scores is None else scores[i], public_id(firsts[m.id].id))
            for i, m in enumerate(items)]


def born(ctx: ToolContext, items: list[MemoryItem]) -> list[MemoryItem]:
    """Items dated by their first version: an update keeps a memory's ``created_at``, as
    mem0's does (a later version's own time is its ``updated_at``)."""
    firsts = first_facts(ctx.store, Scope.everyone(), items)
    return [_dated(m, firsts[m.id]) for m in items]


def _dated(m: MemoryItem, first: Versioned) -> MemoryItem:
    return m if first.id == m.id else m.model_copy(update={"created_at": first.created_at})
