"""Crash during write: processes SIGKILLed at random moments while writing — through the
library, the command line and a real ``trulymem serve`` — lose no acknowledged write, leave
a write cut short all or nothing, and leave the database consistent (``invariants``).
A few trials each here; ``bench/bench_reliability.py kill`` runs a hundred."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.reliability.trials import Trial, cli_trial, http_trial, library_trial

pytestmark = pytest.mark.reliability

TRIALS = 5
CLI_TRIALS = 3  # each starts two processes


def _report(what: str, trials: list[Trial]) -> None:
    lost = [problem for t in trials for problem in t.lost]
    print(f"\n{what}: {len(trials)} trials, {sum(t.killed for t in trials)} killed mid-way, "
          f"{sum(t.acked for t in trials)} acknowledged writes, {len(lost)} lost or inconsistent")
    assert lost == []


def test_library_writer_killed(tmp_path: Path) -> None:
    db, rng = str(tmp_path / "crash.db"), random.Random(12)
    _report("library", [library_trial(db, trial, rng, tmp_path) for trial in range(TRIALS)])


def test_cli_commit_and_import_killed(tmp_path: Path) -> None:
    db, rng = str(tmp_path / "crash.db"), random.Random(12)
    first, first_import, full = cli_trial(db, 0, rng, tmp_path, None)  # not killed: how long a whole run takes
    assert not first.killed and not first_import.killed
    trials = [first, first_import]
    for trial in range(1, CLI_TRIALS + 1):
        commit, imported, _ = cli_trial(db, trial, rng, tmp_path, full)
        trials += [commit, imported]
    _report("CLI commit --file / import", trials)


def test_http_server_killed(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    db, rng = str(tmp_path / "crash.db"), random.Random(12)
    _report("HTTP", [http_trial(db, trial, rng) for trial in range(TRIALS)])
