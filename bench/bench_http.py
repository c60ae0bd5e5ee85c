"""HTTP recall latency and throughput: a real `trulymem serve` on loopback, one load generator.

Seeds one user with memories (triplets and mem0-style texts), then drives POST /v1/recall
with ``bench/loadgen.py`` (a process of its own, asyncio, raw keep-alive HTTP/1.1):
1. paced: ``--rate`` requests per second, open loop, latency counted from when each request
   was due (target: p95 <= 30 ms at 100 requests/s);
2. flat out: 16 keep-alive connections, each sending as soon as its last answer came (throughput).
Each phase runs ``--seconds`` and is repeated ``--runs`` times; medians printed, with the CPU
time per request of the server (all its processes; needs psutil) and of the load generator
beside the wall figures, and the load average. ``--workers N`` serves with N processes.

    python bench/bench_http.py [--rate 100] [--seconds 10] [--runs 3] [--memories 2000] [--depth 1]
                               [--workers N] [--gc freeze|python[:T0,T1,T2]] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadgen import generate  # noqa: E402

from tests.helpers import Served  # noqa: E402  (the same server fixture the tests use)

WORDS = ("jazz tea Lisbon Porto chess hiking Python Rust deploy staging Friday review docs backup database auth "
         "token cache queue worker metrics alerts budget invoice design mobile search ranking").split()
CLIENTS = 16


def seed(url: str, n: int) -> None:
    rng = random.Random(1)
    with httpx.Client(base_url=url, timeout=60) as c:
        triplets = [{"subject": rng.choice(["user", "project", "team"]), "relation": rng.choice(["likes", "uses", "owns"]),
                     "object": f"{rng.choice(WORDS)} {rng.choice(WORDS)} {i}"} for i in range(n // 2)]
        c.post("/v1/triplets", params={"user_id": "bench"}, json={"triplets": triplets}).raise_for_status()
        for start in range(0, n - n // 2, 200):
            msgs = [{"role": "user", "content": f"{rng.choice(WORDS)} note {i} about {rng.choice(WORDS)}"}
                    for i in range(start, min(start + 200, n - n // 2))]
            c.post("/v1/memories", json={"user_id": "bench", "messages": msgs}).raise_for_status()


def server_cpu(pid: int) -> float | None:
    """CPU seconds used so far by the server and its worker processes (None without psutil)."""
    try:
        import psutil
    except ImportError:
        return None
    try:
        proc = psutil.Process(pid)
        return sum(sum(p.cpu_times()[:2]) for p in [proc, *proc.children(recursive=True)])
    except psutil.Error:
        return None


def phase(url: str, seconds: float, rate: float | None, bodies: list[bytes], pid: int | None = None) -> dict[str, Any]:
    """One run of the load generator (``bench/loadgen.py``, its own process): paced open loop at
    ``rate``, or flat out over CLIENTS keep-alive connections; the server's CPU around it."""
    cpu0 = server_cpu(pid) if pid else None
    r = generate(url, "/v1/recall?user_id=bench", bodies, seconds, rate=rate, connections=CLIENTS)
    cpu1 = server_cpu(pid) if pid else None
    n = max(1, r["requests"])
    r["server_cpu_ms"] = round((cpu1 - cpu0) * 1000 / n, 2) if cpu0 is not None and cpu1 is not None else None
    r["client_cpu_ms"] = r["generator_cpu_ms_per_req"]
    return r


def recall_bodies(depth: int, n: int = 500) -> list[bytes]:
    """Recall request bodies, built once: two random words each, as before."""
    rng = random.Random(7)
    return [json.dumps({"query_intent": f"{rng.choice(WORDS)} {rng.choice(WORDS)}", "depth": depth}).encode()
            for _ in range(n)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rate", type=float, default=100.0)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--memories", type=int, default=2000)
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--gc", help="the server's GC policy (trulymem serve --gc; default: serve's own)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        served = Served(str(Path(tmp) / "bench.db"), *(["--workers", str(args.workers)] if args.workers > 1 else []),
                        *(["--gc", args.gc] if args.gc else []))
        pid = served.proc.pid
        try:
            seed(served.url, args.memories)
            bodies = recall_bodies(args.depth)
            phase(served.url, 2, args.rate, bodies)  # warm up
            paced = [phase(served.url, args.seconds, args.rate, bodies, pid) for _ in range(args.runs)]
            flat = [phase(served.url, args.seconds, None, bodies, pid) for _ in range(args.runs)]
        finally:
            served.stop()

    def med(rows: list[dict[str, Any]], key: str) -> float | None:
        values = [r[key] for r in rows if r[key] is not None]
        return round(statistics.median(values), 2) if values else None

    load_before, load_after = load0, os.getloadavg()
    summary = {"connections": CLIENTS, "memories": args.memories, "runs": args.runs, "seconds": args.seconds,
               "depth": args.depth, "workers": args.workers, "gc": args.gc,
               "load_average": [round(x, 2) for x in load_before],
               "load_average_after": [round(x, 2) for x in load_after],
               "paced": {"target_rps": args.rate, "rps": med(paced, "rps"), "p50_ms": med(paced, "p50_ms"),
                         "p95_ms": med(paced, "p95_ms"), "p99_ms": med(paced, "p99_ms"),
                         "p95_runs": [r["p95_ms"] for r in paced], "errors": sum(r["errors"] for r in paced),
                         "generator_lag_p95_ms": med(paced, "generator_lag_p95_ms"),
                         "server_cpu_ms": med(paced, "server_cpu_ms"), "client_cpu_ms": med(paced, "client_cpu_ms")},
               "flat_out": {"rps": med(flat, "rps"), "p50_ms": med(flat, "p50_ms"), "p95_ms": med(flat, "p95_ms"),
                            "rps_runs": [r["rps"] for r in flat], "errors": sum(r["errors"] for r in flat),
                            "server_cpu_ms": med(flat, "server_cpu_ms"), "client_cpu_ms": med(flat, "client_cpu_ms")}}
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    p, f = summary["paced"], summary["flat_out"]
    print(f"HTTP POST /v1/recall (depth {args.depth}), loopback, {args.memories} memories, {args.workers} server "
          f"process(es), GC {args.gc or 'default'}, {args.runs} runs x {args.seconds:g} s, medians; "
          f"load average (1/5/15 min) before "
          f"{'/'.join(f'{x:.1f}' for x in load_before)}, after {'/'.join(f'{x:.1f}' for x in load_after)}")
    print(f"  paced at {args.rate:g} req/s (open loop, latency from when due): {p['rps']} req/s answered, "
          f"p50 {p['p50_ms']} ms, p95 {p['p95_ms']} ms (runs {p['p95_runs']}; target 30 ms), p99 {p['p99_ms']} ms, "
          f"errors {p['errors']}, generator lag p95 {p['generator_lag_p95_ms']} ms")
    print(f"    CPU per request: server {p['server_cpu_ms']} ms, load generator {p['client_cpu_ms']} ms")
    print(f"  flat out ({CLIENTS} keep-alive connections): {f['rps']} req/s (runs {f['rps_runs']}; target 250), "
          f"p50 {f['p50_ms']} ms, p95 {f['p95_ms']} ms, errors {f['errors']}")
    print(f"    CPU per request: server {f['server_cpu_ms']} ms, load generator {f['client_cpu_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
