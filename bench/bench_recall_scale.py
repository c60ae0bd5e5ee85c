"""memory_recall at scale: ~1M facts and ~1M node vectors in one reopened database, depth 2, vectors on.

The database is built once (``--db``; reused while it exists, so later runs only measure):
``--facts`` triplets for one user, subjects drawn (Zipf-like) from ``--facts // 10`` entity
names, objects mostly new short texts, so there is about one node — and one hashing vector —
per fact. Building ends by building and saving the HNSW index of those vectors. Then recall
(depth 2, limit 20, hashing vectors on) is timed on the reopened database, ``--runs`` times
``--queries`` queries, in two settings: the index (``TRULYMEM_ANN_EXACT`` empty) and the
default (the hashing embedder's vectors searched exactly). Medians of runs, CPU beside wall;
``--profile`` adds a cProfile of one run: the top functions by own time and the share of
time per package. Prints figures only; it never asserts. Issue 17's target: p95 <= 10 ms.

    python bench/bench_recall_scale.py --db /tmp/recall1m.sqlite                 # 1M: builds for ~1 h once
    python bench/bench_recall_scale.py --db /tmp/r100k.sqlite --facts 100000 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import json
import os
import pstats
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import RELATIONS, entity_names, make_queries, pct  # noqa: E402

from trulymem import TrulyMem  # noqa: E402

WORDS = ("jazz tea Lisbon Porto chess hiking Python Rust deploy staging Friday review docs backup database "
         "auth token cache queue worker metrics alerts budget invoice design mobile search ranking").split()
USER = "bench"


def triplets(n: int, names: list[str], seed: int, batch: int) -> Iterator[list[dict[str, Any]]]:
    """``n`` triplets in batches: 80% of objects are new texts (a node each), the rest entities."""
    rng = random.Random(seed)
    cum = list(itertools.accumulate(1.0 / (r + 1) ** 0.6 for r in range(len(names))))
    out: list[dict[str, Any]] = []
    for i in range(n):
        subject = "user" if rng.random() < 0.05 else rng.choices(names, cum_weights=cum)[0]
        obj = (f"{rng.choice(WORDS)} {rng.choice(WORDS)} note {i}" if rng.random() < 0.8
               else rng.choices(names, cum_weights=cum)[0])
        out.append({"subject": subject, "relation": rng.choice(RELATIONS), "object": obj})
        if len(out) == batch:
            yield out
            out = []
    if out:
        yield out


def load(path: Path, n: int, names: list[str], seed: int) -> dict[str, Any]:
    """Commit the facts for one user, embedding every new node with the hashing embedder."""
    t0, c0 = time.perf_counter(), time.process_time()
    with TrulyMem(path, user_id=USER, embedder="hashing") as mem:
        done = 0
        for chunk in triplets(n, names, seed, 5000):
            mem.commit(chunk)
            done += len(chunk)
            if done % 100_000 == 0:
                print(f"  loaded {done:,} facts, {time.perf_counter() - t0:.0f} s", flush=True)
    info = {"facts": n, "load_s": time.perf_counter() - t0, "load_cpu_s": time.process_time() - c0}
    Path(str(path) + ".load.json").write_text(json.dumps(info))
    return info


def build_index(path: Path) -> dict[str, Any]:
    """Build and save the vector index of the user's scope (what a first search starts in the background)."""
    t0, c0 = time.perf_counter(), time.process_time()
    os.environ["TRULYMEM_ANN_EXACT"] = ""
    with TrulyMem(path, user_id=USER, embedder="hashing") as mem:
        vectors = mem.store.build_vector_index(mem.scope)  # type: ignore[attr-defined]  # SQLite only
    info = {"vectors": vectors, "index_s": time.perf_counter() - t0, "index_cpu_s": time.process_time() - c0}
    Path(str(path) + ".index.json").write_text(json.dumps(info))
    return info


def counts(path: Path) -> dict[str, int]:
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        return {"facts": conn.execute("SELECT count(*) FROM facts").fetchone()[0],
                "nodes": conn.execute("SELECT count(*) FROM nodes").fetchone()[0],
                "vectors": conn.execute("SELECT count(*) FROM node_vectors").fetchone()[0]}
    finally:
        conn.close()


def measure(path: Path, queries: list[str], warmup: list[str], ann: bool,
            profile: cProfile.Profile | None = None) -> dict[str, float]:
    if ann:
        os.environ["TRULYMEM_ANN_EXACT"] = ""
    else:
        os.environ.pop("TRULYMEM_ANN_EXACT", None)
    with TrulyMem(path, user_id=USER, embedder="hashing") as mem:
        t0 = time.perf_counter()
        for q in warmup:
            mem.recall(q, depth=2, limit=20)
        first_s = time.perf_counter() - t0
        times: list[float] = []
        returned = 0
        c0 = time.process_time()
        if profile:
            profile.enable()
        for q in queries:
            t0 = time.perf_counter()
            res = mem.recall(q, depth=2, limit=20)
            times.append((time.perf_counter() - t0) * 1000)
            returned += len(res.facts)
        if profile:
            profile.disable()
        cpu = (time.process_time() - c0) * 1000 / len(queries)
    times.sort()
    return {"p50_ms": pct(times, 0.5), "p95_ms": pct(times, 0.95), "p99_ms": pct(times, 0.99),
            "cpu_mean_ms": cpu, "avg_facts": returned / len(queries), "warmup_s": first_s}


def where_time_goes(profile: cProfile.Profile, top: int) -> None:
    stats = pstats.Stats(profile)
    total = stats.total_tt  # type: ignore[attr-defined]
    rows = stats.stats  # type: ignore[attr-defined]
    by_pkg: Counter[str] = Counter()
    for (file, _, _), (_, _, tt, _, _) in rows.items():
        parts = Path(file).parts
        pkg = "/".join(parts[parts.index("trulymem") + 1:][:2]) if "trulymem" in parts else (
            "sqlite3 (C)" if "sqlite3" in file else "numpy/usearch" if "numpy" in file or "usearch" in file
            else "builtins" if file == "~" else "other")
        by_pkg[pkg] += tt
    print(f"  profile: {total:.2f} s of own time; by module:")
    for pkg, tt in by_pkg.most_common(12):
        print(f"    {100 * tt / total:5.1f}%  {pkg}")
    print("  top functions by own time:")
    ranked = sorted(rows.items(), key=lambda kv: -kv[1][2])[:top]
    for (file, line, fn), (_, calls, tt, ct, _) in ranked:
        short = "/".join(Path(file).parts[-3:]) if file != "~" else "~"
        print(f"    {100 * tt / total:5.1f}%  own {tt:6.2f} s  cum {ct:6.2f} s  {calls:>8} calls  {short}:{line}({fn})")


def workload(facts: int, seed: int, n_queries: int) -> tuple[random.Random, list[str], list[str], list[str]]:
    """The generator, entity names, queries and warm-up queries of a database of ``facts`` built with ``seed``."""
    rng = random.Random(seed)
    names = entity_names(max(10, facts // 10), rng)
    return rng, names, make_queries(n_queries, names, rng), make_queries(20, names, rng)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--db", type=Path, required=True, help="the database file (built when missing, else reused)")
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--exact", action=argparse.BooleanOptionalAction, default=True,
                    help="also time the default, exact search of hashing vectors (slow at 1M)")
    ap.add_argument("--profile", action="store_true", help="cProfile one run with the index")
    ap.add_argument("--new-queries", action="store_true",
                    help="draw new queries for every run: the same queries again find their pages in SQLite's "
                         "page cache, which flatters the later runs")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    rng, names, queries, warmup = workload(args.facts, args.seed, args.queries)  # load() draws from none of them
    if not args.db.exists():
        print(f"loading {args.db} ({args.facts:,} facts) ...", flush=True)
        print("  " + json.dumps(load(args.db, args.facts, names, args.seed)), flush=True)
    if not Path(str(args.db) + ".index.json").exists():
        print("building the vector index ...", flush=True)
        print("  " + json.dumps(build_index(args.db)), flush=True)
    built = [Path(str(args.db) + s).read_text() for s in (".load.json", ".index.json") if Path(str(args.db) + s).exists()]
    print(f"{args.db}: {counts(args.db)}; built: {' '.join(built)}; load average {os.getloadavg()[0]:.2f}", flush=True)
    settings = [("index", True)] + ([("exact", False)] if args.exact else [])
    for label, ann in settings:
        runs = [measure(args.db, make_queries(args.queries, names, rng) if args.new_queries and i else queries,
                        warmup, ann) for i in range(args.runs)]
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        print(f"depth 2, {label}: p50 {med['p50_ms']:.2f} ms, p95 {med['p95_ms']:.2f} ms (runs "
              f"{[round(r['p95_ms'], 2) for r in runs]}), p99 {med['p99_ms']:.2f} ms, CPU {med['cpu_mean_ms']:.2f} ms "
              f"per recall, {med['avg_facts']:.1f} facts returned, first 20 recalls {med['warmup_s']:.2f} s",
              flush=True)
    if args.profile:
        prof = cProfile.Profile()
        measure(args.db, queries, warmup, True, prof)
        where_time_goes(prof, 25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
