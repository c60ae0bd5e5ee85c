"""Dream benchmark on quadratic input: templated memories (issue 30).

Notes written from a few templates with many values ("Service svc-12 deploys to ECS",
"Bo lives in Lyon", 服务 svc-3 使用 Redis) give the pair judge thousands of candidate pairs
that share a handful of masked frames; each pair used to encode its two frames afresh
(10,798 encoder calls, 70 s of a 92 s dry run on 6,000 memories). Prints, per size, the
medians over runs of the whole dry run (fetch, encode, analyse, report) on a reopened
database — first pass (``cold``: every memory encoded) and once 1% more were written
(``lived``) — wall beside CPU, how many texts the frame judge sent to the encoder and in how
many calls, and what was found. Target: 20,000 memories well under a minute.

    python bench/bench_dream_templated.py [--sizes 6000 20000] [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench_dream import templated  # type: ignore[import-not-found]  (bench/ is not a package)

from trulymem import TrulyMem
from trulymem.dream import dream_embedder, run_dream
from trulymem.embed import Embedder
from trulymem.embed.base import Kind, Matrix


class Counting(Embedder):
    """The dream's encoder, counting the query-side calls (the judge's masked frames)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.name, self.dim, self.semantic = inner, inner.name, inner.dim, inner.semantic
        self.calls = self.texts = 0

    def _embed(self, texts: Sequence[str], kind: Kind) -> Matrix:
        if kind == "query":
            self.calls += 1
            self.texts += len(texts)
        return self.inner._embed(texts, kind)


def _dry_run(db: Path, encoder: Embedder, project: Path) -> dict[str, Any]:
    counting = Counting(encoder)
    with TrulyMem(db, user_id="s", app_id="p") as mem:
        w0, c0 = time.perf_counter(), time.process_time()
        r = run_dream(mem, project_dir=project, dry_run=True, emit=lambda _: None, embedder=counting)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    a = r.analysis
    assert a is not None
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "frame_calls": counting.calls,
            "frame_texts": counting.texts, "merges": len(a.merges), "conflicts": len(a.conflicts) + a.conflicts_more,
            "reviews": len(a.reviews) + a.reviews_more, "prunes": len(a.prunes)}


def once(n: int) -> dict[str, Any]:
    encoder = dream_embedder("auto", None)
    if encoder is None:
        raise SystemExit("the dream's sentence encoder is not installed: nothing to measure")
    encoder.embed_batch(["warm up"], "query")  # the model's load is not the dream's
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "t.db"
        rows = templated(n + n // 100)
        then = datetime.now(UTC) - timedelta(days=120)
        with TrulyMem(db, user_id="s", app_id="p", clock=lambda: then) as mem:
            for i in range(0, n, 5000):
                mem.commit(rows[i:min(i + 5000, n)], supersede=False)
        cold = _dry_run(db, encoder, Path(tmp))
        with TrulyMem(db, user_id="s", app_id="p") as mem:
            mem.commit(rows[n:], supersede=False)
        lived = _dry_run(db, encoder, Path(tmp))
    return {"memories": n, "cold": cold, "lived": lived}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[6000, 20_000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # internal: one run in this process
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(once(args.one)))
        return 0
    summary: dict[int, dict[str, Any]] = {}
    for n in args.sizes:
        rs = []
        for _ in range(args.runs):  # each run in its own process: nothing cached between runs
            out = subprocess.run([sys.executable, __file__, "--one", str(n)], capture_output=True, text=True,
                                 check=True)
            rs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        summary[n] = {"runs": len(rs), **{f"{run}_{k}_median": statistics.median(r[run][k] for r in rs)
                                          for run in ("cold", "lived") for k in ("wall_s", "cpu_s")},
                      **{k: rs[0]["cold"][k] for k in ("frame_calls", "frame_texts", "merges", "conflicts",
                                                       "reviews", "prunes")}}
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    for n, s in summary.items():
        print(f"templated {n:,} memories, dry run on a reopened database ({s['runs']} runs, medians): "
              f"first pass {s['cold_wall_s_median']} s wall / {s['cold_cpu_s_median']} s CPU; after 1% more "
              f"{s['lived_wall_s_median']} s wall / {s['lived_cpu_s_median']} s CPU; frame judge: "
              f"{s['frame_texts']:,} texts in {s['frame_calls']:,} encoder calls; found {s['merges']} merges, "
              f"{s['conflicts']} conflicts, {s['reviews']} to review, {s['prunes']} prunes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
