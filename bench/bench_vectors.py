"""Vector search benchmark: exact vs the HNSW index, 1 vs 2 BLAS threads, write-then-search.

For each size in ``--sizes`` it stores that many nodes with vectors (512-d) of synthetic
sentences in a SQLite file — random Zipf-distributed words with the hashing embedder,
or, with ``--embedder use``, templated English sentences with the bundled multilingual
encoder — then times ``store.vector_search`` for ``--queries`` queries (a few words of a
stored sentence plus one other word):

* exact (``TRULYMEM_ANN_THRESHOLD`` above the size) with 1 and 2 BLAS threads;
* the index (threshold below the size): its first build, search p50/p95, recall@10
  against exact, memory per vector, and reading it back after a reopen;
* a write followed by a search, in both modes.

Each figure is the median of ``--runs`` runs, CPU time beside wall. Prints figures; asserts
nothing. Run from the repository root::

    python bench/bench_vectors.py                          # 10k and 100k vectors, 3 runs
    python bench/bench_vectors.py --sizes 1000000 --runs 3 # 1M: the first build takes long
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import statistics
import string
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from trulymem.embed import Embedder, get_embedder
from trulymem.model import NodeType, Scope
from trulymem.store.base import NodeSpec
from trulymem.store.sqlite import SQLiteStore

SCOPE = Scope(user_id="bench")


def sentences(n: int, rng: random.Random) -> tuple[list[str], list[str]]:
    vocab = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9))) for _ in range(20_000)]
    cum = list(itertools.accumulate(1.0 / (r + 1) for r in range(len(vocab))))
    return [" ".join(rng.choices(vocab, cum_weights=cum, k=rng.randint(6, 16))) + f" n{i}" for i in range(n)], vocab


NAMES = "Caroline Melanie Jon Gina Nate Joanna Tim John Maria Audrey Andrew Evan Sam Dave Calvin Deborah".split()
VERBS = ["went hiking", "painted", "talked about", "bought", "cooked", "read a book about", "adopted", "visited",
         "lost", "planned a trip for", "wrote a song about", "fixed", "volunteered at", "argued about", "dreamed of"]
THINGS = ["a puppy", "the old guitar", "pottery class", "a support group", "the garden", "a camping trip",
          "her grandmother's ring", "a new job", "the marathon", "a sunset painting", "the family dinner",
          "a school project", "the beach", "a concert", "his vintage car", "a bakery", "the library", "a kitten",
          "the hospital", "a wedding", "an art show", "the mountains", "a board game night", "the city council"]
WHEN = ["last week", "yesterday", "in May", "on Sunday", "after work", "with friends", "alone", "for the first time",
        "again", "with the kids", "during the storm", "before the move"]


def templated(n: int, rng: random.Random) -> tuple[list[str], list[str]]:
    """English sentences with some meaning to share (semantic encoders have structure to find)."""
    texts = [f"{rng.choice(NAMES)} {rng.choice(VERBS)} {rng.choice(THINGS)} {rng.choice(WHEN)} and "
             f"{rng.choice(VERBS)} {rng.choice(THINGS)} ({i})" for i in range(n)]
    return texts, [w for t in THINGS for w in t.split()]


def queries(n: int, texts: list[str], vocab: list[str], rng: random.Random) -> list[str]:
    out = []
    for _ in range(n):
        words = rng.choice(texts).split()
        out.append(" ".join([*rng.sample(words, min(len(words), rng.randint(2, 4))), rng.choice(vocab)]))
    return out


def build(path: Path, texts: list[str], emb: Embedder) -> None:
    store = SQLiteStore(path)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    with store.transaction():
        store.ensure_user("bench", now)
        store.set_embedding_model(emb.name)
    for i in range(0, len(texts), 5000):
        chunk = texts[i : i + 5000]
        with store.transaction():
            ids = store.resolve_nodes(SCOPE, [NodeSpec(key=t, name=t, type=NodeType.ENTITY) for t in chunk], now)
            store.put_vectors([(ids[t], v) for t, v in zip(chunk, emb.embed_passages(chunk))])
    store.close()


@contextmanager
def env(**values: str) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall ms, CPU ms, result) of one call."""
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return (time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000, out


def pct(vals: list[float], q: float) -> float:
    s = sorted(vals)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def search_run(store: SQLiteStore, qvecs: np.ndarray) -> dict[str, Any]:
    walls, cpus, found = [], [], []
    for q in qvecs:
        w, c, res = timed(lambda q=q: store.vector_search(SCOPE, q, 10))
        walls.append(w)
        cpus.append(c)
        found.append([i for i, _ in res])
    return {"p50_ms": pct(walls, 0.5), "p95_ms": pct(walls, 0.95), "cpu_mean_ms": statistics.fmean(cpus), "found": found}


def write_then_search(store: SQLiteStore, emb: Embedder, qvec: np.ndarray, tag: str) -> tuple[float, float]:
    def go() -> None:
        with store.transaction():
            ids = store.resolve_nodes(SCOPE, [NodeSpec(key=tag, name=tag, type=NodeType.ENTITY)], datetime.now(UTC))
            store.put_vectors([(ids[tag], emb.embed_passages([tag])[0])])
        store.vector_search(SCOPE, qvec, 10)

    w, c, _ = timed(go)
    return w, c


def med(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def bench_size(n: int, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    rng = random.Random(args.seed)
    texts, vocab = sentences(n, rng) if args.embedder == "hashing" else templated(n, rng)
    emb = get_embedder(args.embedder)
    qvecs = emb.embed_batch(queries(args.queries, texts, vocab, rng), "query")
    path = folder / f"vectors_{n}.sqlite"
    w, c, _ = timed(lambda: build(path, texts, emb))
    out: dict[str, Any] = {"vectors": n, "embedder": emb.name, "load_s": round(w / 1000, 1)}
    exact_found: list[list[str]] = []
    with env(TRULYMEM_ANN_THRESHOLD=str(10 * n + 1_000_000)):
        for threads in (1, 2):
            with env(TRULYMEM_BLAS_THREADS=str(threads)):
                store = SQLiteStore(path)
                first_w, first_c, _ = timed(lambda s=store: s.vector_search(SCOPE, qvecs[0], 10))
                runs = [search_run(store, qvecs) for _ in range(args.runs)]
                exact_found = runs[0]["found"]
                wts = [write_then_search(store, emb, qvecs[0], f"exact write {threads} {i}") for i in range(args.runs)]
                out[f"exact_{threads}t"] = {"first_search_s": round(first_w / 1000, 2), "p50_ms": med(runs, "p50_ms"),
                                           "p95_ms": med(runs, "p95_ms"), "cpu_mean_ms": med(runs, "cpu_mean_ms"),
                                           "write_then_search_ms": statistics.median(x[0] for x in wts),
                                           "write_then_search_cpu_ms": statistics.median(x[1] for x in wts)}
                store.close()
    with env(TRULYMEM_ANN_THRESHOLD="1000", TRULYMEM_BLAS_THREADS="1", TRULYMEM_ANN_EXACT=""):
        store = SQLiteStore(path)
        w0, c0 = time.perf_counter(), time.process_time()
        first_w, _, _ = timed(lambda: store.vector_search(SCOPE, qvecs[0], 10))  # answers while the build starts
        (vs,) = store._vec_sets.values()
        vs.wait_built()  # the build runs in a background thread; process_time counts it too
        build_w, build_c = (time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000
        runs = [search_run(store, qvecs) for _ in range(args.runs)]
        hits = [len(set(a) & set(e)) / max(1, len(e)) for a, e in zip(runs[0]["found"], exact_found)]
        wts = [write_then_search(store, emb, qvecs[0], f"ann write {i}") for i in range(args.runs)]
        memory = vs.memory_bytes() / len(vs)
        store.close()  # saves the index beside the database
        store = SQLiteStore(path)
        load_w, load_c, _ = timed(lambda: store.vector_search(SCOPE, qvecs[0], 10))
        store.close()
    out["ann"] = {"build_s": round(build_w / 1000, 1), "build_cpu_s": round(build_c / 1000, 1),
                  "first_search_s": round(first_w / 1000, 2),
                  "p50_ms": med(runs, "p50_ms"), "p95_ms": med(runs, "p95_ms"), "cpu_mean_ms": med(runs, "cpu_mean_ms"),
                  "recall_at_10": statistics.fmean(hits), "bytes_per_vector": round(memory),
                  "reopen_first_search_s": round(load_w / 1000, 2),
                  "write_then_search_ms": statistics.median(x[0] for x in wts),
                  "write_then_search_cpu_ms": statistics.median(x[1] for x in wts)}
    return out


def show(r: dict[str, Any]) -> None:
    print(f"\n{r['vectors']:,} vectors (512-d, {r['embedder']}; loaded in {r['load_s']} s)")
    print(f"{'':24}{'p50 ms':>8}{'p95 ms':>8}{'CPU ms':>8}{'write+search ms':>17}{'(CPU)':>7}")
    for name in ("exact_1t", "exact_2t", "ann"):
        s = r[name]
        label = {"exact_1t": "exact, 1 BLAS thread", "exact_2t": "exact, 2 BLAS threads", "ann": "HNSW index, 1 thread"}[name]
        print(f"{label:24}{s['p50_ms']:8.2f}{s['p95_ms']:8.2f}{s['cpu_mean_ms']:8.2f}"
              f"{s['write_then_search_ms']:17.2f}{s['write_then_search_cpu_ms']:7.2f}")
    a = r["ann"]
    print(f"index: recall@10 vs exact {a['recall_at_10']:.3f}, {a['bytes_per_vector']:,} B/vector in memory, "
          f"first build {a['build_s']} s ({a['build_cpu_s']} s CPU) in the background, the search that started it "
          f"{a['first_search_s']} s, read back after reopen {a['reopen_first_search_s']} s; "
          f"exact first search (loading the vectors) {r['exact_1t']['first_search_s']} s")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated vector counts")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--embedder", choices=["hashing", "use"], default="hashing",
                    help="hashing: random Zipf words; use: templated English sentences, the bundled encoder")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",")]
    load = os.getloadavg()
    if not args.json:
        print(f"trulymem bench_vectors | {os.cpu_count()} CPUs | load average {load[0]:.2f} | "
              f"{args.runs} runs x {args.queries} queries, medians", flush=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="trulymem-vec-") as tmp:
        for n in sizes:
            r = bench_size(n, args, Path(tmp))
            results.append(r)
            if not args.json:
                show(r)
    out = {"load_average": load, "results": results}
    if args.json:
        print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
