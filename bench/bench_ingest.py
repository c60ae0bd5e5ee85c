"""LoCoMo ingest throughput alone: ``memory_ingest`` of every conversation of a split, as
``bench_locomo.py`` ingests them (one database per conversation, default enrichment:
topics and speaker profiles), without its recall variants. Messages per second, wall and
per CPU second, per run and as medians of ``--runs``; the load average beside each run.
Prints figures only; it never asserts. Issue 17's target: >= 1,500 messages/s (hashing).

Run from the repository root::

    python bench/bench_ingest.py ../shared/bench/locomo/locomo-dev.json --split tune --runs 5

``--against OLD_SRC`` compares this code with another checkout's ``src`` (a ``git worktree``
of the commit before a change): ``--pairs`` pairs of runs (old then new, swapped every pair), each a child process
with ``--runs`` runs; per pair the ratio of CPU per message new/old, and its median. With
``--concurrent`` the two of a pair run at the same time, one per core (swapped every pair):
on this shared VM, whose speed moves from minute to minute, both then see the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
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
    ap.add_argument("--against", metavar="OLD_SRC", help="compare with this src directory (A/B pairs)")
    ap.add_argument("--pairs", type=int, default=5, help="with --against: pairs of runs")
    ap.add_argument("--concurrent", action="store_true", help="with --against: old and new at once, a core each")
    args = ap.parse_args()
    if args.against:
        compare(args)
        return
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


def _child(src: str, args: argparse.Namespace, core: int | None) -> subprocess.Popen[str]:
    """This bench in a child process on the code in ``src`` (on one core when ``core`` is set)."""
    env = {**os.environ, "PYTHONPATH": src}
    cmd = [sys.executable, __file__, args.path, "--split", args.split, "--runs", str(args.runs),
           "--embedder", args.embedder, "--json"]
    pin = (lambda: os.sched_setaffinity(0, {core})) if core is not None else None
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True, preexec_fn=pin)


def _result(proc: subprocess.Popen[str]) -> dict[str, float]:
    out, _ = proc.communicate()
    if proc.returncode:
        raise SystemExit(f"a child run failed (exit {proc.returncode})")
    result: dict[str, float] = json.loads(out)
    return result


def compare(args: argparse.Namespace) -> None:
    """A/B pairs: the code in ``--against`` (old) and this checkout's ``src`` (new)."""
    new_src = str(Path(__file__).resolve().parent.parent / "src")
    ratios: list[float] = []
    for i in range(args.pairs):
        load = os.getloadavg()[0]
        if args.concurrent:
            first, second = sorted(os.sched_getaffinity(0))[:2] * (2 if len(os.sched_getaffinity(0)) < 2 else 1)
            cores = (first, second) if i % 2 == 0 else (second, first)
            procs = _child(args.against, args, cores[0]), _child(new_src, args, cores[1])
            old, new = (_result(p) for p in procs)
        elif i % 2 == 0:  # one after the other, the order swapped every pair (no order bias)
            old = _result(_child(args.against, args, None))
            new = _result(_child(new_src, args, None))
        else:
            new = _result(_child(new_src, args, None))
            old = _result(_child(args.against, args, None))
        o, n = old["median_messages_per_cpu_s"], new["median_messages_per_cpu_s"]
        ratios.append(o / n)  # new CPU per message over old
        print(f"pair {i + 1}: old {old['median_messages_per_s']:,.0f} msg/s wall, {o:,.0f} per CPU s; "
              f"new {new['median_messages_per_s']:,.0f}, {n:,.0f}; CPU per message new/old {o / n:.3f} "
              f"(load average {load:.2f})", flush=True)
    print(f"median CPU per message new/old over {len(ratios)} pairs: {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
