"""Dream detection quality on a labelled fixture (used by ``bench_dream.py``).

Reads both fixture formats: the first ones (label lists of ids) and
``dream_fixture_v2.json`` (labels with categories, ``age_days``, ``pinned``,
look-alikes, expired ids). Scores pair precision and recall, recall per
category, and the invariants: look-alike pairs hit, labelled contradictions
proposed as merges, expired memories merged instead of pruned, pinned memories
merged or pruned, expired memories pruned.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from itertools import combinations
from pathlib import Path
from typing import Any

from trulymem import TrulyMem
from trulymem.dream import analyze, dream_embedder, load_retention
from trulymem.dream.analyze import JUDGE_CACHES
from trulymem.llm.base import LLM, LLMResponse, Message
from trulymem.memories import MEMORY_RELATION, iter_memories

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def _labels(raw: list[Any]) -> list[tuple[list[str], str]]:
    """``[[ids…]]`` or ``[{"ids": […], "category": …}]`` as (ids, category)."""
    return [(g["ids"], g.get("category", "all")) if isinstance(g, dict) else (g, "all") for g in raw]


def _pairs(groups: list[list[str]]) -> set[frozenset[str]]:
    return {frozenset(p) for g in groups for p in combinations(g, 2)}


def load(mem: TrulyMem, data: dict[str, Any], clock: list[datetime]) -> tuple[dict[str, str], list[list[str]]]:
    """Commit the fixture's memories one at a time, each dated by its ``age_days`` (or a
    minute after the previous); returns fact id -> fixture id, and the groups of fixture
    memories that were one fact already at write time (the same text again reinforces it)."""
    ids: dict[str, str] = {}
    same: dict[str, list[str]] = defaultdict(list)
    for k, m in enumerate(data["memories"]):
        clock[0] = NOW - timedelta(days=m["age_days"]) if "age_days" in m else NOW - timedelta(days=30, minutes=-k)
        res = mem.commit([{"subject": m.get("subject", "user"), "relation": m.get("relation", MEMORY_RELATION),
                           "object": m["text"], "type": m["type"], "pinned": bool(m.get("pinned"))}],
                         supersede=False)  # contradictions as they reach the dream (imports, other tools)
        fact = res.facts[0].id
        ids.setdefault(fact, m["id"])
        same[fact].append(m["id"])
    return ids, [g for g in same.values() if len(g) > 1]


def pr(found: set[frozenset[str]], want: set[frozenset[str]]) -> dict[str, Any]:
    tp = len(found & want)
    return {"precision": round(tp / len(found), 3) if found else 1.0,
            "recall": round(tp / len(want), 3) if want else 1.0, "found": len(found), "labelled": len(want),
            "false_positives": sorted(sorted(p) for p in found - want),
            "missed": sorted(sorted(p) for p in want - found)}


def by_category(found: set[frozenset[str]], labelled: list[tuple[list[str], str]]) -> dict[str, str]:
    hit: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for ids, cat in labelled:
        for p in _pairs([ids]):
            hit[cat][1] += 1
            hit[cat][0] += p in found
    return {cat: f"{h}/{n}" for cat, (h, n) in sorted(hit.items())}


class LabelJudge(LLM):
    """A chat model that answers the dream's judge prompt from the fixture's labels: how far
    the pipeline gets when a model judges every pair it is sent correctly (an upper bound for
    "with a model"), through the real prompt, parsing and cache. Unlabelled pairs: distinct."""

    model = "labels"

    def __init__(self, data: dict[str, Any], text: dict[str, str]) -> None:
        self.verdicts: dict[frozenset[str], str] = {}
        for ids, _ in _labels(data["duplicates"]):  # an id missing was merged as it was written
            for x, y in combinations(ids, 2):
                if x in text and y in text:
                    self.verdicts[frozenset((text[x], text[y]))] = "duplicate"
        for ids, _ in _labels(data["contradictions"]):
            if ids[0] in text and ids[1] in text:
                self.verdicts[frozenset((text[ids[0]], text[ids[1]]))] = "contradiction"
        self.pairs_judged = 0

    def _complete(self, messages: list[Message], tools: list[dict[str, Any]], on_text: Any) -> LLMResponse:
        answers = []
        for line in str(messages[-1]["content"]).splitlines():
            m = re.match(r"(\d+)\. A: (.*) \| B: (.*)$", line)
            if m:
                self.pairs_judged += 1
                answers.append({"pair": int(m.group(1)),
                                "verdict": self.verdicts.get(frozenset((m.group(2), m.group(3))), "distinct")})
        return LLMResponse(content=json.dumps(answers))


def quality(fixture: Path, embedder: str | None, llm: Any = None) -> dict[str, Any]:
    """Detection quality on a labelled fixture, the memory stored as a plain install stores
    it; ``embedder`` is the dream's (``auto``: what ``trulymem dream`` uses, ``none``: words only)."""
    data = json.loads(fixture.read_text(encoding="utf-8"))
    JUDGE_CACHES.clear()  # each fixture judged afresh
    clock = [NOW]
    with tempfile.TemporaryDirectory() as tmp, TrulyMem(Path(tmp) / "q.db", user_id="q", app_id="fixture",
                                                        clock=lambda: clock[0]) as mem:
        ids, at_write = load(mem, data, clock)
        items = list(iter_memories(mem.store, mem.scope))
        if llm == "labels":  # the texts as the judge sees them ("user lives_in Suzhou" for a triplet)
            llm = LabelJudge(data, {ids[m.id]: m.memory for m in items})
        a = analyze(items, load_retention(), NOW, embedder=dream_embedder(embedder or "none", mem.embedder),
                    **({"llm": llm} if llm else {}))
    dups, cons = _labels(data["duplicates"]), _labels(data["contradictions"])
    looks = _labels(data.get("look_alikes", []))
    # a fixture text written twice is one stored fact: what is done to it is done to both ids
    alias = {g[0]: g for g in at_write}

    def every(fact_ids: list[str]) -> list[str]:
        return [x for i in fact_ids for x in alias.get(i, [i])]

    def pairs_of(a_id: str, b_id: str) -> set[frozenset[str]]:
        return {frozenset((x, y)) for x in every([ids[a_id]]) for y in every([ids[b_id]]) if x != y}
    merged_groups = [every([ids[m.id] for m in g.items]) for g in a.merges] + at_write
    found_d = _pairs(merged_groups)
    found_c = {p for c in a.conflicts for p in pairs_of(c.a.id, c.b.id)}
    found_r = {p for r in getattr(a, "reviews", []) for p in pairs_of(r.a.id, r.b.id)}
    want_d = _pairs([g for g, _ in dups])
    want_c = _pairs([g for g, _ in cons])
    merged_ids = {i for g in merged_groups for i in g}
    pruned = {ids[p.item.id] for p in a.prunes}
    expired = set(data.get("expired", []))
    pinned = set(data.get("pinned", [])) | {m["id"] for m in data["memories"] if m.get("pinned")}
    return {
        "fixture": fixture.name, "memories": len(items), "judge": getattr(llm, "model", None) if llm else None,
        "model_pairs": getattr(llm, "pairs_judged", None),
        "duplicates": pr(found_d, want_d) | {"by_category": by_category(found_d, dups)},
        # what a person is shown: merged, or put in front of them to review
        "found": pr(found_d | found_r, want_d) | {"by_category": by_category(found_d | found_r, dups)},
        "review": {"pairs": len(found_r), "duplicates": len(found_r & want_d),
                   "look_alikes": len(found_r & _pairs([g for g, _ in looks])),
                   "contradictions": len(found_r & _pairs([g for g, _ in cons]))},
        "look_alikes_merged": sorted(sorted(p) for p in _pairs([g for g, _ in looks]) & found_d),
        "contradictions": pr(found_c, want_c) | {"by_category": by_category(found_c, cons)},
        "look_alikes_hit": sorted(sorted(p) for p in _pairs([g for g, _ in looks]) & (found_d | found_c)),
        "look_alikes": len(looks),
        "contradictions_merged": sorted(sorted(p) for p in want_c & found_d),
        "expired_merged": sorted(expired & merged_ids),
        "expired_pruned": f"{len(expired & pruned)}/{len(expired)}",
        "pinned_touched": sorted(pinned & (merged_ids | pruned)),
        "pinned_in_conflicts": sorted(pinned & {i for p in found_c for i in p}),
        "conflicts_total": len(a.conflicts), "conflicts_more": getattr(a, "conflicts_more", 0),
    }


def print_quality(q: dict[str, Any], embedder: str, held_out: bool = False) -> None:
    """The figures; for a held-out fixture no pair lists and no look-alike ids, so nobody
    tunes the detector on what it got wrong there."""
    d, c = q["duplicates"], q["contradictions"]
    judged = f", ambiguous pairs judged by {q['judge']}" if q.get("judge") else ", no model"
    sent = f" ({q['model_pairs']} pairs sent)" if q.get("model_pairs") is not None else ""
    print(f"quality on {q['fixture']} ({q['memories']} memories, embedder {embedder}{judged}{sent}):")
    f, r = q["found"], q["review"]
    print(f"  merges         precision {d['precision']:.3f}  recall {d['recall']:.3f}  "
          f"({d['found']} pairs merged, {d['labelled']} labelled; target precision >= 0.97)  {d['by_category']}")
    print(f"  found (merged or in review) recall {f['recall']:.3f} (target >= 0.75)  {f['by_category']}; review: "
          f"{r['pairs']} pairs, {r['duplicates']} labelled duplicates, {r['look_alikes']} look-alikes, "
          f"{r['contradictions']} contradictions")
    print(f"  contradictions precision {c['precision']:.3f}  recall {c['recall']:.3f}  "
          f"({c['found']} pairs found, {c['labelled']} labelled; targets 0.85 / 0.75)  {c['by_category']}")
    if q["look_alikes"]:
        print(f"  look-alike pairs merged: {len(q['look_alikes_merged'])} of {q['look_alikes']} (target 0); merged or "
              f"flagged: {len(q['look_alikes_hit'])} {'' if held_out else q['look_alikes_hit']}")
    print(f"  labelled contradictions proposed as merges: {len(q['contradictions_merged'])} (target 0); "
          f"expired merged: {len(q['expired_merged'])} (target 0); expired pruned {q['expired_pruned']}; "
          f"pinned merged or pruned: {len(q['pinned_touched'])} (target 0); "
          f"pinned in conflicts: {len(q['pinned_in_conflicts'])}")
    if held_out:
        return
    for name, part in (("duplicates", d), ("contradictions", c)):
        if part["false_positives"]:
            print(f"  {name} false positives: {part['false_positives']}")
        if part["missed"]:
            print(f"  {name} missed: {part['missed']}")
