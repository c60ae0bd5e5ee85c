"""LoCoMo ingest throughput alone: ``memory_ingest`` of every conversation of a split, as
``bench_locomo.py`` ingests them (one database per conversation, default enrichment:
topics and speaker profiles), without its recall variants. Messages per second, wall and
per CPU second, per run and as medians of ``--runs``; the load average beside each run.
Prints figures only; it never asserts. Issue 17's target: >= 1,500 messages/s (hashing).

Run from the repository root::

    python bench/bench_ingest.py ../shared/bench/locomo/locomo-dev.json --split tune --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from trulymem import TrulyMem
from trulymem.bench.locomo import _ingest
from trulymem.bench.locomo_data import in_split, load_locomo
from trulymem.embed import get_embedder


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", help="a LoCoMo-format JSON file")
    ap.add_argument("--split", choices=["tune", "heldout", "all"], default="tune")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--embedder", default="hashing", help="hashing, use, none, ...")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    convs = in_split(load_locomo(args.path), args.split)
    embedder = None if args.embedder == "none" else get_embedder(args.embedder)
    runs: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="trulymem-ingest-") as tmp:
        with TrulyMem(Path(tmp) / "warm.db", user_id="warm", embedder=embedder) as mem:
            _ingest(mem, convs[0])  # imports, caches and the embedder's first use are not timed
        for r in range(args.runs):
            load = os.getloadavg()[0]
            messages, wall, cpu = 0, 0.0, 0.0
            for conv in convs:
                with TrulyMem(Path(tmp) / f"{conv.id}-{r}.db", user_id=conv.id, embedder=embedder) as mem:
                    t0, c0 = time.perf_counter(), time.process_time()
                    _ingest(mem, conv)
                    wall += time.perf_counter() - t0
                    cpu += time.process_time() - c0
                messages += len(conv.turns)
            runs.append({"messages_per_s": messages / wall, "messages_per_cpu_s": messages / cpu, "load": load})
            if not args.json:
                print(f"run {r + 1}: {messages:,} messages, {messages / wall:,.0f} msg/s wall, "
                      f"{messages / cpu:,.0f} per CPU s (load average {load:.2f})", flush=True)
    summary = {"split": args.split, "conversations": len(convs), "embedder": args.embedder, "runs": runs,
               "median_messages_per_s": statistics.median(r["messages_per_s"] for r in runs),
               "median_messages_per_cpu_s": statistics.median(r["messages_per_cpu_s"] for r in runs)}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"median of {len(runs)}: {summary['median_messages_per_s']:,.0f} msg/s wall, "
              f"{summary['median_messages_per_cpu_s']:,.0f} per CPU s")


if __name__ == "__main__":
    main()
