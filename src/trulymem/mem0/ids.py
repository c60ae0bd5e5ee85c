"""A mem0 memory's public id: stable across updates, in UUID form.

mem0 keeps a memory's id when its text changes. trulymem keeps history by
superseding: an update invalidates the fact and writes a new one. The public id
of a memory is therefore the id of its *first version*, found by walking back
through the versions it replaced. A version's predecessor is the one memory
fact it superseded in the same write (invalidated at the moment the successor
was created): a dream's merge (several predecessors) starts a new memory, and a
conflict's winner (older than the loser's invalidation) keeps its own id.

A version that was invalidated with a successor that is *not* its next version was
retired into another memory: a dream merged it (it is in the successor's
``merged_from``) or a resolved conflict superseded it by the winner. Its id then
names no current memory (``retirement`` says which one took its place).

trulymem's ids are UUIDs (v7, time-ordered), as mem0's are. Rows written before
were 32 hex digits: those are shown in UUID form and accepted in either form.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from trulymem.model import EdgeKind, Fact, Scope
from trulymem.store.base import FactQuery, Store
from trulymem.tools.base import validate_as
from trulymem.tools.fields import Label

MAX_VERSIONS = 1000


class Versioned(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def relation(self) -> str: ...


def public_id(fact_id: str) -> str:
    """A stored id as mem0 shows it: a UUID (an older 32-hex id in UUID form)."""
    if len(fact_id) != 32:
        return fact_id
    try:
        return str(uuid.UUID(hex=fact_id))
    except ValueError:
        return fact_id


def stored_ids(memory_id: Any) -> list[str]:
    """The stored ids a public one may name: itself and, for a UUID in either form (dashed or
    32 hex digits), the other form (rows written before ids were UUIDs have the hex form)."""
    given: str = validate_as(Label, memory_id, "memory_id")
    if len(given) in (32, 36) and given.count("-") in (0, 4):
        try:
            parsed = uuid.UUID(given)
        except ValueError:
            return [given]
        return list(dict.fromkeys((given, str(parsed), parsed.hex)))  # either form names either kind of row
    return [given]


def predecessors(store: Store, scope: Scope, versions: Sequence[Versioned]) -> dict[str, Fact]:
    """Each version's previous version, where it has one (see the module docstring)."""
    if not versions:
        return {}
    found = store.facts(FactQuery(scope=scope, superseded_by=[v.id for v in versions], validity="all",
                                  kinds=[EdgeKind.FACT]))
    by_successor: dict[str, list[Fact]] = {}
    for p in found:
        by_successor.setdefault(p.superseded_by or "", []).append(p)
    out: dict[str, Fact] = {}
    for v in versions:
        prev = by_successor.get(v.id, [])
        if len(prev) == 1 and prev[0].invalid_at == v.created_at and prev[0].relation == v.relation:
            out[v.id] = prev[0]
    return out


def first_versions(store: Store, scope: Scope, versions: Sequence[Versioned]) -> dict[str, str]:
    """Each version's public id: its first version's id in UUID form (one query per step back)."""
    return {key: public_id(v.id) for key, v in first_facts(store, scope, versions).items()}


def first_facts(store: Store, scope: Scope, versions: Sequence[Versioned]) -> dict[str, Versioned]:
    """Each version's first version (itself when it has no predecessor): the memory's id and
    creation time, which an update keeps (one query per step back)."""
    first: dict[str, Versioned] = {v.id: v for v in versions}
    frontier: list[Versioned] = list(versions)
    seen = {v.id for v in versions}
    for _ in range(MAX_VERSIONS):
        prev = predecessors(store, scope, frontier)
        if not prev:
            break
        for key, v in first.items():
            if v.id in prev:
                first[key] = prev[v.id]
        frontier = [p for p in prev.values() if p.id not in seen]  # a cycle ends the walk
        seen |= {p.id for p in frontier}
    return first


def next_version(store: Store, scope: Scope, fact: Fact) -> Fact | None:
    """The version that replaced ``fact`` in the same memory (an update), if any."""
    if not fact.superseded_by:
        return None
    nxt = store.facts(FactQuery(scope=scope, ids=[fact.superseded_by], validity="all"))
    if not nxt or predecessors(store, scope, nxt).get(nxt[0].id) is None:
        return None
    return nxt[0]


def newest(store: Store, scope: Scope, fact: Fact) -> Fact:
    """The newest version of the memory ``fact`` belongs to (current, or invalidated by a
    delete or a retirement)."""
    seen = {fact.id}
    while len(seen) < MAX_VERSIONS and (nxt := next_version(store, scope, fact)) is not None and nxt.id not in seen:
        fact = nxt
        seen.add(fact.id)
    return fact


@dataclass(frozen=True)
class Retirement:
    """Where a retired memory went: ``reason`` is ``merged`` (a dream merged it into
    another) or ``superseded`` (another memory won a conflict with it); ``successor`` is
    the public id of the memory that took its place, ``current`` that of the memory
    holding it now (the successor, or what the successor was retired into in turn;
    ``None`` when that line ended in a delete)."""

    reason: str
    successor: str
    current: str | None


def retirement(store: Store, scope: Scope, newest_version: Fact) -> Retirement | None:
    """How a memory's newest version was retired into another memory, or ``None`` (it is
    current, or was deleted outright)."""
    f = newest_version
    if f.invalid_at is None or not f.superseded_by:
        return None
    found = store.facts(FactQuery(scope=scope, ids=[f.superseded_by], validity="all"))
    if not found:  # the successor was erased (a purge): only its id is left to name
        return Retirement("superseded", public_id(f.superseded_by), None)
    succ = found[0]
    reason = "merged" if f.id in (succ.metadata.get("merged_from") or []) else "superseded"
    successor = first_versions(store, scope, [succ])[succ.id]
    current: Fact | None = succ
    seen = {f.id}
    while current is not None and current.id not in seen and len(seen) < MAX_VERSIONS:
        seen.add(current.id)
        current = newest(store, scope, current)
        if current.invalid_at is None:
            return Retirement(reason, successor, first_versions(store, scope, [current])[current.id])
        nxt = store.facts(FactQuery(scope=scope, ids=[current.superseded_by], validity="all")) \
            if current.superseded_by else []
        current = nxt[0] if nxt else None
    return Retirement(reason, successor, None)


def chain(store: Store, scope: Scope, fact: Fact) -> list[Fact]:
    """Every version of the memory ``fact`` belongs to, oldest first, up to the newest
    (current, or invalidated by a delete)."""
    out = [fact]
    seen = {fact.id}
    while len(out) < MAX_VERSIONS:  # back to the first version
        prev = predecessors(store, scope, [out[0]]).get(out[0].id)
        if prev is None or prev.id in seen:
            break
        out.insert(0, prev)
        seen.add(prev.id)
    while len(out) < MAX_VERSIONS:  # forward to the newest
        nxt = next_version(store, scope, out[-1])
        if nxt is None or nxt.id in seen:
            break
        out.append(nxt)
        seen.add(nxt.id)
    return out
