"""Dream benchmark: detection quality on a labelled fixture, and analysis at scale.

Quality: ``bench/dream_fixture.json`` (written for trulymem while building the
detector) and ``bench/dream_fixture_heldout.json`` (written separately and never
tuned on): paraphrased duplicates, contradictions and look-alike distractors,
English and Chinese, free-text memories and triplets. Prints pair precision and recall for duplicates and contradictions,
no LLM. Targets: duplicates precision >= 0.95 and recall >= 0.85, contradictions
precision >= 0.9.

Scale: fetch + analysis time and peak memory for 10k and 100k memories (each size
in its own process, so peak RSS is that size's own). Target: 100k in <= 60 s.

    python bench/bench_dream.py [--sizes 10000 100000] [--runs 3] [--embedder hashing] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from itertools import combinations
from pathlib import Path
from typing import Any

from trulymem import TrulyMem
from trulymem.dream import analyze, load_retention
from trulymem.memories import MEMORY_RELATION, iter_memories

FIXTURES = [Path(__file__).with_name("dream_fixture.json"),           # tuned against while building
            Path(__file__).with_name("dream_fixture_heldout.json")]   # written separately, never tuned on


def _pairs(groups: list[list[str]]) -> set[frozenset[str]]:
    return {frozenset(p) for g in groups for p in combinations(g, 2)}


def quality(fixture: Path, embedder: str | None) -> dict[str, Any]:
    data = json.loads(fixture.read_text(encoding="utf-8"))
    start = datetime(2026, 1, 1, tzinfo=UTC)
    tick = [start]

    def clock() -> datetime:
        tick[0] += timedelta(minutes=1)
        return tick[0]

    with tempfile.TemporaryDirectory() as tmp, TrulyMem(Path(tmp) / "q.db", user_id="q", app_id="fixture",
                                                        clock=clock, embedder=embedder) as mem:
        ids: dict[str, str] = {}
        for m in data["memories"]:  # one at a time: later ones are newer
            res = mem.commit([{"subject": m.get("subject", "user"), "relation": m.get("relation", MEMORY_RELATION),
                               "object": m["text"], "type": m["type"]}],
                             supersede=False)  # contradictions as they reach the dream (imported, other tools)
            ids[res.created[0]] = m["id"]
        items = list(iter_memories(mem.store, mem.scope))
        a = analyze(items, load_retention(), clock(), embedder=mem.embedder)
    found_d = _pairs([[ids[m.id] for m in g.items] for g in a.merges])
    found_c = {frozenset((ids[c.a.id], ids[c.b.id])) for c in a.conflicts}
    want_d, want_c = _pairs(data["duplicates"]), _pairs(data["contradictions"])

    def pr(found: set[frozenset[str]], want: set[frozenset[str]]) -> dict[str, Any]:
        tp = len(found & want)
        return {"precision": round(tp / len(found), 3) if found else 1.0, "recall": round(tp / len(want), 3),
                "found": len(found), "labelled": len(want),
                "false_positives": sorted(sorted(p) for p in found - want),
                "missed": sorted(sorted(p) for p in want - found)}

    return {"fixture": fixture.name, "memories": len(items), "duplicates": pr(found_d, want_d),
            "contradictions": pr(found_c, want_c)}


def synthetic(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """Project notes over a Zipf-distributed vocabulary of 5,000 words (as real notes
    are): ~5% reworded duplicates of an earlier note, ~1% with one value swapped, the
    rest distinct."""
    rng = random.Random(seed)
    syll = "ka ri to mu sen lo pa vi de qu ran tel bo ni zor ex ma fi lu gra".split()
    vocab = sorted({"".join(rng.choices(syll, k=rng.randint(2, 4))) for _ in range(6000)})[:5000]
    weights = [1 / (r + 1) for r in range(len(vocab))]
    types = ["decision", "process", "session_state", "task_learning", "pref"]
    out: list[dict[str, Any]] = []
    while len(out) < n:
        words = rng.choices(vocab, weights, k=rng.randint(6, 10))
        t = rng.choice(types)
        out.append({"subject": "user", "relation": MEMORY_RELATION, "object": " ".join(words), "type": t})
        r = rng.random()
        if r < 0.05:  # the same note again, reworded: one word dropped, two swapped
            w2 = words[:]
            w2.pop(rng.randrange(len(w2)))
            i = rng.randrange(len(w2) - 1)
            w2[i], w2[i + 1] = w2[i + 1], w2[i]
            out.append({"subject": "user", "relation": MEMORY_RELATION, "object": " ".join(w2), "type": t})
        elif r < 0.06:  # one value changed
            w2 = words[:]
            w2[-1] = rng.choice(vocab[1000:])
            out.append({"subject": "user", "relation": MEMORY_RELATION, "object": " ".join(w2), "type": t})
    return out[:n]


def scale_once(n: int, embedder: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "s.db"
        clock_start = datetime.now(UTC) - timedelta(days=120)
        with TrulyMem(db, user_id="s", app_id="p", clock=lambda: clock_start, embedder=embedder) as mem:
            rows = synthetic(n)
            for i in range(0, n, 5000):
                mem.commit(rows[i : i + 5000], supersede=False)
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        with TrulyMem(db, user_id="s", app_id="p", embedder=embedder) as mem:
            t0 = time.perf_counter()
            with mem.store.transaction(write=False):
                items = list(iter_memories(mem.store, mem.scope, page_size=200))
            t1 = time.perf_counter()
            a = analyze(items, load_retention(), datetime.now(UTC), embedder=mem.embedder)
            t2 = time.perf_counter()
        rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"memories": len(items), "fetch_s": round(t1 - t0, 2), "analyze_s": round(t2 - t1, 2),
            "total_s": round(t2 - t0, 2), "merges": len(a.merges), "conflicts": len(a.conflicts),
            "prunes": len(a.prunes), "peak_rss_mib": round(rss1 / 1024, 1),
            "rss_growth_mib": round((rss1 - rss0) / 1024, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--embedder", default="hashing", help="hashing (default), none, use, e5 …")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # internal: one scale run in this process
    args = ap.parse_args(argv)
    embedder = None if args.embedder == "none" else args.embedder
    if args.one:
        print(json.dumps(scale_once(args.one, embedder)))
        return 0
    qs = [quality(f, embedder) for f in FIXTURES]
    scale: dict[int, list[dict[str, Any]]] = {}
    for n in args.sizes:
        for _ in range(args.runs):
            out = subprocess.run([sys.executable, __file__, "--one", str(n), "--embedder", args.embedder],
                                 capture_output=True, text=True, check=True)
            scale.setdefault(n, []).append(json.loads(out.stdout.strip().splitlines()[-1]))
    summary = {"embedder": args.embedder, "quality": qs, "scale": {
        n: {"runs": len(rs), "total_s_median": statistics.median(r["total_s"] for r in rs),
            "fetch_s_median": statistics.median(r["fetch_s"] for r in rs),
            "analyze_s_median": statistics.median(r["analyze_s"] for r in rs),
            "peak_rss_mib_max": max(r["peak_rss_mib"] for r in rs),
            "merges": rs[0]["merges"], "conflicts": rs[0]["conflicts"], "prunes": rs[0]["prunes"]}
        for n, rs in scale.items()}}
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
        return 0
    for q in qs:
        d, c = q["duplicates"], q["contradictions"]
        print(f"quality on {q['fixture']} ({q['memories']} memories, embedder {args.embedder}, no LLM):")
        print(f"  duplicates     precision {d['precision']:.3f}  recall {d['recall']:.3f}  "
              f"({d['found']} pairs found, {d['labelled']} labelled; targets 0.95 / 0.85)")
        print(f"  contradictions precision {c['precision']:.3f}  recall {c['recall']:.3f}  "
              f"({c['found']} pairs found, {c['labelled']} labelled; target precision 0.9)")
        for name, part in (("duplicates", d), ("contradictions", c)):
            if part["false_positives"]:
                print(f"  {name} false positives: {part['false_positives']}")
            if part["missed"]:
                print(f"  {name} missed: {part['missed']}")
    for n, s in summary["scale"].items():
        print(f"scale {n:,} memories: fetch+analysis median {s['total_s_median']} s (fetch {s['fetch_s_median']} s, "
              f"analysis {s['analyze_s_median']} s; {s['runs']} runs), peak RSS {s['peak_rss_mib_max']} MiB; "
              f"found {s['merges']} merges, {s['conflicts']} conflicts, {s['prunes']} prunes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
