"""HTTP recall latency and throughput: a real `trulymem serve` on loopback, 16 clients.

Seeds one user with memories (triplets and mem0-style texts), then:
1. paced: 16 clients together send ``--rate`` recall requests per second (target:
   p95 <= 30 ms at 100 requests/s);
2. flat out: 16 clients send as fast as they can (throughput).
Each phase runs ``--seconds`` and is repeated ``--runs`` times; medians printed, with the
server's CPU time per request (all its processes; needs psutil) beside the client's wall
time. ``--workers N`` serves with N processes (``trulymem serve --workers``).

    python bench/bench_http.py [--rate 100] [--seconds 10] [--runs 3] [--memories 2000] [--depth 1]
                               [--workers N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
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


def phase(url: str, seconds: float, rate: float | None, depth: int = 1, pid: int | None = None) -> dict[str, Any]:
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def worker(k: int) -> None:
        nonlocal errors
        rng = random.Random(k)
        interval = CLIENTS / rate if rate else 0.0
        nxt = time.perf_counter() + rng.random() * interval
        with httpx.Client(base_url=url, timeout=30) as c:
            while True:
                now = time.perf_counter()
                if now >= stop:
                    return
                if interval and now < nxt:
                    time.sleep(nxt - now)
                    continue
                nxt += interval
                body = {"query_intent": f"{rng.choice(WORDS)} {rng.choice(WORDS)}", "depth": depth}
                t0 = time.perf_counter()
                r = c.post("/v1/recall", params={"user_id": "bench"}, json=body)
                dt = (time.perf_counter() - t0) * 1000
                with lock:
                    latencies.append(dt)
                    errors += r.status_code != 200

    cpu0 = server_cpu(pid) if pid else None
    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    cpu1 = server_cpu(pid) if pid else None
    cpu_ms = round((cpu1 - cpu0) * 1000 / max(1, len(latencies)), 2) if cpu0 is not None and cpu1 is not None else None
    lat = sorted(latencies)
    pick = (lambda q: round(lat[min(len(lat) - 1, int(q * len(lat)))], 2)) if lat else (lambda q: None)
    return {"requests": len(lat), "errors": errors, "rps": round(len(lat) / elapsed, 1),
            "p50_ms": pick(0.5), "p95_ms": pick(0.95), "p99_ms": pick(0.99), "server_cpu_ms": cpu_ms}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rate", type=float, default=100.0)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--memories", type=int, default=2000)
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        served = Served(str(Path(tmp) / "bench.db"), *(["--workers", str(args.workers)] if args.workers > 1 else []))
        pid = served.proc.pid
        try:
            seed(served.url, args.memories)
            phase(served.url, 2, args.rate, args.depth)  # warm up
            paced = [phase(served.url, args.seconds, args.rate, args.depth, pid) for _ in range(args.runs)]
            flat = [phase(served.url, args.seconds, None, args.depth, pid) for _ in range(args.runs)]
        finally:
            served.stop()

    def med(rows: list[dict[str, Any]], key: str) -> float | None:
        values = [r[key] for r in rows if r[key] is not None]
        return round(statistics.median(values), 2) if values else None

    summary = {"clients": CLIENTS, "memories": args.memories, "runs": args.runs, "seconds": args.seconds,
               "depth": args.depth, "workers": args.workers, "load_average": os.getloadavg()[0],
               "paced": {"target_rps": args.rate, "rps": med(paced, "rps"), "p50_ms": med(paced, "p50_ms"),
                         "p95_ms": med(paced, "p95_ms"), "p99_ms": med(paced, "p99_ms"),
                         "p95_runs": [r["p95_ms"] for r in paced], "errors": sum(r["errors"] for r in paced),
                         "server_cpu_ms": med(paced, "server_cpu_ms")},
               "flat_out": {"rps": med(flat, "rps"), "p50_ms": med(flat, "p50_ms"), "p95_ms": med(flat, "p95_ms"),
                            "rps_runs": [r["rps"] for r in flat], "errors": sum(r["errors"] for r in flat),
                            "server_cpu_ms": med(flat, "server_cpu_ms")}}
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    p, f = summary["paced"], summary["flat_out"]
    print(f"HTTP POST /v1/recall (depth {args.depth}), {CLIENTS} clients on loopback, {args.memories} memories, "
          f"{args.workers} server process(es), {args.runs} runs x {args.seconds:g} s (medians; load average "
          f"{summary['load_average']:.1f})")
    print(f"  paced at {args.rate:g} req/s: {p['rps']} req/s served, p50 {p['p50_ms']} ms, p95 {p['p95_ms']} ms "
          f"(runs {p['p95_runs']}; target 30 ms), p99 {p['p99_ms']} ms, server CPU {p['server_cpu_ms']} ms/request, "
          f"errors {p['errors']}")
    print(f"  flat out: {f['rps']} req/s (runs {f['rps_runs']}; target 250), p50 {f['p50_ms']} ms, p95 {f['p95_ms']} ms, "
          f"server CPU {f['server_cpu_ms']} ms/request, errors {f['errors']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
