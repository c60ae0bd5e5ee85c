"""A person's choices that overlap are applied once: each memory merged once, and one
part (winner or loser) per memory among the conflicts of a run. What overlaps is left
for the next run, counted as skipped; undo still puts everything back."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.conftest import Clock
from trulymem import TrulyMem
from trulymem.dream import Decisions, analyze, apply_dream, dream_embedder, load_retention, undo_dream
from trulymem.memories import MEMORY_RELATION, iter_memories
from trulymem.store.base import FactQuery


def note(text: str) -> dict[str, Any]:
    return {"subject": "user", "relation": MEMORY_RELATION, "object": text, "type": "decision"}


def export(mem: TrulyMem) -> str:
    buf = io.StringIO()
    mem.export_jsonl(buf)
    return buf.getvalue()


def test_overlapping_review_merges_are_made_once(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="u", app_id="p", embedder="hashing") as mem:
        mem.commit([note(t) for t in ("Use PostgreSQL for auth", "Auth DB is PostgreSQL",
                                      "The auth service keeps its data in PostgreSQL", "Auth data lives in PostgreSQL")],
                   supersede=False)
        before = export(mem)
        items = list(iter_memories(mem.store, mem.scope))
        a = analyze(items, load_retention(), datetime.now(UTC), embedder=dream_embedder("auto", None))
        assert len(a.reviews) >= 2  # pairs that share memories
        applied = apply_dream(mem.context(), a, Decisions(reviews={k: "merge" for k in range(len(a.reviews))}),
                              branch=None)
        assert len(applied.retired) == len(set(applied.retired))  # nothing retired twice
        left_out = len(a.reviews) - applied.reviewed
        assert left_out > 0 and applied.skipped == left_out + len(a.conflicts)  # conflicts: not chosen
        facts = mem.store.facts(FactQuery(scope=mem.scope, ids=applied.retired, validity="all"))
        assert all(f.superseded_by in applied.added for f in facts)  # each points at the one that replaced it
        undo_dream(mem.context())
        assert export(mem) == before


def test_conflict_choices_that_go_round_settle_each_memory_once(db_path: Path) -> None:
    clock = Clock(datetime.now(UTC) - timedelta(days=3))
    with TrulyMem(db_path, user_id="u", app_id="p", clock=clock, embedder="hashing") as mem:
        for target in ("ECS", "Vercel", "Netlify"):
            mem.commit([note(f"Deploy to {target}")], supersede=False)
            clock.advance(days=1)
        items = list(iter_memories(mem.store, mem.scope))
        a = analyze(items, load_retention(), clock())
        assert len(a.conflicts) == 3
        applied = apply_dream(mem.context(), a, Decisions(conflicts={0: "A", 1: "B", 2: "A"}), branch=None)
        left = [m.memory for m in iter_memories(mem.store, mem.scope)]
        # ECS over Vercel stands; Netlify over ECS and Vercel over Netlify would undo it: left for next time
        assert applied.resolved == 1 and applied.skipped == 2 and sorted(left) == ["Deploy to ECS", "Deploy to Netlify"]
        facts = mem.store.facts(FactQuery(scope=mem.scope, ids=applied.retired, validity="all"))
        assert {f.superseded_by for f in facts} <= {m.id for m in iter_memories(mem.store, mem.scope)}
