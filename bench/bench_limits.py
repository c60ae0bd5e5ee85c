"""The worst request the complexity caps (``trulymem.limits``) still allow: CPU time of
filters at the caps over thousands of memories, and of a search with the longest query.

Seeds one user with ``--memories`` memories (``--long``: each 4,000 characters, the most
one memory may hold), then times ``get_memories`` through ``TrulyMem.call`` with filters
of several shapes, each at the caps (100 conditions, 8 levels, 16,000 characters), and a
``search_memories`` with a 4,000-character query. Prints CPU seconds per request (the
median of ``--runs``); the issue's target is well under 2 s.

    python bench/bench_limits.py [--memories 6000] [--long] [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import string
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from trulymem import TrulyMem
from trulymem.limits import LIMITS

WORDS = ("deploy postgres lisbon coffee music rock team sprint review api auth cache queue worker metrics alerts "
         "budget invoice design mobile search ranking").split()


def seed(mem: TrulyMem, n: int, long: bool, rng: random.Random) -> None:
    for start in range(0, n, 1000):
        words = 600 if long else 20
        batch = [{"subject": "user", "relation": "memory", "type": "note", "metadata": {"k": i, "tag": rng.choice(WORDS)},
                  "object": (" ".join(rng.choice(WORDS) for _ in range(words)))[:3990] + f" {i}"}
                 for i in range(start, min(n, start + 1000))]
        res = mem.call("memory_commit", {"triplets": batch})
        assert res.ok, res.error


def shapes(rng: random.Random) -> dict[str, dict[str, Any]]:
    n = LIMITS.filter_conditions
    needle = max(1, LIMITS.filter_chars // n - 20)  # as long as the character cap allows

    def word(k: int) -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(k))

    deep: dict[str, Any] = {"metadata.k": {"gte": 0}}
    for _ in range(LIMITS.filter_depth - 1):
        deep = {"AND": [deep]}
    return {
        "OR of contains (none match)": {"OR": [{"memory": {"contains": word(needle)}} for _ in range(n)]},
        "OR of icontains (none match)": {"OR": [{"memory": {"icontains": word(needle)}} for _ in range(n)]},
        "AND of NOT contains (all true)": {"AND": [{"NOT": {"memory": {"contains": word(needle)}}} for _ in range(n)]},
        "AND of icontains (all true)": {"AND": [{"memory": {"icontains": rng.choice(WORDS)[:3]}} for _ in range(n)]},
        "OR of gt, one field each": {"OR": [{f"metadata.k{i}": {"gt": "z"}} for i in range(n)]},
        "AND of ne": {"AND": [{"type": {"ne": f"x{i}"}} for i in range(n)]},
        "in, 2,000 values": {"memory": {"in": [word(6) for _ in range(2000)]}},
        "nested 8 deep": deep,
    }


def cpu(fn: Any, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memories", type=int, default=6000)
    ap.add_argument("--long", action="store_true", help="4,000-character memories")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        mem = TrulyMem(Path(tmp) / "limits.db", user_id="bench", embedder="hashing")
        seed(mem, args.memories, args.long, rng)
        out: dict[str, float] = {}

        def listing(flt: dict[str, Any] | None) -> None:
            res = mem.call("get_memories", {"filters": flt, "page_size": 10} if flt else {"page_size": 10})
            assert res.ok, res.error

        out["no filter (the listing itself)"] = cpu(lambda: listing(None), args.runs)
        for name, flt in shapes(rng).items():
            out[name] = cpu(lambda flt=flt: listing(flt), args.runs)
        query = " ".join(rng.choice(WORDS) for _ in range(LIMITS.search_query_chars))[:LIMITS.search_query_chars]
        out[f"search, {len(query)}-character query"] = cpu(
            lambda: mem.call("search_memories", {"query": query}), args.runs)
        mem.close()
    if args.json:
        print(json.dumps({"memories": args.memories, "long": args.long, "cpu_s": out}, indent=2))
        return
    print(f"{args.memories} memories{' of 4,000 characters' if args.long else ''}; CPU seconds per request "
          f"(median of {args.runs}):")
    for name, s in out.items():
        print(f"  {name:40} {s:6.3f}")
    print(f"  worst: {max(out.values()):.3f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
