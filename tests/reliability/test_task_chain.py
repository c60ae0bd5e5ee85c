"""Concurrent ``task_create`` from real processes with disagreeing clocks: one chain, no forks."""

from __future__ import annotations

import multiprocessing
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.chain import chain_problems
from trulymem import TrulyMem
from trulymem.model import utcnow

pytestmark = pytest.mark.reliability

PROCESSES = 6
TASKS_EACH = 25


def _create_tasks(db: str, worker: int, skew_s: float, start: Any, errors: Any) -> None:
    mem = TrulyMem(db, user_id="alice", clock=lambda: utcnow() + timedelta(seconds=skew_s))
    try:
        start.wait(timeout=60)
        for i in range(TASKS_EACH):
            mem.task_create(f"Task_{worker}_{i}", f"task {i} of worker {worker}")
    except Exception as exc:  # reported to the parent: the test names it
        errors.put(f"worker {worker}: {type(exc).__name__}: {exc}")
    finally:
        mem.close()


def test_concurrent_processes_never_fork_the_chain(tmp_path: Path) -> None:
    db = str(tmp_path / "chain.db")
    TrulyMem(db, user_id="alice").close()  # schema in place before the race
    ctx = multiprocessing.get_context("spawn")
    start, errors = ctx.Barrier(PROCESSES), ctx.Queue()
    # Clocks seconds apart, interleaved: choosing the predecessor by time forks the chain at once.
    procs = [ctx.Process(target=_create_tasks, args=(db, w, (w % 3) * 1.5 - 1.5, start, errors))
             for w in range(PROCESSES)]
    began = time.monotonic()
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=180)
    failures = []
    while not errors.empty():
        failures.append(errors.get())
    assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]
    assert failures == []
    tasks, problems = chain_problems(db)
    print(f"\n{PROCESSES} processes created {tasks} tasks in {time.monotonic() - began:.1f} s; "
          f"{len(problems)} chain problems")
    assert tasks == PROCESSES * TASKS_EACH
    assert problems == []
