"""Applying a dream as one journaled batch, undoing it, and the per-scope lock.

Apply is one transaction: a crash leaves the old state or the new one. Every
row it touches is journaled with its prior state, so ``undo`` restores exactly
what was there (an export before the dream equals one after the undo).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal

from trulymem.dream.analyze import Analysis, Merge
from trulymem.dream.report import REMINDER
from trulymem.errors import Conflict, NotFound
from trulymem.locks import process_lock
from trulymem.memories import MEMORY_RELATION, MemoryItem
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
ReviewChoice = Literal["merge", "keep"] | None


@dataclass
class Decisions:
    """What a person chose on a report: a side per conflict (by index; missing = skip),
    per pair to review ``merge`` or ``keep`` (both, for good: not asked again; missing =
    skip for now), and which proposed merges and prunes (by index) they turned down."""
    conflicts: dict[int, Choice] = field(default_factory=dict)
    reviews: dict[int, ReviewChoice] = field(default_factory=dict)
    skip_merges: set[int] = field(default_factory=set)
    skip_prunes: set[int] = field(default_factory=set)


@dataclass
class Applied:
    run_id: str
    merged: int = 0
    pruned: int = 0
    resolved: int = 0
    skipped: int = 0
    reviewed: int = 0  # of the merges, pairs a person reviewed and chose to merge
    kept: list[list[str]] = field(default_factory=list)  # pairs to review kept apart for good
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
        self.created_set: set[tuple[str, str]] = set()

    def _facts(self, ids: list[str]) -> dict[str, Fact]:
        return {f.id: f for f in self.store.facts(FactQuery(scope=Scope.everyone(), ids=ids, validity="all"))}

    def touch(self, ids: list[str]) -> dict[str, Fact]:
        found = self._facts(ids)
        for i, f in found.items():
            self.before.setdefault(i, _fact_row(f))
        return found

    def changes(self) -> list[Change]:
        created = {c[1] for c in self.created}
        changed_ids = [i for i in self.before if i not in created]
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
    return _add_many(ctx, journal, scope, [TripletIn(subject=subject, relation=relation, object=obj, **fields)])[0]


def _add_many(ctx: ToolContext, journal: _Journal, scope: Scope, triplets: list[TripletIn]) -> list[str]:
    """Commit facts in ``scope``'s namespace as one batch, journaling what they create and
    the prior state of what they reinforce."""
    store = ctx.store
    keys = list(dict.fromkeys(k for t in triplets for k in (name_key(t.subject), name_key(t.object))))
    existing = {n.key: n.id for n in store.nodes(NodeQuery(scope=scope.namespace(), keys=keys))}
    triples = [(existing[name_key(t.subject)], relation_key(t.relation), existing[name_key(t.object)])
               for t in triplets if name_key(t.subject) in existing and name_key(t.object) in existing]
    if triples:
        journal.touch([f.id for f in store.active_facts_for(triples).values()])
    out: list[str] = []
    for fact, status in commit_triplets(ctx.within(scope), triplets):
        if status == "created" and ("fact", fact.id) not in journal.created_set:
            journal.created.append(("fact", fact.id))
            journal.created_set.add(("fact", fact.id))
        out.append(fact.id)
    created_nodes = {n.id: n.key for n in store.nodes(NodeQuery(scope=scope.namespace(), keys=keys))
                     if n.key not in existing}
    for node_id in created_nodes:
        if ("node", node_id) not in journal.created_set:
            journal.created.append(("node", node_id))
            journal.created_set.add(("node", node_id))
    return out


def _retire(store: Store, journal: _Journal, ids: list[str], now: Any, superseded_by: str | None = None) -> None:
    journal.touch(ids)
    store.invalidate_facts(ids, now, superseded_by=superseded_by)


STEP = 1000  # most memories changed per transaction: other writers wait for one step, not the whole run
# ... and about this long holding the write lock: on a loaded machine a step of STEP memories can
# outlast another writer's busy timeout, so the next steps shrink to fit (never below MIN_STEP).
STEP_S = 0.25
MIN_STEP = 50
FIRST_STEP = 200  # before any pace is known
# Between steps the lock is left free this long: SQLite's busy handler retries every 100 ms, and
# a writer waiting on a run that starts its next step at once would never get in.
PAUSE_S = 0.1


def apply_dream(ctx: ToolContext, analysis: Analysis, choices: dict[int, Choice] | Decisions, *,
                branch: str | None, auto: bool = False) -> Applied:
    """Apply merges, the chosen side of each conflict (``choices[i]`` for conflict i;
    missing or ``None`` = skip), the pairs to review chosen for merging, and prunes, in the
    seed's order, as one journaled run. ``choices`` may be a whole ``Decisions``.

    The run is written in steps of at most ``STEP`` memories (fewer when a step takes
    longer than ``STEP_S``), each one transaction with its journal entries, so other
    users' writers never wait long for the write lock. Each merge, resolution and prune
    is whole; the run is marked ``applying`` until its last step, so one interrupted
    half-way is reported and ``undo`` puts back what it did. Memories changed by someone
    else between steps are left alone (counted as skipped)."""
    store, now = ctx.store, ctx.now
    run = Applied(run_id=new_id())
    record = Run(id=run.run_id, kind=KIND, user_id=ctx.scope.user_id or "", agent_id=ctx.scope.agent_id,
                 app_id=ctx.scope.app_id, created_at=now, summary={"state": "applying", "auto": auto})
    decided = choices if isinstance(choices, Decisions) else Decisions(conflicts=dict(choices))
    plan, left_out = _plan(analysis, decided)
    unresolved = sum(1 for i in range(len(analysis.conflicts)) if decided.conflicts.get(i) is None)
    run.kept = [sorted((r.a.id, r.b.id)) for k, r in enumerate(analysis.reviews) if decided.reviews.get(k) == "keep"]
    run.skipped = unresolved + len(decided.skip_merges) + len(decided.skip_prunes) + left_out + \
        sum(1 for k in range(len(analysis.reviews)) if decided.reviews.get(k) is None)
    seq, budget = 0, min(STEP, FIRST_STEP)
    with store.transaction(write=False):
        _check_unchanged(store, analysis)  # the report still holds: else nothing is applied
    while True:
        step = plan.take(budget)
        last = plan.done()
        with store.transaction():
            started = time.perf_counter()  # once the lock is held: waiting for it is not holding it
            journal = _Journal(store)
            _apply_step(ctx, journal, analysis, plan.groups, step, branch, run)
            if last and auto and unresolved:
                run.reminder = _remind(ctx, journal, unresolved, branch)
            if ctx.embedder is not None:
                embed_dirty(store, ctx.embedder)
            changes = journal.changes()
            if last:
                record.summary = {"state": "done", "merged": run.merged, "pruned": run.pruned,
                                  "resolved": run.resolved, "skipped": run.skipped, "auto": auto,
                                  "reviewed": run.reviewed, "kept": run.kept}
            store.save_run(record, changes, first_seq=seq)
            seq += len(changes)
        if last:
            return run
        budget = _next_budget(step.used, time.perf_counter() - started)
        time.sleep(PAUSE_S)


def _next_budget(size: int, elapsed: float) -> int:
    """The next step's size: what the last step's pace fits in ``STEP_S``, within bounds."""
    fits = STEP if elapsed <= 0 else int(size * STEP_S / elapsed)
    return max(min(MIN_STEP, STEP), min(STEP, fits))


@dataclass
class _Step:
    merges: list[int] = field(default_factory=list)      # indexes into the plan's groups
    resolves: list[tuple[str, str]] = field(default_factory=list)  # (loser, winner)
    prunes: list[str] = field(default_factory=list)
    used: int = 0  # memories it changes


@dataclass
class _Plan:
    """The run's changes in the seed's order (merges, then resolved conflicts, then
    prunes), handed out a step at a time."""
    units: list[tuple[str, Any, int]]  # kind, what, memories changed
    groups: list[Merge]  # the merges to make: proposed ones not turned down, then reviewed ones chosen
    pos: int = 0

    def done(self) -> bool:
        return self.pos >= len(self.units)

    def take(self, budget: int) -> _Step:
        """The next step: whole units up to ``budget`` memories (one unit even if larger;
        an empty step when nothing is left, so a run always has at least one)."""
        step = _Step()
        while not self.done():
            kind, what, n = self.units[self.pos]
            if step.used and step.used + n > budget:
                break
            if kind == "merge":
                step.merges.append(what)
            elif kind == "resolve":
                step.resolves.append(what)
            else:
                step.prunes.append(what)
            step.used += n
            self.pos += 1
        return step


def _plan(a: Analysis, d: Decisions) -> tuple[_Plan, int]:
    """The changes to make, and how many chosen ones were left out because they overlap:
    each memory is merged once and plays one part (winner or loser) in the conflicts of
    a run; what overlaps is asked again on the next run."""
    groups = [g for k, g in enumerate(a.merges) if k not in d.skip_merges]
    taken = {m.id for g in groups for m in g.items}
    turned_down = {m.id for n in d.skip_merges for m in a.merges[n].items}
    left_out = 0
    for k, r in enumerate(a.reviews):
        if d.reviews.get(k) != "merge":
            continue
        ids = {m.id for m in r.merge.items}
        # a pair that joins a proposed merge replaces it with the larger one
        inside = [n for n, g in enumerate(groups) if not g.reviewed and {m.id for m in g.items} < ids]
        new = ids - ({m.id for m in groups[inside[0]].items} if inside else set())
        if ids & turned_down or new & taken:
            left_out += 1  # joins a merge turned down, or overlaps another chosen merge
            continue
        if inside:
            groups[inside[0]] = r.merge
        else:
            groups.append(r.merge)
        taken |= ids
    units: list[tuple[str, Any, int]] = [("merge", k, len(g.items)) for k, g in enumerate(groups)]
    winners: set[str] = set()
    losers: set[str] = set()
    for i, c in enumerate(a.conflicts):
        if d.conflicts.get(i) is None:
            continue
        winner, loser = (c.a, c.b) if d.conflicts[i] == "A" else (c.b, c.a)
        if {winner.id, loser.id} & taken or winner.id in losers or loser.id in losers | winners:
            left_out += 1  # merged this run, or a side already settled otherwise (A>B, B>C, C>A)
            continue
        winners.add(winner.id)
        losers.add(loser.id)
        units.append(("resolve", (loser.id, winner.id), 1))
    units += [("prune", p.item.id, 1) for k, p in enumerate(a.prunes) if k not in d.skip_prunes]
    return _Plan(units, groups), left_out


def _apply_step(ctx: ToolContext, journal: _Journal, a: Analysis, groups: list[Merge], step: _Step,
                branch: str | None, run: Applied) -> None:
    """One step's changes, leaving out any memory someone else changed since the report."""
    store, now = ctx.store, ctx.now
    ids = [m.id for k in step.merges for m in groups[k].items] + [x for x, _ in step.resolves] + step.prunes
    moved = _changed_since(store, a, ids + [w for _, w in step.resolves])
    merges = [k for k in step.merges if not {m.id for m in groups[k].items} & moved]
    resolves = [(x, w) for x, w in step.resolves if x not in moved and w not in moved]
    prunes = [x for x in step.prunes if x not in moved]
    run.skipped += len(step.merges) - len(merges) + len(step.resolves) - len(resolves) + len(step.prunes) - len(prunes)
    journal.touch([m.id for k in merges for m in groups[k].items] + [x for x, _ in resolves] + prunes)
    _apply_merges(ctx, journal, groups, merges, branch, run)
    if resolves:
        store.supersede_facts(resolves, now)
        run.resolved += len(resolves)
        run.retired += [x for x, _ in resolves]
    if prunes:
        store.invalidate_facts(prunes, now)
        run.pruned += len(prunes)
        run.retired += prunes


def kept_metadata(items: Sequence[MemoryItem], first: MemoryItem) -> dict[str, Any]:
    """Every member's metadata in one: a key the members give different values takes the
    value of ``first`` (the memory the merge is written from), else the newest member's; the
    members keep theirs in the history, and undo restores them."""
    out: dict[str, Any] = {}
    for m in sorted(items, key=lambda m: (m is first, m.updated_at)):  # later wins: first, then newest
        out.update(m.metadata)
    return out


def _apply_merges(ctx: ToolContext, journal: _Journal, all_groups: list[Merge], which: list[int],
                  branch: str | None, run: Applied) -> None:
    """Retire the merged members, write each group's merged memory in its members' namespace
    (one commit per namespace), then point the members at what replaced them."""
    store, now = ctx.store, ctx.now
    if not which:
        return
    groups = {k: all_groups[k] for k in which}
    members = journal.touch([m.id for g in groups.values() for m in g.items])
    store.invalidate_facts([m.id for g in groups.values() for m in g.items], now)  # first: a merged text may equal one
    by_scope: dict[Scope, list[tuple[int, TripletIn]]] = {}
    for k, g in groups.items():
        base = next((m for m in g.items if m.subject == g.subject and m.relation == g.relation), g.items[0])
        ids = [m.id for m in g.items]
        # the members' own metadata (a filter by it still finds the merged memory), then where it came from
        meta: dict[str, Any] = {**kept_metadata(g.items, base), "type": g.type, **({"branch": branch} if branch else {}),
                                "confidence": g.confidence, "source": SOURCE, "merged_from": ids,
                                "dream_run": run.run_id}
        scope = Scope(user_id=base.user_id, agent_id=base.agent_id, app_id=base.app_id,
                      session_id=ctx.scope.session_id)
        # A merge is not news: it keeps its members' event time (the earliest), never now.
        when = min(members[i].valid_at for i in ids)
        by_scope.setdefault(scope, []).append((k, TripletIn(
            subject=g.subject, relation=g.relation, object=g.object, type=None if g.type == "unknown" else g.type,
            confidence=g.confidence, source=SOURCE, metadata=meta, valid_at=when)))
    new: dict[int, str] = {}
    for scope, batch in by_scope.items():
        new.update(zip((k for k, _ in batch), _add_many(ctx, journal, scope, [t for _, t in batch])))
    store.supersede_facts([(m.id, new[k]) for k, g in groups.items() for m in g.items], now)
    for k, g in groups.items():
        run.merged += 1
        run.reviewed += g.reviewed
        run.added.append(new[k])
        run.retired += [m.id for m in g.items]


def _check_unchanged(store: Store, a: Analysis) -> None:
    ids = [m.id for g in a.merges for m in g.items] + [m.id for c in a.conflicts for m in (c.a, c.b)] + \
        [p.item.id for p in a.prunes] + [m.id for r in a.reviews for m in (r.a, r.b)]
    for i in sorted(_changed_since(store, a, ids)):
        raise Conflict(f"memory {i} changed since the report was made; run the dream again", field="memories")


def _changed_since(store: Store, a: Analysis, ids: list[str]) -> set[str]:
    """Which of ``ids`` are gone, retired or updated since the analysis read them."""
    now = {f.id: f for f in store.facts(FactQuery(scope=Scope.everyone(), ids=ids, validity="all"))}
    return {i for i in ids if (f := now.get(i)) is None or f.invalid_at is not None or f.updated_at != a.seen[i]}


def _reminders(store: Store, scope: Scope) -> dict[str, str]:
    """The scope's current reminder memories (id -> text), found by their source or wording."""
    found = store.facts(FactQuery(scope=scope, source=AUTO_SOURCE)) + store.facts(FactQuery(
        scope=scope, relation_keys=[relation_key(MEMORY_RELATION)], object_contains="mem0-dream detected"))
    return {f.id: f.object or "" for f in found
            if f.source == AUTO_SOURCE or (f.object or "").startswith("mem0-dream detected")}


def _remind(ctx: ToolContext, journal: _Journal, n: int, branch: str | None) -> str:
    """One reminder memory about skipped conflicts: an older one is superseded, not duplicated."""
    text = REMINDER.format(n=n)
    old = _reminders(ctx.store, ctx.scope)
    if text in old.values():
        return next(i for i, t in old.items() if t == text)
    meta = {"type": "task_learning", "source": AUTO_SOURCE, **({"branch": branch} if branch else {})}
    new = _add(ctx, journal, ctx.scope.writable(), "user", MEMORY_RELATION, text, type="task_learning",
               source=AUTO_SOURCE, metadata=meta)
    if old:
        _retire(ctx.store, journal, list(old), ctx.now, superseded_by=new)
    return new


def kept_apart(store: Store, scope: Scope) -> set[frozenset[str]]:
    """Pairs a person reviewed and kept as two memories, in runs not undone: not asked again."""
    runs = [r for r in store.runs(scope.user_id or "", KIND, limit=1000)
            if r.app_id == scope.app_id and r.agent_id == scope.agent_id and r.undone_at is None]
    return {frozenset(p) for r in runs for p in r.summary.get("kept", []) if isinstance(p, list) and len(p) == 2}


def interrupted(store: Store, scope: Scope) -> Run | None:
    """The scope's latest run, when it stopped before its last step (a crash or a kill)
    and was not undone: some of its steps are applied, each whole and journaled."""
    runs = [r for r in store.runs(scope.user_id or "", KIND, limit=20)
            if r.app_id == scope.app_id and r.agent_id == scope.agent_id]
    latest = runs[0] if runs else None
    return latest if latest and latest.undone_at is None and latest.summary.get("state") == "applying" else None


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


def dream_lock(store: Store, scope: Scope) -> AbstractContextManager[str]:
    """One dream per scope at a time (see ``trulymem.locks``)."""
    name = f"dream:{scope.user_id}:{scope.agent_id or ''}:{scope.app_id or ''}"
    return process_lock(store, name, LOCK_TTL_S, "another dream is running on this scope")


