"""PostgreSQL beside SQLite: the issue-15 figures for both backends, side by side.

For each backend (a SQLite file; PostgreSQL on loopback, a throwaway cluster from
Debian's binaries started here, durability settings as a test cluster's) it measures:

1. commit, batched: ``--facts`` triplets for one user in batches of ``--batch`` into a
   fresh database (``--runs`` times), and ``--multi-facts`` spread over ``--users`` users;
2. ``memory_recall`` at depth 2 on the one-user database (p50/p95 over ``--queries``);
3. HTTP recall: ``trulymem serve --workers 4`` answering POST /v1/tools/memory_recall at
   ``--rate`` requests/s for ``--http-seconds`` (an open-loop generator in its own process:
   latency from when each request was due; its CPU and send lag reported, and the CPU per
   request of the workers and of the database server);
4. ``--writers`` writer processes committing for ``--writer-seconds``: errors, and
   acknowledged facts missing afterwards (lost writes);
5. (part ``common``) on the many-users database, the fact search by a type word for the
   oldest user under every other user's newer facts: the walk by user, the global walk it
   replaced and the search that collects every match, and whether all find the same facts.

Medians over runs; CPU beside wall: the client's CPU, and for PostgreSQL the server's
(postmaster and its backends). Prints figures only; it never asserts. Issue targets
(2 cores, loopback, 100k facts for one user and 1M over 1,000 users): commit >= 10k
facts/s, recall p95 <= 20 ms at depth 2, HTTP p95 <= 30 ms at 200 req/s with 4 workers,
8 writers for 5 minutes with 0 errors and 0 lost writes.

Run from the repository root::

    python bench/bench_postgres.py                        # small scale (minutes)
    python bench/bench_postgres.py --facts 100000 --multi-facts 1000000 --users 1000 \\
        --writer-seconds 300 --runs 3                      # the issue's scale (an hour or more)
    python bench/bench_postgres.py --facts 100000 --parts commit,recall   # commit and recall only
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import TYPES, entity_names, make_queries, make_triplets, pct  # noqa: E402
from loadgen import generate  # noqa: E402

from tests.contract.pg_cluster import Cluster  # noqa: E402
from tests.helpers import free_port  # noqa: E402
from trulymem import TrulyMem  # noqa: E402

Fresh = Callable[[], str]  # a new, empty database; returns its location
PARTS = ("commit", "recall", "many", "common", "http", "writers")


@contextmanager
def backends(which: list[str], tmp: Path) -> Iterator[dict[str, tuple[Fresh, Callable[[], float]]]]:
    """name -> (new empty database, server CPU seconds so far)."""
    out: dict[str, tuple[Fresh, Callable[[], float]]] = {}
    counter = iter(range(10**9))
    if "sqlite" in which:
        out["sqlite"] = (lambda: str(tmp / f"bench{next(counter)}.db"), lambda: 0.0)
    cluster = None
    if "postgres" in which:
        cluster = Cluster().start()
        out["postgres"] = (lambda: _new_pg(cluster, next(counter)), lambda: _server_cpu(cluster))
    try:
        yield out
    finally:
        if cluster is not None:
            cluster.stop()


def _new_pg(cluster: Cluster, n: int) -> str:
    import psycopg

    with psycopg.connect(cluster.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE bench{n}")
    return cluster.url(f"bench{n}")


def _server_cpu(cluster: Cluster) -> float:
    import psutil

    pid = int((cluster.data / "postmaster.pid").read_text().split()[0])
    root = psutil.Process(pid)
    total = 0.0
    for p in [root, *root.children(recursive=True)]:
        try:
            t = p.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        except psutil.NoSuchProcess:
            pass
    return total


def commit_run(db: str, users: list[str], triplets: list[dict[str, Any]], batch: int,
               server_cpu: Callable[[], float], shared: bool = False) -> dict[str, float]:
    """Each user's share in batches; only the commit calls are timed. ``shared``: one store (one
    pool of connections) serves every user, as a server process does; else one store per user,
    opened and closed in turn (each user's first statements then run on a new connection)."""
    per = len(triplets) // len(users)
    secs = cpu = 0.0
    s0 = server_cpu()
    store = TrulyMem(db, user_id=users[0], embedder="none").store if shared else None
    for k, user in enumerate(users):
        mine = triplets[k * per:(k + 1) * per]
        m = TrulyMem(store or db, user_id=user, embedder="none")
        for i in range(0, len(mine), batch):
            t0, c0 = time.perf_counter(), time.process_time()
            m.commit(mine[i:i + batch])
            secs += time.perf_counter() - t0
            cpu += time.process_time() - c0
        if store is None:
            m.close()
    if store is not None:
        store.close()
    n = per * len(users)
    return {"facts_per_s": n / secs, "wall_s": secs, "cpu_s": cpu, "server_cpu_s": server_cpu() - s0}


def recall_run(db: str, queries: list[str], server_cpu: Callable[[], float]) -> dict[str, float]:
    with TrulyMem(db, user_id="u0", embedder="none") as m:
        for q in queries[:20]:
            m.recall(q, depth=2, limit=20)
        times: list[float] = []
        c0, s0 = time.process_time(), server_cpu()
        for q in queries:
            t0 = time.perf_counter()
            m.recall(q, depth=2, limit=20)
            times.append((time.perf_counter() - t0) * 1000)
        cpu, scpu = time.process_time() - c0, server_cpu() - s0
    times.sort()
    return {"p50_ms": pct(times, 0.5), "p95_ms": pct(times, 0.95), "cpu_ms_per_call": cpu * 1000 / len(queries),
            "server_cpu_ms_per_call": scpu * 1000 / len(queries)}


def common_run(db: str, reps: int = 5) -> dict[str, float]:
    """Fact search by a word in many facts (a type word) for the oldest user, u0, under every
    other user's newer facts: ms per search (limit 20), median over the words and ``reps``. The
    walk a common word takes — on PostgreSQL one user's facts by (user_id, seq), beside the
    global walk by storage order it replaced — and the search that collects every match."""
    from trulymem.model import Scope
    from trulymem.store.base import CURRENT
    from trulymem.store.queries import SQLReads
    from trulymem.store.sql import scope_sql, when_sql

    with TrulyMem(db, user_id="u0", embedder="none") as m:
        store: Any = m.store
        d = store.dialect
        where, params = scope_sql(Scope(user_id="u0"), "f", d)
        when, wparams = when_sql(CURRENT, d)
        ways: dict[str, Callable[[str], list[Any]]] = {"collect_ms": lambda q: store._q(
            d.search.facts.format(where=where, when=when), (q, *params, *wparams, 20))}
        if d.search.facts_common is not None:
            scope = Scope(user_id="u0")
            ways["walk_user_ms"] = lambda q: store._walk_common(scope, q, where, when, [*params, *wparams], 20)
            ways["walk_global_ms"] = lambda q: SQLReads._walk_common(store, scope, q, where, when,
                                                                     [*params, *wparams], 20)
        out: dict[str, float] = {}
        same = True
        for name, way in ways.items():
            times = []
            for word in TYPES:
                q = d.search.match([(word,)])
                first = [r[0] for r in way(q)]
                same = same and first == [r[0] for r in ways["collect_ms"](q)]
                for _ in range(reps):
                    t0 = time.perf_counter()
                    way(q)
                    times.append((time.perf_counter() - t0) * 1000)
            out[name] = statistics.median(times)
        out["same_facts"] = float(same)
    return out


def _tree_cpu(pid: int) -> float:
    """CPU seconds of a process and its children (a server and its workers)."""
    import psutil

    total = 0.0
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def http_run(db: str, queries: list[str], rate: float, seconds: float, server_cpu: Callable[[], float]) -> dict[str, float]:
    import httpx

    port = free_port()
    env = {**os.environ, "TRULYMEM_EMBEDDER": "none", "TRULYMEM_USER": "u0"}
    server = subprocess.Popen([sys.executable, "-m", "trulymem", "serve", "--db", db, "--port", str(port),
                               "--workers", "4"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.2)
        with httpx.Client(base_url=url, timeout=30) as c:  # every worker's pool and caches warm
            for q in queries[:40]:
                c.post("/v1/tools/memory_recall", json={"query_intent": q, "depth": 2})
        s0, w0 = server_cpu(), _tree_cpu(server.pid)
        # bench/loadgen.py: open loop in its own process, latency from when each request was due
        r = generate(url, "/v1/tools/memory_recall", [{"query_intent": q, "depth": 2} for q in queries], seconds,
                     rate=rate)
        scpu, wcpu = server_cpu() - s0, _tree_cpu(server.pid) - w0
    finally:
        server.terminate()
        server.wait(30)
    n = max(1, r["requests"])
    return {"p50_ms": r["p50_ms"], "p95_ms": r["p95_ms"], "achieved_rps": r["requests"] / seconds,
            "errors": r["errors"], "sent": r["sent"], "connections": r["connections"],
            "generator_lag_p95_ms": r["generator_lag_p95_ms"], "wait_for_connection_p95_ms": r["wait_for_connection_p95_ms"],
            "generator_cpu_ms_per_req": r["generator_cpu_ms_per_req"],
            "workers_cpu_ms_per_req": wcpu * 1000 / n, "db_server_cpu_ms_per_req": scpu * 1000 / n}


WRITER = """
import json, sys, time
from trulymem import TrulyMem
db, tag, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
acked, errors = [], 0
with TrulyMem(db, user_id=f"w{int(tag) % 4}", embedder="none") as m:
    end, i = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        try:
            res = m.commit([{"subject": "user", "relation": "wrote", "object": f"{tag}-{i}-{j}"} for j in range(20)])
            acked += [f.id for f in res.facts]
        except Exception as exc:
            errors += 1
            print(repr(exc), file=sys.stderr)
        i += 1
print(json.dumps({"acked": acked, "errors": errors}))
"""


def writers_run(db: str, writers: int, seconds: float) -> dict[str, float]:
    with TrulyMem(db, user_id="w0", embedder="none") as m:
        m.ensure_user()  # the schema exists before the writers race to it
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, db, str(k), str(seconds)], stdout=subprocess.PIPE,
                              text=True) for k in range(writers)]
    results = [json.loads(p.communicate()[0]) for p in procs]
    acked = {i for r in results for i in r["acked"]}
    stored: set[str] = set()
    for u in range(min(4, writers)):
        with TrulyMem(db, user_id=f"w{u}", embedder="none") as m:
            stored |= {f.id for f in m.store.facts(
                __import__("trulymem.store", fromlist=["FactQuery"]).FactQuery(scope=m.scope, validity="all"))}
    return {"facts_acked": len(acked), "facts_per_s": len(acked) / seconds,
            "errors": sum(r["errors"] for r in results), "lost": len(acked - stored)}


def med(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backends", default="sqlite,postgres")
    ap.add_argument("--facts", type=int, default=20_000, help="facts for one user (issue: 100,000)")
    ap.add_argument("--multi-facts", type=int, default=50_000, help="facts over --users (issue: 1,000,000)")
    ap.add_argument("--users", type=int, default=50, help="users for --multi-facts (issue: 1,000)")
    ap.add_argument("--many-store", choices=("per-user", "shared"), default="per-user",
                    help="the many-users commit: a store opened per user in turn, or one store for all (a server)")
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--rate", type=float, default=200.0)
    ap.add_argument("--http-seconds", type=float, default=15.0)
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--writer-seconds", type=float, default=30.0, help="issue: 300")
    ap.add_argument("--parts", default=",".join(PARTS),
                    help="what to measure, comma-separated from " + ",".join(PARTS) + " (recall reads commit's database)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rng = random.Random(15)
    names = entity_names(max(100, args.facts // 10), rng)
    one = make_triplets(args.facts, names, rng)
    many = make_triplets(args.multi_facts, names, rng)
    queries = make_queries(args.queries, names, rng)
    parts = set(args.parts.split(",")) | ({"commit"} if "recall" in args.parts or "http" in args.parts else set())
    report: dict[str, Any] = {"args": vars(args)}
    with tempfile.TemporaryDirectory() as tmp, backends(args.backends.split(","), Path(tmp)) as dbs:
        for name, (fresh, server_cpu) in dbs.items():
            r = measure(args, parts, fresh, server_cpu, one, many, queries)
            report[name] = r
            print(f"[{name}] " + json.dumps(r), file=sys.stderr)  # kept should a later backend fail
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print_table(report, args)


def measure(args: argparse.Namespace, parts: set[str], fresh: Fresh, server_cpu: Callable[[], float],
            one: list[dict[str, Any]], many: list[dict[str, Any]], queries: list[str]) -> dict[str, Any]:
    """The chosen parts on one backend; recall and HTTP read the last one-user commit's database."""
    r: dict[str, Any] = {}
    db = ""
    if "commit" in parts:
        runs = []
        for _ in range(args.runs):
            db = fresh()
            runs.append(commit_run(db, ["u0"], one, args.batch, server_cpu))
        r["commit_one_user"] = med(runs)
    if "recall" in parts:
        r["recall_depth2"] = med([recall_run(db, queries, server_cpu) for _ in range(args.runs)])
    if "many" in parts or "common" in parts:
        many_db = fresh()
        r["commit_many_users"] = commit_run(many_db, [f"u{i}" for i in range(args.users)], many, args.batch,
                                            server_cpu, shared=args.many_store == "shared")
        if "common" in parts:
            r["common_word_oldest_user"] = common_run(many_db)
    if "http" in parts:
        r["http_recall_4_workers"] = http_run(db, queries, args.rate, args.http_seconds, server_cpu)
    if "writers" in parts:
        r["writers"] = writers_run(fresh(), args.writers, args.writer_seconds)
    return r


def print_table(report: dict[str, Any], args: argparse.Namespace) -> None:
    names = [n for n in ("sqlite", "postgres") if n in report]
    rows = [
        (f"commit {args.facts:,} facts, 1 user (facts/s)", "commit_one_user", "facts_per_s", "{:,.0f}"),
        ("  client CPU s / server CPU s", "commit_one_user", ("cpu_s", "server_cpu_s"), "{:.1f} / {:.1f}"),
        (f"commit {args.multi_facts:,} facts, {args.users} users, {args.many_store} store (facts/s)", "commit_many_users",
         "facts_per_s", "{:,.0f}"),
        ("  client CPU s / server CPU s", "commit_many_users", ("cpu_s", "server_cpu_s"), "{:.1f} / {:.1f}"),
        ("common-word fact search, oldest user: collect (ms)", "common_word_oldest_user", "collect_ms", "{:.2f}"),
        ("  walk by user / global walk (ms), same facts", "common_word_oldest_user",
         ("walk_user_ms", "walk_global_ms", "same_facts"), "{:.2f} / {:.1f}, {:.0f}"),
        ("recall depth 2 p50 / p95 (ms)", "recall_depth2", ("p50_ms", "p95_ms"), "{:.1f} / {:.1f}"),
        ("  client CPU / server CPU per call (ms)", "recall_depth2", ("cpu_ms_per_call", "server_cpu_ms_per_call"),
         "{:.1f} / {:.1f}"),
        (f"HTTP recall p50 / p95 (ms) at {args.rate:.0f} req/s, 4 workers", "http_recall_4_workers",
         ("p50_ms", "p95_ms"), "{:.1f} / {:.1f}"),
        ("  achieved req/s, errors", "http_recall_4_workers", ("achieved_rps", "errors"), "{:.0f}, {:.0f}"),
        ("  CPU ms per request: workers / database", "http_recall_4_workers",
         ("workers_cpu_ms_per_req", "db_server_cpu_ms_per_req"), "{:.1f} / {:.1f}"),
        ("  load generator: CPU ms per request, own lag p95 ms", "http_recall_4_workers",
         ("generator_cpu_ms_per_req", "generator_lag_p95_ms"), "{:.2f}, {:.1f}"),
        (f"{args.writers} writers {args.writer_seconds:.0f} s: facts/s", "writers", "facts_per_s", "{:,.0f}"),
        ("  errors, lost acknowledged writes", "writers", ("errors", "lost"), "{:.0f}, {:.0f}"),
    ]
    print(f"{'':58}" + "".join(f"{n:>20}" for n in names))
    for label, part, keys, fmt in rows:
        if any(part not in report[n] for n in names):
            continue
        cells = []
        for n in names:
            data = report[n][part]
            want = keys if isinstance(keys, tuple) else (keys,)
            cells.append(fmt.format(*[data[k] for k in want]) if all(k in data for k in want) else "-")
        print(f"{label:58}" + "".join(f"{c:>20}" for c in cells))
    print(f"medians of {args.runs} runs (commit, recall); one run of the rest; wall time unless CPU is named")


if __name__ == "__main__":
    main()
