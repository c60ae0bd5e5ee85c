"""Memories as flat items: the view mem0-style clients (and the dream pass) list.

Every current user fact (``EdgeKind.FACT``) is a memory. Its text is the object
for free-text memories (relation ``memory``, what ``add_memory`` stores) and
``subject relation object`` for triplets. Conversation records (facts of type
``episode``) and the structure owned by the task and persona tools are not
memories here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from trulymem.errors import InvalidInput
from trulymem.model import EdgeKind, Fact, Scope
from trulymem.recall.results import fact_text, shown_messages
from trulymem.store.base import FactQuery, Store
from trulymem.text import relation_key

MEMORY_RELATION = "memory"  # (owner) -[memory]-> (free text)
EPISODE_TYPE = "episode"
MAX_PAGE_SIZE = 1000
# trulymem's own fields of a memory, with their defaults: mem0-shaped answers show each in
# ``metadata`` where it differs from the default (where mem0 clients and the dream skill read them)
SHOWN_FIELDS: dict[str, Any] = {"type": None, "pinned": False, "confidence": 1.0, "speculation": False}


class MemoryItem(BaseModel):
    id: str
    memory: str
    hash: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    type: str | None = None
    pinned: bool = False
    confidence: float = 1.0
    speculation: bool = False
    subject: str
    relation: str
    object: str
    user_id: str
    agent_id: str | None = None
    app_id: str | None = None
    run_id: str | None = None
    created_at: datetime
    updated_at: datetime
    score: float | None = None


class MemoryPage(BaseModel):
    results: list[MemoryItem]
    total: int
    page: int | None = None
    page_size: int
    next_cursor: str | None = None


def shown_metadata(m: MemoryItem) -> dict[str, Any]:
    """A memory's metadata as mem0-shaped answers show it: what was stored with it, plus
    ``type``, ``pinned``, ``confidence`` and ``speculation`` where they differ from the default."""
    return {**m.metadata, **{k: getattr(m, k) for k, default in SHOWN_FIELDS.items() if getattr(m, k) != default}}


def metadata_value(m: MemoryItem, key: str) -> Any:
    """``metadata.<key>`` as a filter reads it: the shown metadata's value; for trulymem's own
    fields, the field's value (its default too, so ``{"metadata.pinned": false}`` matches)."""
    if key in SHOWN_FIELDS:
        value = getattr(m, key)
        return m.metadata.get(key, value) if value == SHOWN_FIELDS[key] else value
    return m.metadata.get(key)


def memory_text(f: Fact, shown: Mapping[str, str] | None = None) -> str:
    """A memory's text: a free-text memory's own words, else ``subject relation object`` with
    a message end shown by its words and time (``shown``: ``shown_messages``), never its id."""
    if relation_key(f.relation) == MEMORY_RELATION:
        return f.object or ""
    return fact_text(f, shown or {})


def as_items(store: Store, scope: Scope, facts: list[Fact]) -> list[MemoryItem]:
    """``as_item`` for each of ``facts``, their message ends read at once."""
    shown = shown_messages(store, scope, [f for f in facts if relation_key(f.relation) != MEMORY_RELATION])
    return [as_item(f, shown) for f in facts]


def as_item(f: Fact, shown: Mapping[str, str] | None = None) -> MemoryItem:
    text = memory_text(f, shown)
    return MemoryItem(
        id=f.id, memory=text, hash=hashlib.md5(text.encode()).hexdigest(), metadata=f.metadata, type=f.type,
        pinned=f.pinned, confidence=f.confidence, speculation=f.speculation, subject=f.subject or "",
        relation=f.relation, object=f.object or "", user_id=f.user_id, agent_id=f.agent_id, app_id=f.app_id,
        run_id=f.session_id, created_at=f.created_at, updated_at=f.updated_at,
    )


def is_memory(f: Fact) -> bool:
    return f.kind == EdgeKind.FACT and f.type != EPISODE_TYPE


def _query(scope: Scope) -> FactQuery:
    return FactQuery(scope=scope, kinds=[EdgeKind.FACT], validity="current")


def _check_size(page_size: int) -> None:
    if not 1 <= page_size <= MAX_PAGE_SIZE:
        raise InvalidInput(f"must be between 1 and {MAX_PAGE_SIZE}", field="page_size")


def list_memories(store: Store, scope: Scope, *, page_size: int = 100, cursor: str | None = None,
                  with_total: bool = True) -> MemoryPage:
    """One page of the scope's memories in the order they were stored; pass
    ``next_cursor`` back for the next page. ``total`` is -1 without ``with_total``."""
    _check_size(page_size)
    q = _query(scope)
    out: list[MemoryItem] = []
    while len(out) < page_size:
        facts, cursor = store.list_facts(q, cursor, page_size - len(out))
        out += as_items(store, scope, [f for f in facts if is_memory(f)])
        if cursor is None:
            break
    total = store.count_facts(q) - store.count_facts(FactQuery(scope=scope, kinds=[EdgeKind.FACT],
                                                               types=[EPISODE_TYPE])) if with_total else -1
    return MemoryPage(results=out, total=total, page_size=page_size, next_cursor=cursor)


def iter_memories(store: Store, scope: Scope, page_size: int = 200) -> Iterator[MemoryItem]:
    """Every memory of the scope, fetched a page at a time."""
    cursor: str | None = None
    while True:
        page = list_memories(store, scope, page_size=page_size, cursor=cursor, with_total=False)
        yield from page.results
        cursor = page.next_cursor
        if cursor is None:
            return
