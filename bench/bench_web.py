"""The web app in headless Chromium against a real ``trulymem serve``: first paint of a
10k-fact graph, search end to end, and how soon a chat turn's first token is on screen.

    python bench/bench_web.py [--facts 10000] [--runs 5]

- **first paint**: from navigation to the first frame with the graph drawn (the page's
  ``performance.now()`` when cytoscape has rendered), at the default level of detail
  (1,500 nodes) and with every node drawn (``/?detail=20000``); a fresh page each run.
- **search**: from pressing Search to the results listed and highlighted in the graph
  (``memory_recall`` over HTTP, rendering included), a different query each run.
- **chat first token**: from the moment the model server starts answering (the scripted
  model server, in this process, streams the reply in 8-character chunks) to the first
  token shown in the page (epoch milliseconds on both sides: one machine, one clock).

Each figure is the median of ``--runs`` runs (at least 3), with the server's CPU time
(user + system, from /proc) beside the wall time. Needs /usr/bin/chromium and playwright
(the test extra). Benchmarks print figures; they do not pass or fail."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.helpers import Served  # noqa: E402
from tests.web.conftest import CHROMIUM, FLAGS  # noqa: E402
from trulymem import TrulyMem  # noqa: E402
from trulymem.llm.scripted_server import ScriptedServer  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
WORDS = ["rock", "jazz", "Lisbon", "Porto", "cello", "coffee", "Python", "chess", "running", "tea", "Berlin", "piano"]
RELATIONS = ["likes", "knows", "works_on", "visited", "owns", "reads", "plays", "uses"]


def cpu_of(pid: int) -> float:
    """User + system seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def seed(db: Path, facts: int) -> None:
    """``facts`` facts among about ``facts`` nodes: people, topics, projects, a task chain."""
    with TrulyMem(db, user_id="default", embedder="hashing") as mem:
        batch: list[dict[str, str]] = []
        for i in range(facts - 20):
            subject = "user" if i % 10 == 0 else f"person {i % 997}"
            batch.append({"subject": subject, "relation": RELATIONS[i % len(RELATIONS)],
                          "object": f"{WORDS[i % len(WORDS)]} {i}"})
            if len(batch) == 1000:
                mem.commit(batch, supersede=False)
                batch = []
        if batch:
            mem.commit(batch, supersede=False)
        for t in range(10):
            mem.run("task_create", {"task_id": f"Task {t}", "description": f"work item {t}"})


def measure(runs: int, one: Callable[[int], float], pid: int) -> tuple[float, float]:
    """Median wall ms and median server CPU ms of ``one(run)`` (which returns its wall ms)."""
    walls, cpus = [], []
    for i in range(runs):
        c0 = cpu_of(pid)
        walls.append(one(i))
        cpus.append((cpu_of(pid) - c0) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def report(name: str, target: str, wall: float, cpu: float) -> None:
    print(f"  {name:<38} {wall:8.1f} ms wall   {cpu:7.1f} ms server CPU   (target {target})", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--facts", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    opts = ap.parse_args()
    runs = max(3, opts.runs)
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is missing: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    model_started: list[float] = []

    def reply(_: list[dict[str, Any]]) -> str:
        model_started.append(time.time() * 1000)
        return "Here is a reply the model streams in small pieces, as a real model would."

    with tempfile.TemporaryDirectory() as tmp, ScriptedServer([reply] * runs, model="m", api_key="k") as llm:
        db = Path(tmp) / "web.db"
        t0 = time.perf_counter()
        seed(db, opts.facts)
        print(f"seeded {opts.facts} facts in {time.perf_counter() - t0:.1f} s", flush=True)
        os.environ.update({"TRULYMEM_LLM_MODEL": "m", "TRULYMEM_LLM_BASE_URL": llm.base_url,
                           "TRULYMEM_LLM_API_KEY": "k", "TRULYMEM_CONFIG": str(Path(tmp) / "none"),
                           "HOME": tmp})
        srv = Served(str(db), "--no-mcp")
        try:
            with sync_playwright() as p:
                ctx = p.chromium.launch_persistent_context(str(Path(tmp) / "profile"), executable_path=CHROMIUM,
                                                           headless=True, args=FLAGS,
                                                           viewport={"width": 1280, "height": 800})
                try:
                    run_all(ctx, srv, runs, model_started)
                finally:
                    ctx.close()
        finally:
            srv.stop()


def run_all(ctx: Any, srv: Served, runs: int, model_started: list[float]) -> None:
    pid = srv.proc.pid
    print(f"trulymem web app, headless Chromium, median of {runs} runs:")

    def paint(query: str) -> Callable[[int], float]:
        def one(_: int) -> float:
            page = ctx.new_page()
            page.goto(f"{srv.url}/{query}")
            page.wait_for_selector("body[data-state=ready]", timeout=120_000)
            ms = float(page.evaluate("window.trulymem.paintedAt"))
            page.close()
            return ms
        return one

    page = ctx.new_page()
    page.goto(srv.url + "/")  # warm-up: the server's caches and the browser's module cache
    page.wait_for_selector("body[data-state=ready]", timeout=120_000)
    drawn = page.evaluate("window.trulymem.drawn()")
    parts = page.evaluate("({fetch: window.trulymem.fetchMs, build: window.trulymem.buildMs})")
    status = page.inner_text("#graph-status")
    page.close()
    print(f"  (default detail draws {len(drawn['nodes'])} nodes, {len(drawn['edges'])} edges: {status}; warm-up "
          f"page: graph answer {parts['fetch']:.0f} ms, cytoscape build {parts['build']:.0f} ms)")
    for detail in (1500, 20000):  # the graph answer on the wire: gzipped for a browser, as sent
        raw = httpx.get(f"{srv.url}/v1/graph", params={"max_nodes": detail}, headers={"Accept-Encoding": "identity"})
        with httpx.stream("GET", f"{srv.url}/v1/graph", params={"max_nodes": detail},
                          headers={"Accept-Encoding": "gzip"}) as r:
            wire = b"".join(r.iter_raw())
        print(f"  graph answer, {detail} nodes: {len(raw.content) / 1024:.0f} KB of JSON, "
              f"{len(wire) / 1024:.0f} KB sent ({r.headers.get('content-encoding', 'not compressed')})")
    report("first paint, default detail", "<= 2000 ms", *measure(runs, paint(""), pid))
    report("first paint, every node (?detail=20000)", "<= 2000 ms", *measure(runs, paint("?detail=20000"), pid))

    page = ctx.new_page()
    page.goto(srv.url + "/")
    page.wait_for_selector("body[data-state=ready]", timeout=120_000)

    def search(i: int) -> float:
        page.evaluate("window.trulymem.searchMs = null")
        page.fill("#search-input", f"{WORDS[i % len(WORDS)]} {RELATIONS[i % len(RELATIONS)]}")
        page.click("#search-form button[type=submit]")
        page.wait_for_function("() => window.trulymem.searchMs !== null", timeout=60_000)
        return float(page.evaluate("window.trulymem.searchMs"))

    report("search, submit to results shown", "<= 200 ms", *measure(runs, search, pid))

    page.get_by_role("tab", name="Chat").click()

    def chat(i: int) -> float:
        page.evaluate("window.trulymem.firstToken = null")
        before = len(model_started)
        page.fill("#chat-input", f"tell me something, take {i}")
        page.click("#chat-form button[type=submit]")
        page.wait_for_function("() => window.trulymem.firstToken !== null", timeout=60_000)
        page.wait_for_function(f"() => document.querySelectorAll('#chat-log details.trace').length > {i}",
                               timeout=60_000)
        shown = float(page.evaluate("window.trulymem.firstToken")) - model_started[before]
        page.wait_for_selector("body[data-state=ready]", timeout=120_000)  # the graph redrawn after the turn
        return shown

    report("chat: model's first token to shown", "<= 100 ms", *measure(runs, chat, pid))
    page.close()


if __name__ == "__main__":
    main()
