"""Core benchmark: bulk ``memory_commit`` throughput and ``memory_recall`` latency.

Loads ``--facts`` triplets over ``--entities`` entity names for one user into a
fresh SQLite file (``--runs`` times), then times ``mem.recall`` at depth 1, 2, 3.
Prints figures only; it never asserts. Issue targets on the 2-core reference
machine: batch commit >= 20,000 facts/s, recall p95 <= 10 ms at depth 2.

Run from the repository root::

    python bench/bench_core.py                                   # 100k facts / 10k entities, 3 runs
    python bench/bench_core.py --facts 20000 --entities 2000 --runs 1   # quick
    python bench/bench_core.py --json                            # one JSON object
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from trulymem import TrulyMem

EN_RELATIONS = ["likes", "works_on", "lives_in", "knows", "owns", "visited", "manages", "reports_to",
                "studies", "plays", "reads", "watches", "prefers", "dislikes", "member_of", "created",
                "uses", "speaks", "friend_of", "located_in", "part_of", "depends_on", "mentions",
                "wants", "bought", "has_goal", "has_skill", "born_in", "married_to", "sibling_of",
                "child_of", "parent_of", "mentor_of"]
ZH_RELATIONS = ["喜欢", "讨厌", "住在", "认识", "工作于", "参与", "拥有", "去过", "学习", "想要",
                "朋友", "属于", "创建", "使用", "擅长", "计划", "提到"]
RELATIONS = EN_RELATIONS + ZH_RELATIONS  # 50
ZH_WORDS = ["猫娘", "成语", "北京", "项目", "上海", "咖啡", "音乐", "电影", "朋友", "老师",
            "学校", "公司", "小说", "游戏", "旅行", "美食", "花园", "书店", "城市", "接龙"]
TYPES = ["preference", "location", "relationship", "work", "skill", "event", "plan"]
HUBS = ["user", "AI", "北京", "python"]  # "user" is the subject of ~5% of all facts


def entity_names(n: int, rng: random.Random) -> list[str]:
    names = list(HUBS)
    for i in range(len(HUBS), n):
        k = i % 10
        if k < 3:
            names.append(f"entity_{i}")
        elif k < 5:
            names.append(f"person {i}")
        elif k < 7:
            names.append(f"project apollo {i}")
        else:
            names.append(f"{rng.choice(ZH_WORDS)}{rng.choice(ZH_WORDS)}{i}")
    return names


def make_triplets(n_facts: int, names: list[str], rng: random.Random) -> list[dict[str, Any]]:
    # Mildly skewed popularity so some nodes are much busier than others.
    weights = [1.0 / (r + 1) ** 0.6 for r in range(len(names))]
    cum = list(itertools.accumulate(weights))
    out: list[dict[str, Any]] = []
    for _ in range(n_facts):
        roll = rng.random()
        subject = "user" if roll < 0.05 else "AI" if roll < 0.07 else rng.choices(names, cum_weights=cum)[0]
        obj = rng.choices(names, cum_weights=cum)[0]
        t: dict[str, Any] = {"subject": subject, "relation": rng.choice(RELATIONS), "object": obj}
        if rng.random() < 0.2:
            t["confidence"] = round(rng.uniform(0.4, 0.95), 2)
        if rng.random() < 0.1:
            t["speculation"] = True
        if rng.random() < 0.3:
            t["type"] = rng.choice(TYPES)
        out.append(t)
    return out


def make_queries(n: int, names: list[str], rng: random.Random) -> list[str]:
    en = [x for x in names if x.isascii()]
    zh = [x for x in names if not x.isascii()]
    out: list[str] = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            out.append(rng.choice(en))
        elif kind == 1:
            out.append(rng.choice(zh))
        elif kind == 2:
            out.append(f"{rng.choice(names)}, {rng.choice(names)}")
        else:
            out.append(rng.choice(RELATIONS))
    return out


def pct(sorted_vals: list[float], q: float) -> float:
    return sorted_vals[min(len(sorted_vals) - 1, round(q * (len(sorted_vals) - 1)))]


def db_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def load(path: Path, triplets: list[dict[str, Any]], batch: int) -> dict[str, Any]:
    """Commit every triplet in batches, timing only the ``commit`` calls."""
    created = reinforced = 0
    batch_secs: list[float] = []
    with TrulyMem(path, user_id="bench") as mem:
        for i in range(0, len(triplets), batch):
            chunk = triplets[i : i + batch]
            t0 = time.perf_counter()
            res = mem.commit(chunk)
            batch_secs.append(time.perf_counter() - t0)
            created += len(res.created)
            reinforced += len(res.reinforced)
    secs = sum(batch_secs)
    return {"seconds": secs, "facts_per_s": len(triplets) / secs, "created": created, "reinforced": reinforced,
            "first_batch_facts_per_s": min(batch, len(triplets)) / batch_secs[0],
            "last_batch_facts_per_s": (len(triplets) - batch * (len(batch_secs) - 1)) / batch_secs[-1]}


def bench_recall(path: Path, queries: list[str], warmup: list[str]) -> dict[int, dict[str, float]]:
    out: dict[int, dict[str, float]] = {}
    with TrulyMem(path, user_id="bench") as mem:
        for depth in (1, 2, 3):
            for q in warmup:
                mem.recall(q, depth=depth, limit=20)
            times: list[float] = []
            returned = 0
            for q in queries:
                t0 = time.perf_counter()
                res = mem.recall(q, depth=depth, limit=20)
                times.append((time.perf_counter() - t0) * 1000)
                returned += len(res.facts)
            times.sort()
            out[depth] = {"p50_ms": pct(times, 0.50), "p95_ms": pct(times, 0.95), "p99_ms": pct(times, 0.99),
                          "mean_ms": statistics.fmean(times), "avg_facts": returned / len(queries)}
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--entities", type=int, default=10_000)
    ap.add_argument("--batch", type=int, default=5000, help="triplets per commit call (max 5000)")
    ap.add_argument("--runs", type=int, default=3, help="full loads into fresh databases")
    ap.add_argument("--queries", type=int, default=300, help="recall queries per depth")
    ap.add_argument("--db-dir", type=Path, default=None, help="where to put the databases (default: a temp dir)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    if args.runs < 1 or not 1 <= args.batch <= 5000:
        ap.error("--runs must be >= 1 and --batch between 1 and 5000")

    rng = random.Random(args.seed)
    names = entity_names(args.entities, rng)
    triplets = make_triplets(args.facts, names, rng)
    queries = make_queries(args.queries, names, rng)
    warmup = make_queries(20, names, rng)
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
               "platform": platform.platform()}
    if not args.json:
        print(f"trulymem bench_core | {machine['cpus']} CPUs | Python {machine['python']} | "
              f"SQLite {machine['sqlite']} | {machine['platform']}")
        print(f"{args.facts:,} facts, {args.entities:,} entities, batch {args.batch}, {args.runs} run(s), "
              f"{args.queries} queries/depth, seed {args.seed}")

    tmp = tempfile.TemporaryDirectory(prefix="trulymem-bench-") if args.db_dir is None else None
    db_dir = Path(tmp.name) if tmp else args.db_dir
    db_dir.mkdir(parents=True, exist_ok=True)
    try:
        runs: list[dict[str, Any]] = []
        for r in range(args.runs):
            path = db_dir / f"bench_run{r + 1}.sqlite"
            for old in db_dir.glob(path.name + "*"):
                old.unlink()
            run = load(path, triplets, args.batch)
            runs.append(run)
            if not args.json:
                print(f"  load run {r + 1}: {run['seconds']:7.2f} s {run['facts_per_s']:>9,.0f} facts/s "
                      f"(first batch {run['first_batch_facts_per_s']:,.0f}, last {run['last_batch_facts_per_s']:,.0f}; "
                      f"created {run['created']:,}, reinforced {run['reinforced']:,})")
        recall = bench_recall(path, queries, warmup)
        result = {"machine": machine, "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
                  "load_runs": runs, "median_facts_per_s": statistics.median(x["facts_per_s"] for x in runs),
                  "db_bytes": db_size(path), "recall": recall}
    finally:
        if tmp:
            tmp.cleanup()

    if args.json:
        print(json.dumps(result, indent=2))
        return result
    print(f"commit median: {result['median_facts_per_s']:,.0f} facts/s   (target >= 20,000)")
    print(f"db size: {result['db_bytes'] / 2**20:.1f} MiB (file + WAL)")
    print(f"{'depth':>5} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'mean ms':>8} {'facts':>6}")
    for d, s in recall.items():
        print(f"{d:>5} {s['p50_ms']:8.2f} {s['p95_ms']:8.2f} {s['p99_ms']:8.2f} {s['mean_ms']:8.2f} "
              f"{s['avg_facts']:6.1f}")
    print(f"recall p95 at depth 2: {recall[2]['p95_ms']:.2f} ms   (target <= 10 ms)")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
