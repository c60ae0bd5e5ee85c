"""Core benchmark: bulk ``memory_commit`` throughput and ``memory_recall`` latency,
on fresh databases and on databases that have lived.

For each scale in ``--scales`` (facts; entities are a tenth of them) it loads the
triplets for one user into fresh SQLite files (``--fresh-runs`` times), then closes the
database (``close()`` runs ``PRAGMA optimize``, which writes planner statistics) and
reopens it: ``--extra`` more triplets are committed into a copy of the aged file
(``--runs`` times) and ``mem.recall`` is timed at depth 1, 2, 3 on it. Medians, CPU
time beside wall. Prints figures only; it never asserts. Issue targets on the 2-core
reference machine: reopened 1M-fact database commits >= 15,000 facts/s, recall p95
<= 10 ms at depth 2 (with vectors on: ``--vectors``).

Run from the repository root::

    python bench/bench_core.py                                   # 10k and 100k facts, 3 runs
    python bench/bench_core.py --scales 1000000 --fresh-runs 1   # 1M: a fresh load takes minutes
    python bench/bench_core.py --scales 20000 --runs 1 --fresh-runs 1   # quick
    python bench/bench_core.py --vectors --json                  # hashing vectors on, one JSON object
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import shutil
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


def load(path: Path, triplets: list[dict[str, Any]], batch: int, embedder: str | None) -> dict[str, Any]:
    """Commit every triplet in batches, timing only the ``commit`` calls (wall and CPU)."""
    created = reinforced = 0
    batch_secs: list[float] = []
    cpu = 0.0
    with TrulyMem(path, user_id="bench", embedder=embedder) as mem:
        for i in range(0, len(triplets), batch):
            chunk = triplets[i : i + batch]
            t0, c0 = time.perf_counter(), time.process_time()
            res = mem.commit(chunk)
            batch_secs.append(time.perf_counter() - t0)
            cpu += time.process_time() - c0
            created += len(res.created)
            reinforced += len(res.reinforced)
    secs = sum(batch_secs)
    return {"seconds": secs, "cpu_seconds": cpu, "facts_per_s": len(triplets) / secs,
            "facts_per_cpu_s": len(triplets) / cpu, "created": created, "reinforced": reinforced,
            "first_batch_facts_per_s": min(batch, len(triplets)) / batch_secs[0],
            "last_batch_facts_per_s": (len(triplets) - batch * (len(batch_secs) - 1)) / batch_secs[-1]}


def bench_recall(path: Path, queries: list[str], warmup: list[str], embedder: str | None) -> dict[int, dict[str, float]]:
    out: dict[int, dict[str, float]] = {}
    with TrulyMem(path, user_id="bench", embedder=embedder) as mem:
        for depth in (1, 2, 3):
            for q in warmup:
                mem.recall(q, depth=depth, limit=20)
            times: list[float] = []
            returned = 0
            c0 = time.process_time()
            for q in queries:
                t0 = time.perf_counter()
                res = mem.recall(q, depth=depth, limit=20)
                times.append((time.perf_counter() - t0) * 1000)
                returned += len(res.facts)
            cpu = (time.process_time() - c0) * 1000 / len(queries)
            times.sort()
            out[depth] = {"p50_ms": pct(times, 0.50), "p95_ms": pct(times, 0.95), "p99_ms": pct(times, 0.99),
                          "mean_ms": statistics.fmean(times), "cpu_mean_ms": cpu, "avg_facts": returned / len(queries)}
    return out


def has_statistics(path: Path) -> bool:
    conn = sqlite3.connect(path)
    try:
        return bool(conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone()[0]
                    and conn.execute("SELECT count(*) FROM sqlite_stat1").fetchone()[0])
    finally:
        conn.close()


def bench_scale(n: int, args: argparse.Namespace, db_dir: Path) -> dict[str, Any]:
    """Fresh loads, then commits and recall on the reopened (optimized) database."""
    rng = random.Random(args.seed)
    names = entity_names(max(10, n // args.entity_ratio), rng)
    triplets = make_triplets(n, names, rng)
    extra = make_triplets(args.extra, names, random.Random(args.seed + 1))
    queries = make_queries(args.queries, names, rng)
    warmup = make_queries(20, names, rng)
    embedder = "hashing" if args.vectors else None
    fresh: list[dict[str, Any]] = []
    aged = db_dir / f"aged_{n}.sqlite"
    for r in range(args.fresh_runs):
        path = db_dir / f"fresh_{n}.sqlite"
        for old in db_dir.glob(path.name + "*"):
            old.unlink()
        fresh.append(load(path, triplets, args.batch, embedder))  # closing runs PRAGMA optimize
        say(args, f"  {n:,} facts, fresh load {r + 1}: {fresh[-1]['facts_per_s']:,.0f} facts/s "
                  f"({fresh[-1]['facts_per_cpu_s']:,.0f} per CPU s)")
    for old in db_dir.glob(aged.name + "*"):
        old.unlink()
    path.rename(aged)
    vec_dir = Path(str(path) + ".vectors")
    if vec_dir.exists():
        vec_dir.rename(Path(str(aged) + ".vectors"))
    stats = has_statistics(aged)
    reopened: list[dict[str, Any]] = []
    for r in range(args.runs):
        work = db_dir / f"work_{n}.sqlite"
        shutil.copyfile(aged, work)
        reopened.append(load(work, extra, args.batch, embedder))
        say(args, f"  {n:,} facts, reopened commit of {args.extra:,} {r + 1}: {reopened[-1]['facts_per_s']:,.0f} facts/s "
                  f"({reopened[-1]['facts_per_cpu_s']:,.0f} per CPU s)")
        for old in db_dir.glob(work.name + "*"):
            shutil.rmtree(old) if old.is_dir() else old.unlink()
    recall = [bench_recall(aged, queries, warmup, embedder) for _ in range(args.runs)]
    return {
        "facts": n, "entities": len(names), "vectors": args.vectors, "planner_statistics": stats,
        "db_bytes": db_size(aged), "fresh_runs": fresh, "reopened_runs": reopened,
        "fresh_facts_per_s": statistics.median(x["facts_per_s"] for x in fresh),
        "fresh_facts_per_cpu_s": statistics.median(x["facts_per_cpu_s"] for x in fresh),
        "reopened_facts_per_s": statistics.median(x["facts_per_s"] for x in reopened),
        "reopened_facts_per_cpu_s": statistics.median(x["facts_per_cpu_s"] for x in reopened),
        "recall": {d: {k: statistics.median(run[d][k] for run in recall) for k in recall[0][d]} for d in (1, 2, 3)},
    }


def say(args: argparse.Namespace, text: str) -> None:
    if not args.json:
        print(text, flush=True)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--scales", default="10000,100000", help="comma-separated fact counts (1000000 takes long)")
    ap.add_argument("--entity-ratio", type=int, default=10, help="facts per entity name")
    ap.add_argument("--extra", type=int, default=20_000, help="triplets committed into the reopened database")
    ap.add_argument("--batch", type=int, default=5000, help="triplets per commit call (max 5000)")
    ap.add_argument("--runs", type=int, default=3, help="reopened commits and recall runs per scale")
    ap.add_argument("--fresh-runs", type=int, default=3, help="full loads into fresh databases per scale")
    ap.add_argument("--queries", type=int, default=300, help="recall queries per depth")
    ap.add_argument("--vectors", action="store_true", help="hashing-embedder vectors on (commit embeds, recall searches)")
    ap.add_argument("--db-dir", type=Path, default=None, help="where to put the databases (default: a temp dir)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    if args.runs < 1 or args.fresh_runs < 1 or not 1 <= args.batch <= 5000:
        ap.error("--runs and --fresh-runs must be >= 1 and --batch between 1 and 5000")
    scales = [int(x) for x in args.scales.split(",")]
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
               "platform": platform.platform(), "load_average": os.getloadavg()}
    say(args, f"trulymem bench_core | {machine['cpus']} CPUs | Python {machine['python']} | SQLite {machine['sqlite']} | "
              f"load average {machine['load_average'][0]:.2f}")
    say(args, f"scales {scales}, batch {args.batch}, {args.fresh_runs} fresh load(s), {args.runs} reopened run(s) of "
              f"{args.extra:,} facts, {args.queries} queries/depth, vectors {'on' if args.vectors else 'off'}")
    tmp = tempfile.TemporaryDirectory(prefix="trulymem-bench-") if args.db_dir is None else None
    db_dir = Path(tmp.name) if tmp else args.db_dir
    db_dir.mkdir(parents=True, exist_ok=True)
    try:
        results = [bench_scale(n, args, db_dir) for n in scales]
    finally:
        if tmp:
            tmp.cleanup()
    result = {"machine": machine, "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
              "scales": results}
    if args.json:
        print(json.dumps(result, indent=2))
        return result
    print(f"\n{'facts':>9} {'fresh f/s':>10} {'(CPU)':>8} {'reopened f/s':>13} {'(CPU)':>8} {'stats':>6} "
          f"{'d1 p95':>7} {'d2 p50':>7} {'d2 p95':>7} {'d2 CPU':>7} {'d3 p95':>7}")
    for r in results:
        rc = r["recall"]
        print(f"{r['facts']:>9,} {r['fresh_facts_per_s']:>10,.0f} {r['fresh_facts_per_cpu_s']:>8,.0f} "
              f"{r['reopened_facts_per_s']:>13,.0f} {r['reopened_facts_per_cpu_s']:>8,.0f} "
              f"{'yes' if r['planner_statistics'] else 'no':>6} {rc[1]['p95_ms']:7.2f} {rc[2]['p50_ms']:7.2f} "
              f"{rc[2]['p95_ms']:7.2f} {rc[2]['cpu_mean_ms']:7.2f} {rc[3]['p95_ms']:7.2f}")
    print("f/s: facts committed per second (wall; CPU: per CPU second); recall in ms, medians of runs; "
          "targets: reopened 1M >= 15,000 f/s, depth-2 p95 <= 10 ms")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
