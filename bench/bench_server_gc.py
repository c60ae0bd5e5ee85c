"""What garbage collection costs a served process, per ``trulymem serve --gc`` policy.

Each run is a fresh process that builds the HTTP app as ``serve`` does (hashing embedder, MCP
on), applies the policy as ``serve`` does, seeds ``--memories`` memories, warms up with 100
recalls, then sends ``--requests`` POST /v1/recall through the app in process (no sockets: the
figures are the app's, not the network's). Every collection is timed with ``gc.callbacks`` in
the collecting thread's CPU time, so the GC figures hold under load; wall latency does not.
Policies alternate run by run; medians of ``--runs`` printed, CPU beside wall.

    python bench/bench_server_gc.py [--policies python,freeze,freeze:10000,20,20] [--runs 3]
                                    [--requests 2000] [--memories 2000] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def one_run(policy: str, requests: int, memories: int) -> dict[str, Any]:
    """In this process: build the app, apply ``policy``, seed, warm up, time ``requests`` recalls."""
    os.environ["TRULYMEM_EMBEDDER"] = "hashing"
    from bench_http import WORDS, recall_bodies
    from fastapi.testclient import TestClient

    from trulymem.embed import get_embedder
    from trulymem.server.gcpolicy import apply_policy, parse_policy
    from trulymem.server.http import create_app

    tmp = tempfile.mkdtemp()
    app = create_app(str(Path(tmp) / "b.db"), embedder=get_embedder("hashing"), mcp=True, default_user="default")
    apply_policy(parse_policy(policy))
    client = TestClient(app, base_url="http://127.0.0.1:8765", client=("127.0.0.1", 5000))
    rng = random.Random(1)
    half = memories // 2
    client.post("/v1/triplets", params={"user_id": "bench"}, json={"triplets": [
        {"subject": rng.choice(["user", "project", "team"]), "relation": rng.choice(["likes", "uses", "owns"]),
         "object": f"{rng.choice(WORDS)} {rng.choice(WORDS)} {i}"} for i in range(half)]}).raise_for_status()
    for start in range(half, memories, 200):
        client.post("/v1/memories", json={"user_id": "bench", "messages": [
            {"role": "user", "content": f"{rng.choice(WORDS)} note {i} about {rng.choice(WORDS)}"}
            for i in range(start, min(start + 200, memories))]}).raise_for_status()
    bodies = recall_bodies(1)
    headers = {"content-type": "application/json"}
    for body in bodies[:100]:
        client.post("/v1/recall?user_id=bench", content=body, headers=headers).raise_for_status()

    spent, count, longest, started = [0.0, 0.0, 0.0], [0, 0, 0], [0.0], [0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.thread_time()
        else:
            took = time.thread_time() - started[0]
            spent[info["generation"]] += took
            count[info["generation"]] += 1
            longest[0] = max(longest[0], took)

    gc.callbacks.append(timed)
    wall: list[float] = []
    c0 = time.process_time()
    for i in range(requests):
        t0 = time.perf_counter()
        client.post("/v1/recall?user_id=bench", content=bodies[i % len(bodies)], headers=headers).raise_for_status()
        wall.append((time.perf_counter() - t0) * 1000)
    cpu = (time.process_time() - c0) * 1000 / requests
    gc.callbacks.remove(timed)
    wall.sort()
    return {"policy": policy, "cpu_ms": cpu, "gc_ms": sum(spent) * 1000 / requests,
            "gc_ms_by_generation": [s * 1000 for s in spent], "collections": count, "longest_gc_ms": longest[0] * 1000,
            "p50_ms": wall[len(wall) // 2], "p95_ms": wall[int(len(wall) * 0.95)],
            "p99_ms": wall[int(len(wall) * 0.99)], "tracked_objects": len(gc.get_objects())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--policies", default="python,freeze,freeze:10000,20,20",
                    help="serve --gc values, separated by ';' or ',' before a policy name")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--memories", type=int, default=2000)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--one", help=argparse.SUPPRESS)  # internal: run one policy in this process
    args = ap.parse_args(argv)
    if args.one is not None:
        print(json.dumps(one_run(args.one, args.requests, args.memories)))
        return 0
    policies = _policies(args.policies)
    runs: dict[str, list[dict[str, Any]]] = {p: [] for p in policies}
    load0 = os.getloadavg()
    for _ in range(args.runs):
        for p in policies:  # alternating: the machine's drift hits every policy alike
            out = subprocess.run([sys.executable, __file__, "--one", p, "--requests", str(args.requests),
                                  "--memories", str(args.memories)], capture_output=True, text=True, check=True)
            runs[p].append(json.loads(out.stdout.strip().splitlines()[-1]))
    keys = ("cpu_ms", "gc_ms", "longest_gc_ms", "p50_ms", "p95_ms", "p99_ms", "tracked_objects")
    summary = {p: {k: round(statistics.median(r[k] for r in rs), 3) for k in keys} | {
        "collections": [round(statistics.median(r["collections"][g] for r in rs)) for g in range(3)],
        "longest_gc_runs": [round(r["longest_gc_ms"], 2) for r in rs]} for p, rs in runs.items()}
    if args.json:
        print(json.dumps({"load_average": [round(x, 2) for x in (*load0, *os.getloadavg())], "policies": summary}))
        return 0
    print(f"{args.requests} in-process HTTP recalls (depth 1, {args.memories} memories) per run, {args.runs} runs "
          f"per policy, medians; load average before {load0[0]:.1f}, after {os.getloadavg()[0]:.1f}")
    print(f"  {'policy':<22}{'CPU ms/req':>11}{'GC ms/req':>10}{'longest GC':>11}{'gen0/1/2':>14}"
          f"{'p50':>8}{'p95':>8}{'p99':>8}{'tracked':>9}")
    for p, s in summary.items():
        print(f"  {p:<22}{s['cpu_ms']:>11.2f}{s['gc_ms']:>10.3f}{s['longest_gc_ms']:>11.2f}"
              f"{'/'.join(map(str, s['collections'])):>14}{s['p50_ms']:>8.2f}{s['p95_ms']:>8.2f}{s['p99_ms']:>8.2f}"
              f"{int(s['tracked_objects']):>9}")
    return 0


def _policies(text: str) -> list[str]:
    """``python,freeze,freeze:10000,20,20`` -> the three policies (a comma before digits continues one)."""
    out: list[str] = []
    for part in text.replace(";", ",").split(","):
        if out and part.strip().isdigit():
            out[-1] += "," + part.strip()
        elif part.strip():
            out.append(part.strip())
    return out


if __name__ == "__main__":
    sys.exit(main())
