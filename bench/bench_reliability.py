"""Reliability under faults, load and hostile clients, on a real `trulymem serve` and real processes.

Parts (all by default, or name them):

- ``flood``: the server runs under a 1,024 open-file limit; 2,000 TCP connections
  each send half a request and then nothing. `/health` latency before, during
  (while every flood connection is still open) and after (once they are closed),
  over ``--runs`` runs: medians and maxima, with the phase's wall time beside the
  server's CPU time, and the server's sockets at each point (target: `/health`
  within 1 s during and after; no socket left behind).
- ``kill``: ``--trials`` (100) SIGKILL trials of each kind — a library writer, ``trulymem
  commit --file`` and ``trulymem import``, a ``trulymem serve`` with clients writing —
  on one database that lives through them all: acknowledged writes, and those lost or
  left half done, with the invariant checks (target: 0 lost).
- ``load``: ``--processes`` (8) processes of mixed load on one user for ``--minutes`` (5):
  operations, errors, invariant violations after (target: 0 and 0).
- ``fuzz``: ``--fuzz-calls`` (10,000, or ``TRULYMEM_FUZZ_CALLS``) hypothesis-drawn calls
  per interface — ``call()``, HTTP, MCP: untyped errors, 5xx, partial writes (target: 0).

The last three use the code of ``tests/reliability/`` (trials.py, workload.py,
fuzz_drivers.py), run longer. Benchmarks print figures; they do not pass or fail.

    python bench/bench_reliability.py [flood] [kill] [load] [fuzz] [--runs 3] [--connections 2000]
        [--trials 100] [--kinds library,cli,http] [--processes 8] [--minutes 5]
        [--fuzz-calls 10000] [--interfaces "call(),HTTP,MCP"] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench import reliability_runs  # noqa: E402
from tests.helpers import Served  # noqa: E402  (the same server fixture the tests use)

SERVER_FILES = 1024
PROBES = 20


def _server_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (SERVER_FILES, SERVER_FILES))


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sockets(pid: int) -> int:
    n = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            n += os.readlink(fd).startswith("socket:")
        except OSError:
            pass
    return n


def health(port: int, timeout: float = 10.0) -> float | None:
    """One `/health` request on a fresh connection, raw (no client library's own start-up cost in the
    figure): seconds until the whole answer is in, or ``None`` if it failed."""
    t = time.perf_counter()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as c:
            c.sendall(b"GET /health HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := c.recv(65536):
                answer += chunk
    except OSError:
        return None
    return time.perf_counter() - t if answer.startswith(b"HTTP/1.1 200") else None


def probe(port: int, n: int = PROBES, gap: float = 0.05) -> list[float]:
    """``n`` `/health` requests ``gap`` s apart; seconds each (10 s for one that failed)."""
    out = []
    for _ in range(n):
        took = health(port)
        out.append(10.0 if took is None else took)
        time.sleep(gap)
    return out


def phase(served: Served, work: Callable[[], Any]) -> tuple[Any, float, float]:
    """Run ``work``; its result, the wall seconds it took and the server's CPU seconds meanwhile."""
    cpu0, t0 = cpu_seconds(served.proc.pid), time.perf_counter()
    result = work()
    return result, time.perf_counter() - t0, cpu_seconds(served.proc.pid) - cpu0


def flood_run(connections: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        s = Served(str(Path(tmp) / "flood.db"), preexec_fn=_server_limit)
        flood: list[socket.socket] = []
        try:
            before = probe(s.port)
            base_sockets = sockets(s.proc.pid)

            def open_flood() -> None:
                for _ in range(connections):
                    c = socket.create_connection(("127.0.0.1", s.port), timeout=10)
                    c.sendall(b"GET /health HTTP/1.1\r\nHost: flood\r\n")
                    flood.append(c)

            _, open_wall, open_cpu = phase(s, open_flood)
            during, during_wall, during_cpu = phase(s, lambda: probe(s.port))
            during_sockets = sockets(s.proc.pid)

            def close_flood() -> None:
                for c in flood:
                    c.close()
                flood.clear()

            phase(s, close_flood)
            after, after_wall, after_cpu = phase(s, lambda: probe(s.port))
            time.sleep(1)
            after_sockets = sockets(s.proc.pid)
        finally:
            for c in flood:
                c.close()
            s.stop()
    return {"before": before, "during": during, "after": after, "open_wall": open_wall, "open_cpu": open_cpu,
            "during_wall": during_wall, "during_cpu": during_cpu, "after_wall": after_wall, "after_cpu": after_cpu,
            "sockets": {"before": base_sockets, "during": during_sockets, "after": after_sockets}}


def flood(args: argparse.Namespace) -> dict[str, Any]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = args.connections + 256
    if hard != resource.RLIM_INFINITY and hard < want:
        raise SystemExit(f"flood: this process needs {want} open files; the hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))
    runs = [flood_run(args.connections) for _ in range(args.runs)]

    def ms(key: str) -> dict[str, Any]:
        return {"median_ms": round(statistics.median(statistics.median(r[key]) for r in runs) * 1000, 1),
                "max_ms": round(max(max(r[key]) for r in runs) * 1000, 1),
                "first_ms": [round(r[key][0] * 1000, 1) for r in runs],
                "failed": sum(x >= 10.0 for r in runs for x in r[key])}

    def seconds(key: str) -> float:
        return round(statistics.median(r[key] for r in runs), 3)

    return {"connections": args.connections, "server_open_files": SERVER_FILES, "runs": args.runs,
            "probes_per_phase": PROBES, "before": ms("before"),
            "during": {**ms("during"), "wall_s": seconds("during_wall"), "server_cpu_s": seconds("during_cpu")},
            "after": {**ms("after"), "wall_s": seconds("after_wall"), "server_cpu_s": seconds("after_cpu")},
            "opening": {"wall_s": seconds("open_wall"), "server_cpu_s": seconds("open_cpu")},
            "sockets": [r["sockets"] for r in runs]}


PARTS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "flood": flood, "kill": reliability_runs.kill, "load": reliability_runs.load, "fuzz": reliability_runs.fuzz}
SHOW: dict[str, Callable[[dict[str, Any]], None]] = {}  # filled below, next to show_flood


def show_flood(r: dict[str, Any]) -> None:
    print(f"flood: {r['connections']} idle connections (half a request each) against a server limited to "
          f"{r['server_open_files']} open files; {r['runs']} runs, {r['probes_per_phase']} /health probes per phase")
    o = r["opening"]
    print(f"  opening the flood: {o['wall_s']} s wall, server CPU {o['server_cpu_s']} s")
    for name in ("before", "during", "after"):
        p = r[name]
        extra = f"; phase {p['wall_s']} s wall, server CPU {p['server_cpu_s']} s" if "wall_s" in p else ""
        print(f"  /health {name:6}: median {p['median_ms']} ms, max {p['max_ms']} ms, first probe per run "
              f"{p['first_ms']} ms, failed {p['failed']}{extra}")
    print("  server sockets (before / during / after): "
          + ", ".join(f"{s['before']}/{s['during']}/{s['after']}" for s in r["sockets"]))


SHOW.update(flood=show_flood, kill=reliability_runs.show_kill, load=reliability_runs.show_load,
            fuzz=reliability_runs.show_fuzz)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("parts", nargs="*", help=f"which parts to run: {', '.join(PARTS)} (default: all)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--connections", type=int, default=2000, help="flood: idle connections")
    reliability_runs.add_options(ap)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    unknown = set(args.parts) - set(PARTS)
    if unknown:
        ap.error(f"unknown part {sorted(unknown)[0]!r}; known: {', '.join(PARTS)}")
    results = {}
    for name in args.parts or PARTS:
        results[name] = PARTS[name](args)
        if not args.json:  # each part as it finishes: the long ones take minutes
            SHOW[name](results[name])
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
