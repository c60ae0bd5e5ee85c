"""Dream benchmark: detection quality on a labelled fixture, and analysis at scale.

Quality: ``bench/dream_fixture.json`` (written for trulymem while building the
detector) and ``bench/dream_fixture_heldout.json`` (written separately and never
tuned on): paraphrased duplicates, contradictions and look-alike distractors,
English and Chinese, free-text memories and triplets. Prints pair precision and recall for duplicates and contradictions,
no LLM. Targets: duplicates precision >= 0.95 and recall >= 0.85, contradictions
precision >= 0.9.

Scale: fetch + analysis time and peak memory for 10k and 100k memories (each size
in its own process, so peak RSS is that size's own). Target: 100k in <= 60 s.

    python bench/bench_dream.py [--sizes 10000 100000] [--runs 3] [--embedder hashing] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dream_quality import print_quality, quality  # type: ignore[import-not-found]  (bench/ is not a package)

from trulymem import TrulyMem
from trulymem.config import Settings
from trulymem.dream import run_dream
from trulymem.llm import get_llm
from trulymem.memories import MEMORY_RELATION

# The first three have been looked at pair by pair while building the detector (dev sets);
# v3 was written apart from it and is only ever reported as figures (held out).
FIXTURES = [Path(__file__).with_name("dream_fixture.json"),
            Path(__file__).with_name("dream_fixture_heldout.json"),
            Path(__file__).with_name("dream_fixture_v2.json"),
            Path(__file__).with_name("dream_fixture_v4.json"),
            # v6: written for issue 26 by a helper who never saw the code, as a DEV set (looked at pair by pair)
            Path(__file__).with_name("dream_fixture_v6.json"),
            # v3: held out until issue 26's fifth session, then looked at pair by pair (a dev set since)
            Path(__file__).with_name("dream_fixture_v3.json"),
            Path(__file__).with_name("dream_fixture_v5.json"),
            # v7: written by a helper who never saw the code; measured once held out (contradictions
            # P 0.632 / R 0.471), then looked at pair by pair (a dev set since)
            Path(__file__).with_name("dream_fixture_v7.json"),
            Path(__file__).with_name("dream_fixture_v8.json"),
            # v9 (issue 26, sixth session): a clinical data analyst, 356 memories
            Path(__file__).with_name("dream_fixture_v9.json"),
            # v10 (seventh session): a firmware engineer, 332 memories, 40% Chinese; measured once held out
            # (contradictions P 0.704 / R 0.380, found R 0.721), then looked at pair by pair (a dev set since)
            Path(__file__).with_name("dream_fixture_v10.json"),
            # v12 (seventh session): a marine biologist, 342 memories, 35% Chinese; measured once held out
            # (contradictions P 0.613 / R 0.396, found R 0.629), then looked at pair by pair (a dev set since)
            Path(__file__).with_name("dream_fixture_v12.json"),
            # v14 (seventh session): a hospital pharmacist, 330 memories, 29% Chinese; measured once held out
            # (contradictions P 0.625 / R 0.400, found R 0.672), then looked at pair by pair (a dev set since)
            Path(__file__).with_name("dream_fixture_v14.json"),
            # v11 and v13 (seventh session): an engineering manager (327 memories, 55% Chinese), a freelance
            # developer (327, 50% Chinese)
            Path(__file__).with_name("dream_fixture_v11.json"),
            Path(__file__).with_name("dream_fixture_v13.json"),
            # v15 and v16 (eighth session): a hospital pharmacist with a tea shop (354 memories, 63% Chinese), a
            # hardware founder (344, 55% Chinese); measured once held out (v15: contradictions P 0.500 / R 0.240,
            # found R 0.644; v16: P 0.784 / R 0.604, found R 0.810), then looked at pair by pair (dev sets since)
            Path(__file__).with_name("dream_fixture_v15.json"),
            Path(__file__).with_name("dream_fixture_v16.json"),
            # v17 (eighth session): a climate-policy researcher, 397 memories, 35% Chinese; written as held out and
            # measured once (contradictions P 0.413 / R 0.380, found R 0.689; 0.529 / 0.360, 0.689 with the session's
            # starting code), then looked at pair by pair (a dev set since)
            Path(__file__).with_name("dream_fixture_v17.json"),
            # v18 (ninth session): a veterinarian in Chengdu, 359 memories, half Chinese; held out (measured
            # on arrival: contradictions P 0.920 / R 0.460, found R 0.717, with the start code and mid-session)
            Path(__file__).with_name("dream_fixture_v18.json"),
            # v19 (ninth session): the same persona written apart by another helper, 476 memories, half Chinese;
            # held out (on arrival, mid-session: contradictions P 0.808 / R 0.420, found R 0.561; start code
            # 0.808 / 0.420, found 0.530)
            Path(__file__).with_name("dream_fixture_v19.json"),
            # v20 (tenth session): a Chinese-Canadian orthopaedic nurse in Vancouver, 398 memories, 48% Chinese,
            # written by a helper who never saw the code; held out (on arrival, with the session's start code
            # and with its end code alike: contradictions P 0.704 / R 0.380, found R 0.655)
            Path(__file__).with_name("dream_fixture_v20.json"),
            # v21 (eleventh session): a freelance sound engineer in Melbourne born in Wuhan, 403 memories, half
            # Chinese, by a helper who never saw the code; its brief asked for values in many formats. Held out (on
            # arrival: contradictions P 0.467 / R 0.420, found R 0.694; the session's start code 0.444 / 0.400, 0.613)
            Path(__file__).with_name("dream_fixture_v21.json")]
# v5, v8, v9, v11, v13, v18, v19, v20 and v21 were written for issue 26 by helpers who never saw the code or the other
# fixtures: only ever reported as figures
HELD_OUT = {"dream_fixture_v5.json", "dream_fixture_v8.json", "dream_fixture_v9.json", "dream_fixture_v11.json",
            "dream_fixture_v13.json", "dream_fixture_v18.json", "dream_fixture_v19.json", "dream_fixture_v20.json",
            "dream_fixture_v21.json"}


def synthetic(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """Project notes over a Zipf-distributed vocabulary of 5,000 words (as real notes
    are): ~5% reworded duplicates of an earlier note, ~1% with one value swapped, the
    rest distinct."""
    rng = random.Random(seed)
    syll = "ka ri to mu sen lo pa vi de qu ran tel bo ni zor ex ma fi lu gra".split()
    vocab = sorted({"".join(rng.choices(syll, k=rng.randint(2, 4))) for _ in range(6000)})[:5000]
    weights = [1 / (r + 1) for r in range(len(vocab))]
    types = ["decision", "process", "session_state", "task_learning", "pref"]
    out: list[dict[str, Any]] = []
    while len(out) < n:
        words = rng.choices(vocab, weights, k=rng.randint(6, 10))
        t = rng.choice(types)
        out.append({"subject": "user", "relation": MEMORY_RELATION, "object": " ".join(words), "type": t})
        r = rng.random()
        if r < 0.05:  # the same note again, reworded: one word dropped, two swapped
            w2 = words[:]
            w2.pop(rng.randrange(len(w2)))
            i = rng.randrange(len(w2) - 1)
            w2[i], w2[i + 1] = w2[i + 1], w2[i]
            out.append({"subject": "user", "relation": MEMORY_RELATION, "object": " ".join(w2), "type": t})
        elif r < 0.06:  # one value changed
            w2 = words[:]
            w2[-1] = rng.choice(vocab[1000:])
            out.append({"subject": "user", "relation": MEMORY_RELATION, "object": " ".join(w2), "type": t})
    return out[:n]


def templated(n: int, seed: int = 11) -> list[dict[str, Any]]:
    """Notes written from a few templates with many values, as tools and imports write
    them ("Service svc-12 deploys to ECS", "Alice lives in Lyon", 服务 svc-3 使用 Redis):
    the worst case for "same frame, another value" — a swap detector that compares
    every such pair proposes conflicts by the hundred thousand."""
    rng = random.Random(seed)
    clouds = ["ECS", "Vercel", "Lambda", "Fly.io", "Cloud Run", "Heroku", "Render", "Netlify"]
    dbs = ["PostgreSQL", "MySQL", "MongoDB", "Redis", "SQLite", "DynamoDB"]
    cities = ["Lyon", "Berlin", "Lisbon", "Osaka", "Denver", "Porto", "Austin", "Kyoto", "Hanoi", "Quito"]
    people = [f"{a}{b}" for a in ("Al", "Bo", "Ca", "Da", "El", "Fa", "Gi", "Ha") for b in ("ex", "na", "ro", "li")]
    templates = [
        lambda: (f"Service svc-{rng.randrange(n // 8 + 1)} deploys to {rng.choice(clouds)}", "decision"),
        lambda: (f"The {rng.choice(['orders', 'users', 'billing', 'search'])} service uses {rng.choice(dbs)}", "decision"),
        lambda: (f"{rng.choice(people)} lives in {rng.choice(cities)}", "pref"),
        lambda: (f"服务 svc-{rng.randrange(n // 8 + 1)} 使用 {rng.choice(dbs)}", "decision"),
        lambda: (f"Ticket #{rng.randrange(100_000)} is assigned to {rng.choice(people)}", "session_state"),
    ]
    out = []
    for _ in range(n):
        text, t = rng.choice(templates)()
        out.append({"subject": "user", "relation": MEMORY_RELATION, "object": text, "type": t})
    return out


def _timed_dream(mem: TrulyMem, embedder: str | None, project: Path) -> dict[str, Any]:
    encoded: list[int] = [0]

    def progress(what: str, done: int, total: int | None) -> None:
        if what == "Encoding new memories" and total:
            encoded[0] = total
    w0, c0 = time.perf_counter(), time.process_time()
    r = run_dream(mem, project_dir=project, dry_run=True, emit=lambda _: None, progress=progress,
                  embedder=embedder if embedder is not None else "none")
    a = r.analysis
    assert a is not None
    return {"wall_s": round(time.perf_counter() - w0, 2), "cpu_s": round(time.process_time() - c0, 2),
            "encoded": encoded[0], "merges": len(a.merges), "conflicts": len(a.conflicts) + a.conflicts_more,
            "prunes": len(a.prunes)}


def scale_once(n: int, embedder: str | None, corpus: str = "notes") -> dict[str, Any]:
    """The whole dry run as users meet it (fetch, encode, analyse, report) on a reopened
    database: first pass (``cold``: every memory encoded), then once 1% more memories have
    been written (``lived``: only they are encoded)."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "s.db"
        clock_start = datetime.now(UTC) - timedelta(days=120)
        rows = templated(n + n // 100) if corpus == "templated" else synthetic(n + n // 100)
        with TrulyMem(db, user_id="s", app_id="p", clock=lambda: clock_start) as mem:
            for i in range(0, n, 5000):
                mem.commit(rows[i : min(i + 5000, n)], supersede=False)
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        with TrulyMem(db, user_id="s", app_id="p") as mem:
            cold = _timed_dream(mem, embedder, Path(tmp))
        with TrulyMem(db, user_id="s", app_id="p") as mem:
            mem.commit(rows[n:], supersede=False)
        with TrulyMem(db, user_id="s", app_id="p") as mem:
            lived = _timed_dream(mem, embedder, Path(tmp))
        rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"memories": n, "cold": cold, "lived": lived, "peak_rss_mib": round(rss1 / 1024, 1),
            "rss_growth_mib": round((rss1 - rss0) / 1024, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--embedder", default="auto",
                    help="the dream's embedder: auto (default: what trulymem dream uses), none (words only), use, e5 …")
    ap.add_argument("--corpus", choices=["notes", "templated"], default="notes",
                    help="scale corpus: Zipf-worded notes, or templated notes with many values per frame")
    ap.add_argument("--judge", choices=["none", "labels", "model"], default="none",
                    help="who judges the pairs the rules cannot: nobody (plain install), the fixture's labels "
                         "(a model that is always right: an upper bound), or the chat model configured by "
                         "TRULYMEM_LLM_MODEL / TRULYMEM_LLM_BASE_URL / TRULYMEM_LLM_API_KEY")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # internal: one scale run in this process
    args = ap.parse_args(argv)
    embedder = None if args.embedder == "none" else args.embedder
    if args.one:
        print(json.dumps(scale_once(args.one, embedder, args.corpus)))
        return 0
    judge: Any = None if args.judge == "none" else "labels" if args.judge == "labels" else \
        get_llm(Settings.load().llm)
    qs = [quality(f, embedder, judge) for f in FIXTURES]
    scale: dict[int, list[dict[str, Any]]] = {}
    for n in args.sizes:
        for _ in range(args.runs):
            out = subprocess.run([sys.executable, __file__, "--one", str(n), "--embedder", args.embedder,
                                  "--corpus", args.corpus],
                                 capture_output=True, text=True, check=True)
            scale.setdefault(n, []).append(json.loads(out.stdout.strip().splitlines()[-1]))
    def med(rs: list[dict[str, Any]], run: str, key: str) -> float:
        return float(statistics.median(r[run][key] for r in rs))
    summary = {"embedder": args.embedder, "quality": qs, "scale": {
        n: {"runs": len(rs), **{f"{run}_{k}_median": med(rs, run, k) for run in ("cold", "lived")
                                for k in ("wall_s", "cpu_s")},
            "lived_encoded": rs[0]["lived"]["encoded"], "peak_rss_mib_max": max(r["peak_rss_mib"] for r in rs),
            "merges": rs[0]["cold"]["merges"], "conflicts": rs[0]["cold"]["conflicts"],
            "prunes": rs[0]["cold"]["prunes"]}
        for n, rs in scale.items()}}
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
        return 0
    for q in qs:
        print_quality(q, args.embedder, held_out=q["fixture"] in HELD_OUT)
    for n, sc in summary["scale"].items():
        print(f"scale {n:,} memories, dry run on a reopened database ({sc['runs']} runs, medians): "
              f"first pass {sc['cold_wall_s_median']} s wall / {sc['cold_cpu_s_median']} s CPU; "
              f"after 1% more ({sc['lived_encoded']:,} encoded) {sc['lived_wall_s_median']} s wall / "
              f"{sc['lived_cpu_s_median']} s CPU; peak RSS {sc['peak_rss_mib_max']} MiB; found {sc['merges']} merges, "
              f"{sc['conflicts']} conflicts, {sc['prunes']} prunes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
