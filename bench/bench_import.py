"""``import_jsonl`` throughput: a synthetic export of N facts (one user; each fact links the
user node or a shared topic node to a node of its own, one in twenty superseded by a later
fact of the file) imported into a fresh database, all or nothing, as ``trulymem import``
does. Per size: wall and CPU seconds, medians of ``--runs``, and microseconds per fact,
whose staying flat from the smallest size to the largest is what "linear" means here.
Prints figures only. No embedder by default (``--embedder hashing``: the new nodes' vectors too).

Run from the repository root::

    python bench/bench_import.py --sizes 20000 200000 --runs 3
    python bench/bench_import.py --sizes 20000 --db postgresql://localhost/bench   # an empty PG database

Issue 27 saw 1,500 facts in 0.87 s and 20,000 in 157 s before import was made linear.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

from trulymem import TrulyMem
from trulymem.model import Fact, Node, new_ids, to_json, utcnow
from trulymem.text import name_key

USER = "bench"
TOPICS = 200  # shared nodes: many facts meet at them, as at a person or a project
MEM0 = os.environ.get("MEM0_SHAPE") == "1"


def export_lines(n_facts: int) -> Iterator[str]:
    """An export of ``n_facts`` facts, as ``export_jsonl`` writes one (user, nodes, facts)."""
    t0 = utcnow() - timedelta(days=1)
    yield json.dumps({"record": "user", "user_id": USER, "created_at": t0.isoformat()})
    names = ["user", *(f"topic {i}" for i in range(TOPICS)), *(f"thing number {i}" for i in range(n_facts))]
    node_ids = new_ids(len(names))
    for nid, name in zip(node_ids, names, strict=True):
        node = Node(id=nid, user_id=USER, name=name, key=name_key(name), created_at=t0, updated_at=t0)
        yield json.dumps({"record": "node", **to_json(node)})
    fact_ids = new_ids(n_facts)
    for i, fid in enumerate(fact_ids):
        subject = node_ids[0] if i % 2 or MEM0 else node_ids[1 + i % TOPICS]
        superseded = i % 20 == 0 and i + 1 < n_facts
        at = t0 + timedelta(microseconds=i)
        fact = Fact(id=fid, user_id=USER, subject_id=subject, relation="memory" if MEM0 else f"relation {i % 50}",
                    object_id=node_ids[1 + TOPICS + i], created_at=at, updated_at=at, valid_at=at,
                    invalid_at=at + timedelta(seconds=1) if superseded else None,
                    superseded_by=fact_ids[i + 1] if superseded else None)
        yield json.dumps({"record": "fact", **to_json(fact, exclude={"subject", "object"})})


def one_run(db: str, lines: list[str], embedder: str | None) -> tuple[float, float, dict[str, int]]:
    with TrulyMem(db, user_id=USER, embedder=embedder) as mem:
        wall, cpu = time.perf_counter(), time.process_time()
        counts = mem.import_jsonl(lines)
        return time.perf_counter() - wall, time.process_time() - cpu, counts


def fresh_pg(url: str) -> None:
    """Empty the PostgreSQL database between runs (it must be one made for this bench)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA IF EXISTS public CASCADE")
        conn.execute("CREATE SCHEMA public")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[20_000, 200_000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--embedder", default="none", help="none (default), hashing, ...: the new nodes' vectors too")
    ap.add_argument("--db", help="a postgresql:// URL of an empty database made for this bench (default: SQLite)")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; {'PostgreSQL' if args.db else 'SQLite'}")
    with tempfile.TemporaryDirectory(prefix="trulymem-import-") as tmp:
        for size in args.sizes:
            lines = list(export_lines(size))
            walls, cpus = [], []
            for r in range(args.runs):
                if args.db:
                    fresh_pg(args.db)
                db = args.db or str(Path(tmp) / f"import-{size}-{r}.db")
                wall, cpu, counts = one_run(db, lines, None if args.embedder == "none" else args.embedder)
                assert counts["facts"] == size, counts  # the bench measured what it says
                walls.append(wall)
                cpus.append(cpu)
                print(f"  {size:>7} facts run {r + 1}: wall {wall:.2f} s, CPU {cpu:.2f} s", flush=True)
            wall, cpu = statistics.median(walls), statistics.median(cpus)
            print(f"{size:>7} facts ({len(lines)} rows): median wall {wall:.2f} s, CPU {cpu:.2f} s; "
                  f"{wall / size * 1e6:.1f} us/fact wall, {cpu / size * 1e6:.1f} us/fact CPU", flush=True)


if __name__ == "__main__":
    main()
