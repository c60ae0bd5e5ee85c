"""Recall's neighbour caps (fanout_seed / fanout_hop / frontier): what each setting costs and what it finds.

    python bench/bench_recall_caps.py scale --db /tmp/perf/recall1m.sqlite --caps 12/4/16,12/2/12,4/2/8
    python bench/bench_recall_caps.py locomo ../shared/bench/locomo/locomo-dev.json --split tune --caps 12/4/16,12/2/12

``scale``: bench_recall_scale.py's 200 queries (depth 2, limit 20, hashing vectors through the saved
index) on one connection, every query asked once per setting in a rotated order, ``--reps`` times:
paired, so the machine's drift hits every setting alike (the setting that runs second on a query
finds its pages in SQLite's cache: rotation spreads that). Prints neighbour rows, CPU and wall per
recall. ``locomo``: R@10 overall, by category and by conversation at each ``--depths``, one ingest
per conversation. Prints figures only; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import pct  # noqa: E402
from bench_recall_scale import workload  # noqa: E402

import trulymem.recall.config as recall_config  # noqa: E402
from trulymem import TrulyMem  # noqa: E402
from trulymem.recall import RecallConfig  # noqa: E402


def caps(spec: str, base: RecallConfig) -> RecallConfig:
    """``SEED/HOP/FRONTIER`` as a config."""
    seed, hop, frontier = (int(x) for x in spec.split("/"))
    return replace(base, fanout_seed=seed, fanout_hop=hop, frontier=frontier)


def scale(db: Path, specs: list[str], reps: int, depth: int, facts: int, seed: int) -> None:
    os.environ["TRULYMEM_ANN_EXACT"] = ""  # the saved index, as bench_recall_scale.py's "index" setting
    _, _, queries, warmup = workload(facts, seed, 200)  # bench_recall_scale.py's queries
    configs = {s: caps(s, RecallConfig()) for s in specs}
    wall: dict[str, list[list[float]]] = {s: [[] for _ in queries] for s in specs}  # per query, per rep
    cpu: dict[str, list[list[float]]] = {s: [[] for _ in queries] for s in specs}
    rows = dict.fromkeys(specs, 0)
    load = os.getloadavg()[0]
    with TrulyMem(db, user_id="bench", embedder="hashing") as mem:
        walk = mem.store.neighbor_edges
        current = [specs[0]]

        def counted(*args: Any, **kwargs: Any) -> Any:
            found = walk(*args, **kwargs)
            rows[current[0]] += len(found)
            return found

        mem.store.neighbor_edges = counted  # type: ignore[method-assign]
        for q in warmup:
            for s in specs:
                recall_config.PRESETS["balanced"] = configs[s]  # what memory_recall reads per call
                mem.recall(q, depth=depth, limit=20)
        rows = dict.fromkeys(specs, 0)
        for r in range(reps):
            for i, q in enumerate(queries):
                k = (i + r) % len(specs)
                for s in specs[k:] + specs[:k]:
                    recall_config.PRESETS["balanced"], current[0] = configs[s], s
                    t0, c0 = time.perf_counter(), time.process_time()
                    mem.recall(q, depth=depth, limit=20)
                    wall[s][i].append((time.perf_counter() - t0) * 1000)
                    cpu[s][i].append((time.process_time() - c0) * 1000)
    recall_config.PRESETS["balanced"] = RecallConfig()
    print(f"{db}, depth {depth}, {len(queries)} queries x {reps} per setting, load average {load:.2f} -> "
          f"{os.getloadavg()[0]:.2f}\n")
    print("Per query the median of its reps (a page the OS evicted between runs makes one rep's wall time "
          "hundreds of ms: reported beside as the worst rep's p95).\n")
    print("| fanout_seed / fanout_hop / frontier | neighbour rows per recall | CPU ms mean / p50 / p95 | "
          "wall ms p50 / p95 | worst rep's wall p95 |\n|---|---|---|---|---|")
    for s in specs:
        c = sorted(statistics.median(x) for x in cpu[s])
        w = sorted(statistics.median(x) for x in wall[s])
        worst = max(pct(sorted(x[r] for x in wall[s]), 0.95) for r in range(reps))
        mean = statistics.fmean(v for x in cpu[s] for v in x)
        print(f"| {s} | {rows[s] / (reps * len(queries)):.0f} | {mean:.2f} / {pct(c, 0.5):.2f} / {pct(c, 0.95):.2f} "
              f"| {pct(w, 0.5):.2f} / {pct(w, 0.95):.2f} | {worst:.2f} |")


def locomo(path: str, specs: list[str], split: str, depths: list[int], limit: int) -> None:
    from trulymem.bench import locomo as bench
    from trulymem.embed import get_embedder

    base = replace(recall_config.PRESETS["balanced"], seed_nodes=50, vector_seeds=50)  # as the bench's variants
    chosen = [bench.Variant(f"{s} depth {d}", caps(s, base), d) for s in specs for d in depths]
    bench.variants = lambda base=None: chosen  # only these, one ingest
    report = bench.run_locomo(path, embedder=get_embedder("auto"), split=split, limit=limit)
    convs = report["conversation_ids"]
    first = report["variants"][chosen[0].name]
    cats = list(first["recall_at_10_by_category"])
    print(f"LoCoMo {split}, limit {limit}, embedder {report['embedder']}, {report['questions']} questions\n")
    print("| setting | R@10 | " + " | ".join(cats) + " | " + " | ".join(convs) + " | CPU ms p50 / p95 |")
    print("|---" * (3 + len(cats) + len(convs)) + "|")
    for v in chosen:
        got = report["variants"][v.name]
        print(f"| {v.name} | {got['recall_at'][10]} | "
              + " | ".join(str(got["recall_at_10_by_category"][c]) for c in cats) + " | "
              + " | ".join(str(got["recall_at_10_by_conversation"][c]) for c in convs)
              + f" | {got['cpu_ms']['p50']} / {got['cpu_ms']['p95']} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    s = sub.add_parser("scale", help="cost on bench_recall_scale.py's database, settings paired query by query")
    s.add_argument("--db", type=Path, required=True, help="a database bench_recall_scale.py built")
    s.add_argument("--reps", type=int, default=3)
    s.add_argument("--depth", type=int, default=2)
    s.add_argument("--facts", type=int, default=1_000_000, help="as the database was built with")
    s.add_argument("--seed", type=int, default=7, help="as the database was built with")
    lo = sub.add_parser("locomo", help="LoCoMo R@10 overall, by category and by conversation")
    lo.add_argument("path")
    lo.add_argument("--split", choices=["tune", "heldout", "all"], default="tune")
    lo.add_argument("--depths", default="1,2", help="comma-separated recall depths (the bench's own is 1)")
    lo.add_argument("--limit", type=int, default=20)
    for p in (s, lo):
        p.add_argument("--caps", required=True, help="comma-separated SEED/HOP/FRONTIER settings, e.g. 12/2/12")
    args = ap.parse_args(argv)
    specs = args.caps.split(",")
    if args.what == "scale":
        scale(args.db, specs, args.reps, args.depth, args.facts, args.seed)
    else:
        locomo(args.path, specs, args.split, [int(d) for d in args.depths.split(",")], args.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
