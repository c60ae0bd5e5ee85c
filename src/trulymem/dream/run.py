"""Applying a dream as one journaled batch, undoing it, and the per-scope lock.

Apply is one transaction: a crash leaves the old state or the new one. Every
row it touches is journaled with its prior state, so ``undo`` restores exactly
what was there (an export before the dream equals one after the undo).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from trulymem.dream.analyze import Analysis
from trulymem.dream.report import REMINDER
from trulymem.errors import Conflict, NotFound
from trulymem.memories import MEMORY_RELATION, iter_memories
from trulymem.model import Fact, Node, Scope, new_id, to_json
from trulymem.store.base import Change, FactQuery, NodeQuery, Run, Store
from trulymem.text import name_key, relation_key
from trulymem.tools.base import ToolContext, embed_dirty
from trulymem.tools.commit import TripletIn, commit_triplets

KIND = "dream"
LOCK_TTL_S = 30 * 60
SOURCE = "mem0-dream"
AUTO_SOURCE = "mem0-dream-auto"
Choice = Literal["A", "B"] | None


@dataclass
class Applied:
    run_id: str
    merged: int = 0
    pruned: int = 0
    resolved: int = 0
    skipped: int = 0
    added: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    reminder: str | None = None


def _fact_row(f: Fact) -> dict[str, Any]:
    return {"record": "fact", **to_json(f, exclude={"subject", "object"})}


def _node_row(n: Node) -> dict[str, Any]:
    return {"record": "node", **to_json(n)}


class _Journal:
    """Records each touched row once: its state before the run, and after."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.before: dict[str, dict[str, Any]] = {}
        self.created: list[tuple[Literal["fact", "node"], str]] = []

    def _facts(self, ids: list[str]) -> dict[str, Fact]:
        return {f.id: f for f in self.store.facts(FactQuery(scope=Scope.everyone(), ids=ids, validity="all"))}

    def touch(self, ids: list[str]) -> dict[str, Fact]:
        found = self._facts(ids)
        for i, f in found.items():
            self.before.setdefault(i, _fact_row(f))
        return found

    def changes(self) -> list[Change]:
        changed_ids = [i for i in self.before if i not in {c[1] for c in self.created}]
        facts = self._facts(changed_ids + [i for r, i in self.created if r == "fact"])
        nodes = {n.id: n for n in self.store.nodes(NodeQuery(scope=Scope.everyone(),
                                                             ids=[i for r, i in self.created if r == "node"]))}
        out = [Change("fact", i, "changed", before=self.before[i], after=_fact_row(facts[i])) for i in changed_ids]
        for record, i in self.created:
            after = _fact_row(facts[i]) if record == "fact" else _node_row(nodes[i])
            out.append(Change(record, i, "created", after=after))
        return out


def _add(ctx: ToolContext, journal: _Journal, scope: Scope, subject: str, relation: str, obj: str,
         **fields: Any) -> str:
    """Commit one fact in ``scope``'s namespace, journaling what it creates or reinforces."""
    store = ctx.store
    keys = [name_key(subject), name_key(obj)]
    existing = {n.key: n.id for n in store.nodes(NodeQuery(scope=scope.namespace(), keys=keys))}
    if len(existing) == 2 or keys[0] == keys[1] and existing:
        same = store.active_facts_for([(existing[keys[0]], relation_key(relation), existing[keys[1]])])
        journal.touch([f.id for f in same.values()])
    fact, status = commit_triplets(ctx.within(scope), [TripletIn(subject=subject, relation=relation, object=obj, **fields)])[0]
    if status == "created":
        journal.created.append(("fact", fact.id))
    for key, node_id in ((keys[0], fact.subject_id), (keys[1], fact.object_id)):
        if key not in existing and ("node", node_id) not in journal.created:
            journal.created.append(("node", node_id))
    return fact.id


def _retire(store: Store, journal: _Journal, ids: list[str], now: Any, superseded_by: str | None = None) -> None:
    journal.touch(ids)
    store.invalidate_facts(ids, now, superseded_by=superseded_by)


def apply_dream(ctx: ToolContext, analysis: Analysis, choices: dict[int, Choice], *, branch: str | None,
                auto: bool = False) -> Applied:
    """Apply merges, the chosen side of each conflict (``choices[i]`` for conflict i;
    missing or ``None`` = skip) and prunes, in the seed's order, as one journaled run."""
    store, now = ctx.store, ctx.now
    run = Applied(run_id=new_id())
    journal = _Journal(store)
    with store.transaction():
        _check_unchanged(store, analysis)
        for g in analysis.merges:
            base = next((m for m in g.items if m.subject == g.subject and m.relation == g.relation), g.items[0])
            ids = [m.id for m in g.items]
            members = journal.touch(ids)
            _retire(store, journal, ids, now)
            # the seed's add_memory metadata, plus where the merge came from
            meta: dict[str, Any] = {"type": g.type, **({"branch": branch} if branch else {}),
                                    "confidence": g.confidence, "source": SOURCE, "merged_from": ids,
                                    "dream_run": run.run_id}
            scope = Scope(user_id=base.user_id, agent_id=base.agent_id, app_id=base.app_id, session_id=ctx.scope.session_id)
            # A merge is not news: it keeps its members' event time (the earliest), never now.
            when = min(f.valid_at for f in members.values())
            new = _add(ctx, journal, scope, g.subject, g.relation, g.object, type=None if g.type == "unknown" else g.type,
                       confidence=g.confidence, source=SOURCE, metadata=meta, valid_at=when)
            store.invalidate_facts(ids, now, superseded_by=new)
            run.merged += 1
            run.added.append(new)
            run.retired += ids
        for i, c in enumerate(analysis.conflicts):
            choice = choices.get(i)
            if choice is None:
                run.skipped += 1
                continue
            winner, loser = (c.a, c.b) if choice == "A" else (c.b, c.a)
            _retire(store, journal, [loser.id], now, superseded_by=winner.id)
            run.resolved += 1
            run.retired.append(loser.id)
        if analysis.prunes:
            ids = [p.item.id for p in analysis.prunes]
            _retire(store, journal, ids, now)
            run.pruned = len(ids)
            run.retired += ids
        if auto and run.skipped:
            run.reminder = _remind(ctx, journal, run.skipped, branch)
        if ctx.embedder is not None:
            embed_dirty(store, ctx.embedder)
        changes = journal.changes()
        store.save_run(Run(id=run.run_id, kind=KIND, user_id=ctx.scope.user_id or "", agent_id=ctx.scope.agent_id,
                           app_id=ctx.scope.app_id, created_at=now,
                           summary={"merged": run.merged, "pruned": run.pruned, "resolved": run.resolved,
                                    "skipped": run.skipped, "auto": auto}), changes)
    return run


def _check_unchanged(store: Store, a: Analysis) -> None:
    ids = [m.id for g in a.merges for m in g.items] + [m.id for c in a.conflicts for m in (c.a, c.b)] + \
        [p.item.id for p in a.prunes]
    now = {f.id: f for f in store.facts(FactQuery(scope=Scope.everyone(), ids=ids, validity="all"))}
    for i in ids:
        f = now.get(i)
        if f is None or f.invalid_at is not None or f.updated_at != a.seen[i]:
            raise Conflict(f"memory {i} changed since the report was made; run the dream again", field="memories")


def _remind(ctx: ToolContext, journal: _Journal, n: int, branch: str | None) -> str:
    """One reminder memory about skipped conflicts: an older one is superseded, not duplicated."""
    text = REMINDER.format(n=n)
    old = [m for m in iter_memories(ctx.store, ctx.scope)
           if (m.metadata.get("source") == AUTO_SOURCE or m.relation == MEMORY_RELATION and
               m.memory.startswith("mem0-dream detected"))]
    if any(m.memory == text for m in old):
        return next(m.id for m in old if m.memory == text)
    meta = {"type": "task_learning", "source": AUTO_SOURCE, **({"branch": branch} if branch else {})}
    new = _add(ctx, journal, ctx.scope.writable(), "user", MEMORY_RELATION, text, type="task_learning",
               source=AUTO_SOURCE, metadata=meta)
    if old:
        _retire(ctx.store, journal, [m.id for m in old], ctx.now, superseded_by=new)
    return new


def undo_dream(ctx: ToolContext, run_id: str | None = None) -> Run:
    """Put back exactly what a dream run changed (default: the scope's latest one not
    yet undone). Refuses if anything it touched has changed since."""
    store = ctx.store
    with store.transaction():
        runs = [r for r in store.runs(ctx.scope.user_id or "", KIND, limit=1000)
                if r.app_id == ctx.scope.app_id and r.agent_id == ctx.scope.agent_id]
        if run_id is None:
            run = next((r for r in runs if r.undone_at is None), None)
            if run is None:
                raise NotFound("no dream run to undo in this scope", field="run_id")
        else:
            run = next((r for r in runs if r.id == run_id), None)
            if run is None:
                raise NotFound(f"no dream run {run_id!r} in this scope", field="run_id")
            if run.undone_at is not None:
                raise Conflict(f"dream run {run_id} was already undone at {run.undone_at.isoformat()}", field="run_id")
        changes = store.run_changes(run.id)
        facts = {f.id: _fact_row(f) for f in store.facts(FactQuery(
            scope=Scope.everyone(), ids=[c.item_id for c in changes if c.record == "fact"], validity="all"))}
        nodes = {n.id: _node_row(n) for n in store.nodes(NodeQuery(
            scope=Scope.everyone(), ids=[c.item_id for c in changes if c.record == "node"]))}
        for c in changes:
            current = (facts if c.record == "fact" else nodes).get(c.item_id)
            if current != c.after:
                raise Conflict(f"{c.record} {c.item_id} changed after dream run {run.id}; undoing it would lose "
                               "that change", field="run_id")
        store.delete_facts([c.item_id for c in changes if c.record == "fact" and c.action == "created"])
        store.delete_orphan_nodes([c.item_id for c in changes if c.record == "node" and c.action == "created"])
        store.restore_rows([c.before for c in changes if c.action == "changed" and c.before is not None])
        store.mark_run_undone(run.id, ctx.now)
    return run


@contextmanager
def dream_lock(store: Store, scope: Scope) -> Iterator[str]:
    """One dream per scope at a time. A holder that died (same host, process gone)
    or whose lock expired does not block. Wall-clock time: the memory's clock may be simulated."""
    now = datetime.now(UTC)
    name = f"dream:{scope.user_id}:{scope.agent_id or ''}:{scope.app_id or ''}"
    owner = f"{socket.gethostname()}:{os.getpid()}:{new_id()}"
    holder = store.try_lock(name, owner, now, LOCK_TTL_S)
    if holder is not None and _dead(holder):
        store.unlock(name, holder)
        holder = store.try_lock(name, owner, now, LOCK_TTL_S)
    if holder is not None:
        host, pid = holder.split(":")[:2]
        raise Conflict(f"another dream is running on this scope (process {pid} on {host}); wait for it to finish "
                       f"(a stuck lock expires after {LOCK_TTL_S // 60} minutes)", field="lock")
    try:
        yield owner
    finally:
        store.unlock(name, owner)


def _dead(holder: str) -> bool:
    host, pid = (holder.split(":") + ["", ""])[:2]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
