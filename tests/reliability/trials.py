"""SIGKILL trials and mixed load from real processes, shared by the reliability tests (a few
trials) and ``bench/bench_reliability.py`` (a hundred). Each trial kills a process that is
writing — a library writer, a ``trulymem commit --file`` or ``trulymem import``, a
``trulymem serve`` with clients writing — at a random moment, then reads the database:
every acknowledged write must be there, a write cut short all or nothing, and the
invariants of ``invariants.store_problems`` must hold.
"""

from __future__ import annotations

import io
import json
import os
import random
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.helpers import Served
from tests.reliability.invariants import store_problems
from tests.reliability.workload import verify_writer
from trulymem import TrulyMem
from trulymem.text import relation_key

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "TRULYMEM_EMBEDDER": "hashing", "PYTHONPATH": os.pathsep.join(
    [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}


@dataclass
class Trial:
    """One killed process: how many writes were acknowledged, which of them (or of the one cut
    short) did not hold, and whether the kill came before the process finished."""

    acked: int = 0
    lost: list[str] = field(default_factory=list)
    killed: bool = True


def _wait_for(check: Any, proc: subprocess.Popen[Any] | None = None, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the child exited ({proc.returncode}) before it wrote anything")
        if time.monotonic() > deadline:
            raise RuntimeError("the child wrote nothing in time")
        time.sleep(0.01)


def _count(db: str, user: str, relation: str, like: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute(
            "SELECT count(*) FROM facts f JOIN nodes o ON o.rid = f.object_rid WHERE f.user_id = ? AND "
            "f.relation_key = ? AND f.invalid_at IS NULL AND o.name LIKE ?", (user, relation_key(relation), like)
        ).fetchone()[0])
    finally:
        conn.close()


# --- the library -------------------------------------------------------------------------------

def library_trial(db: str, trial: int, rng: random.Random, work: Path) -> Trial:
    """A writer process (commits of 1-200 facts, tasks, states, supersedes, mem0 adds, purges)
    killed 0-1 s after its first acknowledged write."""
    journal = work / f"writer{trial}.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "tests.reliability.workload", "writer", "--db", db, "--user",
                             "alice", "--tag", f"l{trial}", "--journal", str(journal), "--seed", str(trial)],
                            cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(lambda: journal.exists() and '"ack"' in journal.read_text(encoding="utf-8"), proc)
        time.sleep(rng.uniform(0, 1.0))
    finally:
        proc.kill()
        proc.wait()
    acked, lost = verify_writer(db, "alice", str(journal))
    return Trial(acked=acked, lost=lost + store_problems(db))


# --- the command line --------------------------------------------------------------------------

def _cli(db: str, args: list[str], kill_after: float | None) -> tuple[bool, float]:
    """Run ``trulymem ARGS``, SIGKILLed after ``kill_after`` s unless done: ``(acknowledged, seconds)``."""
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "trulymem", *args, "--db", db], env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=kill_after)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return proc.returncode == 0, time.monotonic() - started


def cli_trial(db: str, trial: int, rng: random.Random, work: Path, full: float | None, n: int = 3000) -> tuple[
        Trial, Trial, float]:
    """``trulymem commit --file`` of ``n`` facts, then ``trulymem import`` of another user's
    ``n``, each killed at a random point of the time a whole run takes (``full``; ``None``:
    not killed, and measured). Returns both trials and the slower run's seconds."""
    triplets = work / f"cli{trial}.jsonl"
    triplets.write_text("".join(json.dumps({"subject": "user", "relation": "cli", "object": f"c{trial}-{j}"}) + "\n"
                                for j in range(n)), encoding="utf-8")
    dump = work / f"import{trial}.jsonl"
    with TrulyMem(":memory:", user_id=f"imp{trial}", embedder="hashing") as source:
        source.commit([{"subject": "user", "relation": "imported", "object": f"i{trial}-{j}"} for j in range(n)])
        buf = io.StringIO()
        source.export_jsonl(buf)
    dump.write_text(buf.getvalue(), encoding="utf-8")
    out = []
    took = 0.0
    for args, user, relation, like in (
            (["commit", "--file", str(triplets), "--user", "alice"], "alice", "cli", f"c{trial}-%"),
            (["import", str(dump), "--all-users"], f"imp{trial}", "imported", f"i{trial}-%")):
        acked, seconds = _cli(db, args, None if full is None else rng.uniform(0.3, 1.0) * full)
        took = max(took, seconds)
        got = _count(db, user, relation, like)
        lost = [] if got == (n if acked else got) and got in (0, n) else [f"{args[0]}: {got} of {n} facts"]
        out.append(Trial(acked=n if acked else 0, lost=lost + store_problems(db), killed=not acked))
    return out[0], out[1], took


# --- the HTTP server ------------------------------------------------------------------------------

def http_trial(db: str, trial: int, rng: random.Random, clients: int = 3, batch: int = 30) -> Trial:
    """A real ``trulymem serve`` SIGKILLed 0.2-0.8 s after its first answer while ``clients``
    threads commit batches of ``batch`` triplets and one creates tasks and mem0 memories;
    acknowledged means answered 2xx."""
    import httpx

    s = Served(db)
    lock = threading.Lock()
    acked: list[tuple[str, Any]] = []
    tried: list[str] = []
    errors: list[str] = []

    def ack(kind: str, value: Any) -> None:
        with lock:
            acked.append((kind, value))

    def commits(t: int) -> None:
        with httpx.Client(base_url=s.url, timeout=30) as c:
            for k in range(100_000):
                prefix = f"h{trial}-{t}-{k}-"
                with lock:
                    tried.append(prefix)
                try:
                    r = c.post("/v1/triplets", params={"user_id": "alice"}, json={"triplets": [
                        {"subject": "user", "relation": "http", "object": f"{prefix}{j}"} for j in range(batch)]})
                except httpx.TransportError:
                    return  # the server is gone
                if r.is_success:
                    ack("batch", prefix)
                else:
                    errors.append(f"{r.status_code} {r.text[:200]}")

    def others() -> None:
        with httpx.Client(base_url=s.url, timeout=30) as c:
            for k in range(100_000):
                try:
                    task = c.post("/v1/tasks", params={"user_id": "alice"},
                                  json={"task_id": f"Task_h{trial}_{k}", "description": "over HTTP"})
                    memory = c.post("/v1/memories", json={"user_id": "alice", "text": f"http memory {trial} {k}"})
                except httpx.TransportError:
                    return
                for r, kind, value in ((task, "task", f"Task_h{trial}_{k}"), (memory, "memory", None)):
                    if r.is_success:
                        ack(kind, value if value else r.json()["results"][0]["id"])
                    else:
                        errors.append(f"{r.status_code} {r.text[:200]}")

    threads = [threading.Thread(target=commits, args=(t,)) for t in range(clients)] + [threading.Thread(target=others)]
    for th in threads:
        th.start()
    try:
        _wait_for(lambda: bool(acked))
        time.sleep(rng.uniform(0.2, 0.8))
    finally:
        s.proc.kill()
        s.proc.wait()
        for th in threads:
            th.join()
        s.stop()
    lost = [f"answered {e}" for e in errors]
    acked_batches = {v for k, v in acked if k == "batch"}
    for prefix in tried:
        got = _count(db, "alice", "http", prefix + "%")
        if got != batch and (prefix in acked_batches or got != 0):
            lost.append(f"batch {prefix}*: {got} of {batch} facts ({'acknowledged' if prefix in acked_batches else 'cut short'})")
    conn = sqlite3.connect(db)
    try:
        for kind, value in acked:
            if kind == "task" and conn.execute("SELECT 1 FROM nodes WHERE user_id = 'alice' AND name = ?",
                                               (value,)).fetchone() is None:
                lost.append(f"task {value} missing")
            if kind == "memory" and conn.execute("SELECT 1 FROM facts WHERE id = ? AND invalid_at IS NULL",
                                                 (value,)).fetchone() is None:
                lost.append(f"memory {value} missing")
    finally:
        conn.close()
    writes = sum(batch if k == "batch" else 1 for k, _ in acked)
    return Trial(acked=writes, lost=lost + store_problems(db))


# --- mixed load ----------------------------------------------------------------------------------

def mixed_load(db: str, processes: int, seconds: float) -> dict[str, Any]:
    """``processes`` workers of ``workload.mixed`` on one shared user at once; their operations,
    errors and the invariant violations after, with the wall and CPU seconds they took."""
    TrulyMem(db, user_id="shared").close()  # the schema in place before the race
    started = time.monotonic()
    cpu0 = os.times()
    procs = [subprocess.Popen([sys.executable, "-m", "tests.reliability.workload", "mixed", "--db", db, "--worker",
                               str(w), "--seconds", str(seconds), "--seed", str(w)],
                              cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for w in range(processes)]
    ops: dict[str, int] = {}
    errors: list[str] = []
    for p in procs:
        out, err = p.communicate(timeout=seconds + 300)
        if p.returncode != 0:
            errors.append(f"worker exited {p.returncode}: {err[-500:]}")
            continue
        report = json.loads(out.strip().splitlines()[-1])
        for k, v in report["ops"].items():
            ops[k] = ops.get(k, 0) + v
        errors += report["errors"]
    cpu1 = os.times()
    wall = time.monotonic() - started
    return {"processes": processes, "seconds": seconds, "ops": ops, "errors": errors,
            "violations": store_problems(db), "wall_s": round(wall, 1),
            "cpu_s": round(cpu1.children_user + cpu1.children_system - cpu0.children_user - cpu0.children_system, 1)}
