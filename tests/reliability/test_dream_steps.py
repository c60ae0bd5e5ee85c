"""A large dream writes in steps, so other users' writers keep flowing (issue 12, item 6):
each step whole and journaled, undo exact, an interrupted run reported, memories changed
between steps left alone, and a writer in another process never locked out."""

from __future__ import annotations

import io
import multiprocessing as mp
import random
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import trulymem.dream.run as dream_run
from trulymem import TrulyMem
from trulymem.dream import analyze, load_retention, run_dream, undo_dream
from trulymem.errors import StoreError
from trulymem.memories import MEMORY_RELATION, iter_memories
from trulymem.store.sqlite import SQLiteStore
from trulymem.tools.base import ToolContext

pytestmark = pytest.mark.reliability


def note(text: str, type_: str = "decision") -> dict[str, Any]:
    return {"subject": "user", "relation": MEMORY_RELATION, "object": text, "type": type_}


def export(mem: TrulyMem) -> str:
    buf = io.StringIO()
    mem.export_jsonl(buf)
    return buf.getvalue()


def seeded(db: Path, pairs: int, old: int = 0, app: str = "p") -> None:
    """``pairs`` notes each written twice, in other case and punctuation (made-up words, so
    no two pairs share a frame) and ``old`` expired session notes, written 120 days ago."""
    rng = random.Random(5)
    syllables = "ka ri to mu sen lo pa vi de qu ran tel bo ni zor ex ma fi lu gra".split()
    seen: set[str] = set()

    def word() -> str:
        while True:
            w = "".join(rng.choices(syllables, k=4))
            if w not in seen:
                seen.add(w)
                return w
    then = datetime.now(UTC) - timedelta(days=120)
    rows = []
    for _ in range(pairs):
        ws = [word() for _ in range(6)]
        rows += [note(" ".join(ws)), note(" ".join(ws).capitalize() + ".")]  # the same words, other case and stop
    rows += [note(f"{word()} {word()} {word()}", "session_state") for _ in range(old)]
    with TrulyMem(db, user_id="u", app_id=app, clock=lambda: then) as mem:
        for k in range(0, len(rows), 5000):
            mem.commit(rows[k:k + 5000], supersede=False)


def test_a_run_in_steps_undoes_exactly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dream_run, "STEP", 3)
    monkeypatch.setattr(dream_run, "PAUSE_S", 0)
    seeded(tmp_path / "m.db", pairs=6, old=4)
    with TrulyMem(tmp_path / "m.db", user_id="u", app_id="p") as mem:
        before = export(mem)
        commits: list[int] = []
        original = mem.store.save_run

        def counting(run: Any, changes: Any, first_seq: int = 0) -> None:
            commits.append(first_seq)
            original(run, changes, first_seq)
        monkeypatch.setattr(mem.store, "save_run", counting)
        res = run_dream(mem, project_dir=tmp_path, auto=True, emit=lambda _: None, embedder="none")
        assert res.applied is not None and (res.applied.merged, res.applied.pruned) == (6, 4)
        # a merge of two a step (a second would make 4 > 3), the last with one prune, then three prunes
        assert len(commits) == 7 and commits == sorted(commits)
        runs = mem.store.runs("u", "dream")
        assert runs[0].summary["state"] == "done"
        undo_dream(ToolContext(store=mem.store, scope=mem.scope, now=mem.clock()))
        assert export(mem) == before


def test_the_next_step_fits_the_last_one_s_pace() -> None:
    assert dream_run._next_budget(200, 0.05) == dream_run.STEP  # fast: grows, up to STEP
    assert dream_run._next_budget(200, 0.5) == 100  # 0.25 s at 400 a second
    assert dream_run._next_budget(200, 10.0) == dream_run.MIN_STEP  # slow: never below the floor


def test_steps_shrink_when_one_holds_the_lock_too_long(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a loaded machine a full step can outlast another writer's busy timeout: the
    next steps are sized to what the last one's pace fits in STEP_S (here: none fits)."""
    monkeypatch.setattr(dream_run, "STEP", 8)
    monkeypatch.setattr(dream_run, "MIN_STEP", 2)
    monkeypatch.setattr(dream_run, "STEP_S", 0.0)
    monkeypatch.setattr(dream_run, "FIRST_STEP", 8)
    monkeypatch.setattr(dream_run, "PAUSE_S", 0)
    seeded(tmp_path / "m.db", pairs=6, old=4)
    with TrulyMem(tmp_path / "m.db", user_id="u", app_id="p") as mem:
        before = export(mem)
        sizes: list[int] = []
        real = dream_run._apply_step

        def sizing(ctx: Any, journal: Any, a: Any, groups: Any, step: Any, *rest: Any) -> None:
            sizes.append(step.used)
            real(ctx, journal, a, groups, step, *rest)
        monkeypatch.setattr(dream_run, "_apply_step", sizing)
        res = run_dream(mem, project_dir=tmp_path, auto=True, emit=lambda _: None, embedder="none")
        assert res.applied is not None and (res.applied.merged, res.applied.pruned) == (6, 4)
        # a full first step (four merges), then the floor: one merge, one merge, two prunes, two prunes
        assert sizes == [8, 2, 2, 2, 2]
        undo_dream(ToolContext(store=mem.store, scope=mem.scope, now=mem.clock()))
        assert export(mem) == before


def test_an_interrupted_run_is_reported_and_undone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dream_run, "STEP", 4)
    monkeypatch.setattr(dream_run, "PAUSE_S", 0)
    seeded(tmp_path / "m.db", pairs=6)
    real = dream_run._apply_step
    calls = [0]

    def dies_on_the_third(*args: Any) -> None:
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt  # the process is stopped half-way
        real(*args)
    monkeypatch.setattr(dream_run, "_apply_step", dies_on_the_third)
    with TrulyMem(tmp_path / "m.db", user_id="u", app_id="p") as mem:
        before = export(mem)
        with pytest.raises(KeyboardInterrupt):
            run_dream(mem, project_dir=tmp_path, auto=True, emit=lambda _: None, embedder="none")
        monkeypatch.setattr(dream_run, "_apply_step", real)
        cut = mem.store.runs("u", "dream")[0]
        assert cut.summary["state"] == "applying" and len(mem.store.run_changes(cut.id)) > 0
        res = run_dream(mem, project_dir=tmp_path, dry_run=True, emit=lambda _: None, embedder="none")
        assert any("interrupted" in w and cut.id in w for w in res.warnings)
        undo_dream(ToolContext(store=mem.store, scope=mem.scope, now=mem.clock()), cut.id)
        assert export(mem) == before


def test_a_memory_changed_between_steps_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dream_run, "STEP", 2)
    monkeypatch.setattr(dream_run, "PAUSE_S", 0)
    seeded(tmp_path / "m.db", pairs=3)
    real = dream_run._apply_step
    calls = [0]
    touched: list[str] = []
    with TrulyMem(tmp_path / "m.db", user_id="u", app_id="p") as mem:
        def someone_writes_between(ctx: Any, journal: Any, a: Any, groups: Any, step: Any, *rest: Any) -> None:
            calls[0] += 1
            if calls[0] == 2:  # another writer restates a memory of the merge this step is about to apply
                touched.append(groups[step.merges[0]].items[0].memory)
                mem.commit([note(touched[0])], supersede=False)
            real(ctx, journal, a, groups, step, *rest)
        monkeypatch.setattr(dream_run, "_apply_step", someone_writes_between)
        res = run_dream(mem, project_dir=tmp_path, auto=True, emit=lambda _: None, embedder="none")
        assert res.applied is not None and res.applied.merged == 2 and res.applied.skipped == 1
        texts = {m.memory for m in iter_memories(mem.store, mem.scope)}
    assert touched[0] in texts  # its pair was not merged


def _writer(db: str, stop: str, out: Any) -> None:
    """Another user's writer with a short busy timeout: it fails if the lock is held for long.
    ``db`` is a SQLite file or a PostgreSQL URL (test_dream_stall's re-run)."""
    from trulymem.store import open_store

    mem = TrulyMem(open_store(db) if "://" in db else SQLiteStore(db, busy_timeout_ms=1500), user_id="other")
    ok, locked = 0, []
    while not Path(stop).exists():
        try:
            mem.commit([{"subject": "other", "relation": "logged", "object": f"entry {ok}"}])
            ok += 1
        except StoreError as exc:
            locked.append(str(exc))
        time.sleep(0.005)
    mem.close()
    out.put((ok, locked))


def test_other_users_writers_keep_flowing_during_a_large_dream(tmp_path: Path) -> None:
    db, stop = tmp_path / "big.db", tmp_path / "stop"
    seeded(db, pairs=6000, old=3000)  # 15,000 memories: 6,000 merges and 3,000 prunes to apply
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    writer = ctx.Process(target=_writer, args=(str(db), str(stop), out))
    with TrulyMem(db, user_id="u", app_id="p") as mem:
        items = list(iter_memories(mem.store, mem.scope))
        analysis = analyze(items, load_retention(), mem.clock())  # words only: the analysis is not the point
        assert len(analysis.merges) == 6000
        writer.start()
        try:
            time.sleep(1.0)
            applied = dream_run.apply_dream(ToolContext(store=mem.store, scope=mem.scope, now=mem.clock()),
                                            analysis, {}, branch=None, auto=True)
            time.sleep(0.5)
        finally:
            stop.touch()
        ok, locked = out.get(timeout=60)
        writer.join(timeout=30)
    assert applied.merged == 6000 and applied.pruned == 3000
    assert ok > 0 and locked == []
