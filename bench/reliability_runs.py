"""The long runs of ``bench/bench_reliability.py`` (``kill``, ``load``, ``fuzz``), built on the
same trial, workload and fuzzing code as ``tests/reliability/``: the tests run a few trials,
these run a hundred (or minutes, or 10,000+ calls per interface) and print the figures.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.reliability.fuzz_drivers import SERVED_TOOLS, fuzz_http, fuzz_library, fuzz_mcp
from tests.reliability.trials import Trial, cli_trial, http_trial, library_trial, mixed_load
from trulymem.tools import REGISTRY


def _cpu() -> float:
    """CPU seconds of this process and of every child it has waited for (servers, writers, CLIs)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _kill_kind(kind: str, trials: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    out: list[Trial] = []
    seconds: list[float] = []
    cpu0, t0 = _cpu(), time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        db, work = str(Path(tmp) / "kill.db"), Path(tmp)
        full: float | None = None
        for trial in range(trials):
            started = time.perf_counter()
            if kind == "library":
                out.append(library_trial(db, trial, rng, work))
            elif kind == "http":
                out.append(http_trial(db, trial, rng))
            else:  # the first CLI run is not killed: it measures how long a whole run takes
                commit, imported, took = cli_trial(db, trial, rng, work, full)
                full = full or took
                out += [commit, imported]
            seconds.append(time.perf_counter() - started)
    lost = [p for t in out for p in t.lost]
    return {"trials": trials, "processes_killed": sum(t.killed for t in out), "runs": len(out),
            "acknowledged_writes": sum(t.acked for t in out), "lost_or_inconsistent": len(lost),
            "examples": lost[:10], "median_trial_s": round(statistics.median(seconds), 2),
            "wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(_cpu() - cpu0, 1)}


def kill(args: argparse.Namespace) -> dict[str, Any]:
    return {kind: _kill_kind(kind, args.trials, args.seed) for kind in args.kinds.split(",")}


def load(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        return mixed_load(str(Path(tmp) / "load.db"), args.processes, args.minutes * 60)


def fuzz(args: argparse.Namespace) -> dict[str, Any]:
    calls = args.fuzz_calls or int(os.environ.get("TRULYMEM_FUZZ_CALLS", "10000"))
    drivers: dict[str, tuple[Callable[..., Any], int, float]] = {
        "call()": (fuzz_library, len(REGISTRY), 1.0),
        "HTTP": (fuzz_http, len(SERVED_TOOLS), 1.02),  # a few arguments make URLs the client will not build
        "MCP": (fuzz_mcp, len(SERVED_TOOLS), 1.2),  # the mcp client cannot send about one in eight
    }
    out: dict[str, Any] = {}
    for name in args.interfaces.split(","):
        run, tools, spare = drivers[name]
        cpu0, t0 = _cpu(), time.perf_counter()
        tally = run(math.ceil(calls / tools * spare), strict=False)
        wall = time.perf_counter() - t0
        print(f"fuzz {name}: {tally.summary()} ({wall:.0f} s)", file=sys.stderr, flush=True)  # minutes each
        out[name] = {"calls": sum(tally.calls.values()), "outcomes": dict(tally.outcomes.most_common()),
                     "untyped_errors": tally.untyped, "5xx": tally.server_errors,
                     "partial_writes": tally.partial_writes, "not_sendable": tally.skipped,
                     "problems": tally.problems, "wall_s": round(wall, 1), "cpu_s": round(_cpu() - cpu0, 1),
                     "calls_per_s": round(sum(tally.calls.values()) / wall, 1)}
    return out


def add_options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--trials", type=int, default=100, help="kill: trials per kind")
    ap.add_argument("--kinds", default="library,cli,http", help="kill: which processes to kill")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--processes", type=int, default=8, help="load: worker processes")
    ap.add_argument("--minutes", type=float, default=5.0, help="load: how long")
    ap.add_argument("--fuzz-calls", type=int, default=0,
                    help="fuzz: calls per interface (default 10,000, or TRULYMEM_FUZZ_CALLS)")
    ap.add_argument("--interfaces", default="call(),HTTP,MCP", help="fuzz: which interfaces")


def show_kill(r: dict[str, Any]) -> None:
    for kind, k in r.items():
        what = f"{k['runs']} runs ({k['trials']} trials)" if k["runs"] != k["trials"] else f"{k['trials']} trials"
        print(f"kill {kind}: {what}, {k['processes_killed']} killed before they finished; "
              f"{k['acknowledged_writes']} acknowledged writes, {k['lost_or_inconsistent']} lost or inconsistent; "
              f"median trial {k['median_trial_s']} s; {k['wall_s']} s wall, CPU {k['cpu_s']} s")
        for e in k["examples"]:
            print(f"    {e}")


def show_load(r: dict[str, Any]) -> None:
    total = sum(r["ops"].values())
    print(f"load: {r['processes']} processes x {r['seconds']:g} s on one user: {total} operations "
          f"({total / r['seconds']:.0f}/s; {', '.join(f'{k} {v}' for k, v in sorted(r['ops'].items()))}); "
          f"{len(r['errors'])} errors, {len(r['violations'])} invariant violations; "
          f"{r['wall_s']} s wall, workers' CPU {r['cpu_s']} s")
    for e in (r["errors"][:5] + r["violations"][:5]):
        print(f"    {e}")


def show_fuzz(r: dict[str, Any]) -> None:
    for name, f in r.items():
        kinds = ", ".join(f"{k} {v}" for k, v in f["outcomes"].items())
        print(f"fuzz {name}: {f['calls']} calls ({kinds}); untyped errors {f['untyped_errors']}, 5xx {f['5xx']}, "
              f"partial writes {f['partial_writes']}; not sendable by the client {f['not_sendable']}; "
              f"{f['calls_per_s']} calls/s, {f['wall_s']} s wall, CPU {f['cpu_s']} s")
        for p in f["problems"][:5]:
            print(f"    {p[:300] if not p.startswith('server log') else p}")
