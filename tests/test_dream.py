"""The dream pass: each seed step, its exact output, apply, undo, lock — on real SQLite
files, interactive runs through a real pseudo-terminal."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Clock
from trulymem import TrulyMem
from trulymem.dream import analyze, load_retention, run_dream, undo_dream
from trulymem.dream.policy import parse_mem0_md
from trulymem.dream.run import dream_lock
from trulymem.errors import Conflict
from trulymem.memories import iter_memories, list_memories
from trulymem.tools.base import ToolContext

M = "memory"
HEADER = "## dream — consolidation report"


def note(text: str, type_: str | None = "decision", **kw: Any) -> dict[str, Any]:
    return {"subject": "user", "relation": M, "object": text, **({"type": type_} if type_ else {}), **kw}


def export(mem: TrulyMem) -> str:
    buf = io.StringIO()
    mem.export_jsonl(buf)
    return buf.getvalue()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    d = tmp_path / "proj"
    d.mkdir()
    return d


@pytest.fixture
def dm(db_path: Path) -> Any:
    """A scope (user + app) with duplicates, conflicts and stale notes, written 100 days apart."""
    clock = Clock(datetime.now(UTC) - timedelta(days=200))
    mem = TrulyMem(db_path, user_id="alice", app_id="proj", clock=clock, embedder="hashing")
    mem.commit([note("Use PostgreSQL for auth"), note("Deploy to ECS"), note("Always use tabs", "style"),
                note("scratch notes about the login bug", "session_state"),
                {"subject": "user", "relation": "lives_in", "object": "Paris"},
                note("The team prefers short standups", "process", pinned=True),
                note("maybe something", None, confidence=0.2), note("Release notes are written by hand", "process")])
    clock.advance(days=100)
    mem.commit([note("PostgreSQL is used for auth"), note("Deploy to Vercel"), note("Never use tabs", "style"),
                {"subject": "user", "relation": "lives_in", "object": "Berlin"},
                note("The team prefers short standups!", "process"),
                note("用户喜欢猫", "pref"), note("用户很喜欢猫", "pref"), note("用户喜欢狗", "pref"),
                # alike, not provably one fact (one says how often): a person decides
                note("Release notes are written by hand every sprint", "process")],
               supersede=False)  # a contradiction as an import or another tool would leave it
    yield mem
    mem.close()


def by_text(mem: TrulyMem) -> dict[str, str]:
    return {m.memory: m.id for m in iter_memories(mem.store, mem.scope)}


# --- step 1: retention -------------------------------------------------------------
def test_retention_from_mem0_md_config_and_defaults(project: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_retention(project).days == {"session_state": 90, "compact_summary": 90}
    cfg = tmp_path / "config.toml"
    cfg.write_text('[retention]\nsession_state = "30d"\nnotes = 7\nbad = "soon"\n', encoding="utf-8")
    monkeypatch.setenv("TRULYMEM_CONFIG", str(cfg))
    (project / "mem0.md").write_text(
        "# Project\n\n## RETENTION\nsession_state: 14d   # short\n- decision: forever\n#not a heading\n"
        "nonsense\ncompact_summary: 3 weeks\n\n## Other\nx: 1d\n", encoding="utf-8")
    r = load_retention(project)
    assert r.days == {"session_state": 14, "compact_summary": 90, "notes": 7, "decision": None}
    assert len(r.warnings) == 3 and any("nonsense" in w for w in r.warnings) and any("bad" in w for w in r.warnings)
    assert r.limit(None) is None and r.limit("notes") == 7
    policies, warnings = parse_mem0_md("## retention\nfoo: 0d\n")
    assert policies == {"foo": 0} and not warnings


def test_config_retention_command(project: Path) -> None:
    (project / "mem0.md").write_text("## Retention\nsession_state: 30d\noops\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "trulymem", "config", "retention", str(project)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert json.loads(r.stdout) == {"compact_summary": 90, "session_state": 30}
    assert "oops" in r.stderr


# --- steps 2-4 -----------------------------------------------------------------------
def test_no_memories_and_nothing_to_do(db_path: Path, project: Path) -> None:
    lines: list[str] = []
    with TrulyMem(db_path, user_id="bob", app_id="empty") as mem:
        assert run_dream(mem, project_dir=project, emit=lines.append, auto=True).status == "no_memories"
        mem.commit([note("Use uv for Python packaging"), note("Write tests first", "process")])
        assert run_dream(mem, project_dir=project, emit=lines.append, auto=True).status == "nothing_to_do"
    assert lines == ["No memories found for project empty. Nothing to consolidate.",
                     "Dream complete. No duplicate, contradictory, or stale memories found."]


def test_report_has_the_seed_format(dm: TrulyMem, project: Path) -> None:
    lines: list[str] = []
    before = export(dm)
    res = run_dream(dm, project_dir=project, dry_run=True, emit=lines.append)
    text = "\n".join(lines)
    ids = by_text(dm)
    assert export(dm) == before  # analysis changes nothing
    assert text.startswith(HEADER + "\n\nMerges (2):\n")
    assert f'  [mem0:{ids["Use PostgreSQL for auth"]}] + [mem0:{ids["PostgreSQL is used for auth"]}] → "' in text
    assert "\nConflicts (3):\n" in text
    assert f'  [mem0:{ids["Deploy to ECS"]}] vs [mem0:{ids["Deploy to Vercel"]}] — "Deploy to: ECS vs Vercel" [A/B/skip]' in text
    assert f'  [mem0:{ids["Always use tabs"]}] vs [mem0:{ids["Never use tabs"]}] — "use tabs: Always vs Never" [A/B/skip]' in text
    # the seed's line, then why it goes: the retention it is past, or its low confidence
    assert f'[mem0:{ids["scratch notes about the login bug"]}] — session_state, 100d old ' \
           f'(past the 90d kept for session_state)\n' in text
    assert re.search(rf'\[mem0:{ids["maybe something"]}\] — unknown, 100d old \(confidence 0\.\d\d, nothing '
                     r'specific to this project\)', text)
    review = (f'\nReview (1): alike, not provably the same — a person decides\n'
              f'  [mem0:{ids["Release notes are written by hand"]}] ~ '
              f'[mem0:{ids["Release notes are written by hand every sprint"]}] — "Release notes are written by hand" / '
              f'"Release notes are written by hand every sprint" [merge/keep/skip]\n')
    assert review in text and text.index("Conflicts (3)") < text.index("Review (1)") < text.index("Prune (2)")
    assert text.endswith("Proposed: 2 merges, 2 prunes, 3 conflicts. 1 pair to review. (dry run: nothing applied)")
    a = res.analysis
    assert a is not None
    pref = next(g for g in a.merges if g.type == "pref")
    assert sorted(m.memory for m in pref.items) == ["用户喜欢猫", "用户很喜欢猫"]  # 用户喜欢狗 is another fact
    # pinned memories are never candidates, even for a merge with their twin
    assert all("standups" not in m.memory for g in a.merges for m in g.items)


def test_empty_sections_are_left_out(db_path: Path, project: Path) -> None:
    with TrulyMem(db_path, user_id="bob") as mem:
        mem.commit([note("I prefer dark mode in editors", "pref"), note("Prefers dark mode in editors", "pref")])
        lines: list[str] = []
        run_dream(mem, project_dir=project, dry_run=True, emit=lines.append)
    text = "\n".join(lines)
    assert "Merges (1):" in text and "Conflicts" not in text and "Prune" not in text and "Review" not in text


def test_clusters_of_three_merge_into_one(db_path: Path, project: Path) -> None:
    with TrulyMem(db_path, user_id="bob") as mem:
        mem.commit([note("The API uses JWT tokens for auth"), note("the API uses JWT tokens for auth."),
                    note("Auth for the API: JWT tokens, rotated daily"), note("Frontend is written in Svelte")])
        answers = iter(["merge", ""])  # the third (it adds "rotated daily") joins the merge on review
        res = run_dream(mem, project_dir=project, ask=lambda _: next(answers), emit=lambda _: None)
        assert res.analysis is not None and len(res.analysis.merges) == 1 and len(res.analysis.reviews) == 1
        assert len(res.analysis.merges[0].items) == 2  # the two provably the same, without a person
        g = res.analysis.reviews[0].merge
        assert len(g.items) == 3 and "rotated daily" in g.merged
        assert res.applied is not None and res.applied.merged == 1 and res.applied.reviewed == 1
        merged = [m for m in iter_memories(mem.store, mem.scope) if "JWT" in m.memory]
        assert len(merged) == 1 and merged[0].metadata["merged_from"] == [m.id for m in g.items]


# --- step 5: interactive, through a real pseudo-terminal -----------------------------------
def _spawn(db: Path, project: Path) -> Any:
    pexpect = pytest.importorskip("pexpect")
    env = {**os.environ, "TRULYMEM_EMBEDDER": "hashing", "COLUMNS": "200"}
    return pexpect.spawn(sys.executable, ["-m", "trulymem", "dream", "--db", str(db), "--user", "alice",
                                          "--app", "proj", "--project-dir", str(project), "--branch", "main"],
                         env=env, encoding="utf-8", timeout=60)


def test_interactive_choices_reasks_and_apply(dm: TrulyMem, db_path: Path, project: Path) -> None:
    ids = by_text(dm)
    child = _spawn(db_path, project)
    for n in range(1, 4):
        child.expect(rf"Conflict {n} of 3: (.*?)Choose \[A/B/skip\]: ")
        shown = child.match.group(1)
        if n == 1:
            child.sendline("maybe")              # not an answer: asked again
            child.expect("Please answer A, B or skip.")
            child.expect(r"Choose \[A/B/skip\]: ")
        if "lives_in" in shown:
            child.sendline("a")                  # case-insensitive: keep Paris (the older)
        elif "Deploy" in shown:
            child.sendline("")                   # empty = skip
        else:
            child.sendline("SKIP")
    child.expect(r"Review 1 of 1: .*?Release notes.*?merged would read: (.*?)\r\n")
    child.expect(r"\[merge/keep/skip\]: ")
    child.sendline("perhaps")                    # not an answer: asked again
    child.expect("Please answer merge, keep or skip.")
    child.expect(r"\[merge/keep/skip\]: ")
    child.sendline("keep")                       # two facts, for good
    child.expect(r"Proposed: 2 merges, 2 prunes, 3 conflicts\. 1 pair to review\. Apply\? \[Y/n\] ")
    child.sendline("")                           # Enter = yes
    child.expect("Dream complete — merged: 2, pruned: 2, conflicts resolved: 1, skipped: 2, "
                 "reviewed: 0 merged, 1 kept apart")
    child.expect(pexpect_eof())
    child.close()
    assert child.exitstatus == 0
    left = by_text(dm)
    assert "Deploy to ECS" in left and "Deploy to Vercel" in left  # skipped
    first = next(c for c in dm.history("user", "lives_in") if c.object == "Paris")
    assert first.invalid_at is None  # chose A (the older Paris): Berlin lost
    berlin = next(c for c in dm.history("user", "lives_in") if c.object == "Berlin")
    assert berlin.invalid_at is not None and berlin.superseded_by == ids["user lives_in Paris"]
    merged = next(m for m in iter_memories(dm.store, dm.scope) if m.metadata.get("source") == "mem0-dream"
                  and "PostgreSQL" in m.memory)  # the seed's metadata, visible through the mem0 API
    raw = dm.store.facts(__import__("trulymem").store.base.FactQuery(scope=dm.scope, ids=[merged.id]))[0]
    assert raw.source == "mem0-dream" and merged.metadata["branch"] == "main" and merged.type == "decision"
    assert merged.metadata["type"] == "decision" and merged.metadata["confidence"] == 1.0
    members = [f for f in dm.history("user", M) if f.id in merged.metadata["merged_from"]]
    assert raw.valid_at == min(f.valid_at for f in members) < raw.created_at  # the members' event time, not now
    # a pair kept apart is not asked about again
    again = run_dream(dm, project_dir=project, dry_run=True, emit=lambda _: None)
    assert again.analysis is not None and not again.analysis.reviews
    assert "Release notes are written by hand" in left and "Release notes are written by hand every sprint" in left


def test_end_of_input_skips_then_cancels(dm: TrulyMem, db_path: Path, project: Path) -> None:
    """`trulymem dream < /dev/null`: every question skipped, then nothing applied (not a loop)."""
    before = export(dm)
    env = {**os.environ, "TRULYMEM_EMBEDDER": "hashing"}
    r = subprocess.run([sys.executable, "-m", "trulymem", "dream", "--db", str(db_path), "--user", "alice",
                        "--app", "proj", "--project-dir", str(project)], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert "Please answer" not in r.stdout
    assert r.stdout.rstrip().endswith("Cancelled. No changes made.")
    assert "End of input" in r.stdout
    assert export(dm) == before


def test_interactive_no_cancels(dm: TrulyMem, db_path: Path, project: Path) -> None:
    before = export(dm)
    child = _spawn(db_path, project)
    for _ in range(3):
        child.expect(r"Choose \[A/B/skip\]: ")
        child.sendline("b")
    child.expect(r"\[merge/keep/skip\]: ")
    child.sendline("merge")
    child.expect(r"Apply\? \[Y/n\] ")
    child.sendline("No")
    child.expect("Cancelled. No changes made.")
    child.expect(pexpect_eof())
    assert export(dm) == before


def pexpect_eof() -> Any:
    import pexpect

    return pexpect.EOF


# --- 6/7: auto mode, reminder, summary ------------------------------------------------------
def test_auto_applies_merges_and_prunes_and_leaves_one_reminder(dm: TrulyMem, project: Path) -> None:
    lines: list[str] = []
    res = run_dream(dm, project_dir=project, auto=True, emit=lines.append, branch="dev")
    assert lines == ["[mem0-dream --auto] project=proj merged=2 pruned=2 conflicts_skipped=3 review_skipped=1"]
    left = by_text(dm)
    assert "scratch notes about the login bug" not in left and "maybe something" not in left
    assert "Deploy to ECS" in left and "Deploy to Vercel" in left and "Never use tabs" in left
    reminders = [m for m in iter_memories(dm.store, dm.scope) if m.memory.startswith("mem0-dream detected")]
    assert len(reminders) == 1 and reminders[0].memory.startswith("mem0-dream detected 3 contradiction(s)")
    assert reminders[0].type == "task_learning" and reminders[0].metadata["source"] == "mem0-dream-auto"
    assert res.applied is not None and res.applied.reminder == reminders[0].id
    run_dream(dm, project_dir=project, auto=True, emit=lines.append)  # conflicts still there: still one reminder
    assert len([m for m in iter_memories(dm.store, dm.scope) if m.memory.startswith("mem0-dream detected")]) == 1
    assert lines[-1] == "[mem0-dream --auto] project=proj merged=0 pruned=0 conflicts_skipped=3 review_skipped=1"
    # retired memories are kept in history, with what replaced them
    old = next(f for f in dm.history("user", M) if f.object == "Use PostgreSQL for auth")
    assert old.invalid_at is not None and old.superseded_by is not None


def test_pinned_memories_are_never_touched(db_path: Path, project: Path) -> None:
    clock = Clock(datetime.now(UTC) - timedelta(days=400))
    with TrulyMem(db_path, user_id="bob", clock=clock) as mem:
        mem.commit([note("old but pinned", "session_state", pinned=True, confidence=0.1),
                    note("Deploy to ECS", pinned=True), note("Deploy to Vercel"),
                    note("The team prefers short standups", pinned=True), note("The team prefers short standups!")])
        before = {m.id: m.memory for m in iter_memories(mem.store, mem.scope)}
        res = run_dream(mem, project_dir=project, auto=True, emit=lambda _: None)
        # a pinned memory is never merged or pruned, but its conflict is shown, never auto-resolved
        assert res.analysis is not None and not res.analysis.merges and not res.analysis.prunes
        (conflict,) = res.analysis.conflicts
        assert {conflict.a.memory, conflict.b.memory} == {"Deploy to ECS", "Deploy to Vercel"}
        assert res.applied is not None and res.applied.skipped == 1 and res.applied.merged == 0
        after = {m.id: m.memory for m in iter_memories(mem.store, mem.scope)}
        assert set(before.items()) <= set(after.items())  # all still current (plus the reminder)


# --- nothing lost: undo, atomicity, lock ------------------------------------------------
def test_undo_restores_an_identical_export(dm: TrulyMem, project: Path) -> None:
    before = export(dm)
    res = run_dream(dm, project_dir=project, auto=True, emit=lambda _: None)
    assert res.applied is not None and export(dm) != before
    ctx = ToolContext(store=dm.store, scope=dm.scope, now=dm.clock(), embedder=dm.embedder)
    run = undo_dream(ctx)
    assert run.id == res.applied.run_id and export(dm) == before
    with pytest.raises(Conflict, match="already undone"):
        undo_dream(ctx, run.id)
    assert dm.recall("PostgreSQL").facts  # search indexes follow


def test_undo_refuses_when_memories_changed_since(dm: TrulyMem, project: Path) -> None:
    res = run_dream(dm, project_dir=project, auto=True, emit=lambda _: None)
    assert res.applied is not None
    dm.purge({"ids": [res.applied.added[0]]})
    before = export(dm)
    with pytest.raises(Conflict, match="changed after dream run"):
        undo_dream(ToolContext(store=dm.store, scope=dm.scope, now=dm.clock()))
    assert export(dm) == before


def test_a_crash_mid_apply_changes_nothing(dm: TrulyMem, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = export(dm)

    def boom(*a: Any, **k: Any) -> None:
        raise RuntimeError("power cut")

    monkeypatch.setattr(dm.store, "save_run", boom)
    with pytest.raises(RuntimeError):
        run_dream(dm, project_dir=project, auto=True, emit=lambda _: None)
    assert export(dm) == before


def test_memories_changed_between_report_and_apply(dm: TrulyMem, project: Path) -> None:
    answers = iter(["skip", "skip", "skip", "skip"])

    def ask(prompt: str) -> str:
        if "Apply" in prompt:  # someone edits a memory while the person reads the report
            dm.purge({"ids": [by_text(dm)["PostgreSQL is used for auth"]]})
            return "y"
        return next(answers)

    with pytest.raises(Conflict, match="changed since the report"):
        run_dream(dm, project_dir=project, ask=ask, emit=lambda _: None)


def test_one_dream_per_scope(dm: TrulyMem, project: Path) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        import socket

        owner = f"{socket.gethostname()}:{sleeper.pid}:x"
        name = "dream:alice::proj"
        assert dm.store.try_lock(name, owner, datetime.now(UTC), 600) is None
        with pytest.raises(Conflict, match=f"another dream is running on this scope \\(process {sleeper.pid}"):
            run_dream(dm, project_dir=project, auto=True, emit=lambda _: None)
        assert run_dream(dm, project_dir=project, dry_run=True, emit=lambda _: None).status == "dry_run"
    finally:
        sleeper.kill()
        sleeper.wait()
    # the holder died without unlocking: the next dream goes ahead
    assert run_dream(dm, project_dir=project, auto=True, emit=lambda _: None).status == "applied"
    with dream_lock(dm.store, dm.scope):
        pass  # and released it


def test_expired_locks_do_not_block(dm: TrulyMem, project: Path) -> None:
    long_ago = datetime.now(UTC) - timedelta(hours=2)
    assert dm.store.try_lock("dream:alice::proj", "elsewhere:1:x", long_ago, 60) is None
    assert run_dream(dm, project_dir=project, auto=True, emit=lambda _: None).status == "applied"


# --- listing ---------------------------------------------------------------------------------
def test_listing_pages_with_a_cursor(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="bob") as mem:
        mem.commit([note(f"fact number {i}") for i in range(450)])
        mem.run("memory_ingest", {"messages": [{"speaker": "bob", "text": "hello there"}]})
        page = list_memories(mem.store, mem.scope, page_size=200)
        assert page.total == 450 and len(page.results) == 200 and page.next_cursor
        seen = [m.memory for m in iter_memories(mem.store, mem.scope, page_size=200)]
        assert seen == [f"fact number {i}" for i in range(450)]  # episodes are not memories


def test_analysis_is_the_same_without_an_embedder(dm: TrulyMem) -> None:
    items = list(iter_memories(dm.store, dm.scope))
    a = analyze(items, load_retention(), datetime.now(UTC))
    assert len(a.merges) == 2 and len(a.conflicts) == 3


def test_cli_dry_run_json_undo_and_runs(dm: TrulyMem, db_path: Path, project: Path) -> None:
    from click.testing import CliRunner

    from trulymem.cli import main

    base = ["--db", str(db_path), "--user", "alice", "--app", "proj", "--project-dir", str(project)]
    runner = CliRunner()
    r = runner.invoke(main, ["dream", "--dry-run", "--json", *base])
    data = json.loads(r.output)
    assert data["status"] == "dry_run" and len(data["analysis"]["conflicts"]) == 3
    assert data["output"][0].startswith(HEADER + "\n\nMerges (2):")
    before = export(dm)
    r = runner.invoke(main, ["dream", "--auto", *base])
    assert r.output.strip() == "[mem0-dream --auto] project=proj merged=2 pruned=2 conflicts_skipped=3 review_skipped=1"
    r = runner.invoke(main, ["dream", "--runs", *base])
    assert "merged 2, pruned 2" in r.output and "[applied]" in r.output
    r = runner.invoke(main, ["dream", "--undo", *base])
    assert r.exit_code == 0 and "Undid dream run" in r.output
    assert export(dm) == before
    r = runner.invoke(main, ["dream", "--undo", *base])
    assert r.exit_code == 1 and "no dream run to undo" in r.output
    for bad in (["--auto", "--dry-run"], ["--json"], ["--run-id", "x"]):
        r = runner.invoke(main, ["dream", *bad, *base])
        assert r.exit_code == 2, bad
    assert export(dm) == before


def test_an_llm_writes_the_merged_text_when_configured(dm: TrulyMem, project: Path) -> None:
    from trulymem.llm import ScriptedLLM

    def merged(messages: list[dict[str, Any]]) -> str:
        prompt = "\n".join(str(m["content"]) for m in messages)
        judged = re.findall(r"^(\d+)\. A: ", prompt, re.MULTILINE)
        if judged:  # the pairs the rules leave to a model: two facts
            return json.dumps([{"pair": int(n), "verdict": "distinct"} for n in judged])
        return "Auth uses a PostgreSQL database" if "PostgreSQL" in prompt else "用户非常喜欢猫（猫咪）"

    llm = ScriptedLLM([merged] * 4)
    res = run_dream(dm, project_dir=project, auto=True, emit=lambda _: None, llm=llm)
    assert res.analysis is not None and {g.merged for g in res.analysis.merges} == {
        "Auth uses a PostgreSQL database", "用户非常喜欢猫（猫咪）"}
    assert "Auth uses a PostgreSQL database" in by_text(dm)
    failing = ScriptedLLM([{"error": 500}])
    with TrulyMem(dm.store, user_id="alice", app_id="other") as other:
        other.commit([note("Run the linter before each commit"), note("Before each commit, run the linter")])
        res = run_dream(other, project_dir=project, auto=True, emit=lambda _: None, llm=failing)
    assert res.status == "applied" and any("kept the deterministic merge" in w for w in res.warnings)


def test_chinese_contradictions_and_look_alikes(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="li") as mem:
        mem.commit([note("用户住在北京", "pref"), note("用户喜欢猫", "pref"), note("使用空格缩进", "style"),
                    note("项目部署到阿里云")])
        mem.commit([note("用户住在深圳", "pref"), note("用户喜欢狗", "pref"), note("不要使用空格缩进", "style"),
                    note("项目部署到腾讯云"), {"subject": "用户", "relation": "住在", "object": "杭州"}])
        a = analyze(list(iter_memories(mem.store, mem.scope)), load_retention(), datetime.now(UTC))
    pairs = {(c.a.memory, c.b.memory) for c in a.conflicts}
    assert pairs == {("用户住在北京", "用户住在深圳"), ("使用空格缩进", "不要使用空格缩进"),
                     ("项目部署到阿里云", "项目部署到腾讯云")}
    assert not a.merges  # 喜欢猫 / 喜欢狗: two things liked, neither a duplicate nor a conflict


def test_users_are_never_mixed(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="a") as a, TrulyMem(db_path, user_id="b") as b:
        a.commit([note("I like green tea in the morning")])
        b.commit([note("I like green tea in the morning!")])
        items = list(iter_memories(a.store, __import__("trulymem").Scope.everyone()))
        assert len(items) == 2 and not analyze(items, load_retention(), datetime.now(UTC)).merges
