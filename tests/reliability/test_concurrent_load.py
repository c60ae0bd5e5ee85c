"""Concurrent processes on one user: commits with names that fold together, supersedes,
task creation and state changes, purges, mem0 updates and recalls from 4 processes at once,
then no errors and no invariant violations (``invariants.store_problems``). ``bench/
bench_reliability.py load`` runs 8 processes for minutes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.trials import mixed_load

pytestmark = pytest.mark.reliability


def test_four_processes_of_mixed_load(tmp_path: Path) -> None:
    report = mixed_load(str(tmp_path / "load.db"), processes=4, seconds=4)
    print(f"\n{report['processes']} processes x {report['seconds']} s: {sum(report['ops'].values())} operations "
          f"({', '.join(f'{k} {v}' for k, v in sorted(report['ops'].items()))}), {len(report['errors'])} errors, "
          f"{len(report['violations'])} invariant violations; wall {report['wall_s']} s, CPU {report['cpu_s']} s")
    assert report["errors"] == []
    assert report["violations"] == []
    assert all(report["ops"].get(op, 0) > 0 for op in ("commit", "task", "state", "purge", "recall", "update"))
