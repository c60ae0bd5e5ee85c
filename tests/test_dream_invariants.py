"""What the dream must never do, whatever it detects: merge a contradiction, chain
unrelated memories into one merge, merge an expired memory instead of pruning it,
touch a pinned one, date a merge "now", or flood the report with conflicts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.conftest import Clock
from trulymem import TrulyMem
from trulymem.dream import DreamSettings, analyze, load_retention, run_dream
from trulymem.dream.duplicates import complete_linkage
from trulymem.dream.report import report
from trulymem.memories import MEMORY_RELATION, iter_memories


def note(text: str, type_: str | None = "decision", **kw: Any) -> dict[str, Any]:
    return {"subject": "user", "relation": MEMORY_RELATION, "object": text, "type": type_, **kw}


def test_expired_memories_are_pruned_never_merged(db_path: Path, tmp_path: Path) -> None:
    clock = Clock(datetime.now(UTC) - timedelta(days=150))
    with TrulyMem(db_path, user_id="u", app_id="p", clock=clock) as mem:
        mem.commit([note("Working on the login bug in auth/session.py", "session_state")])
        clock.advance(days=30)
        mem.commit([note("Working on the login bug in auth/session.py today", "session_state")])
        clock.t = datetime.now(UTC) - timedelta(days=5)
        mem.commit([note("Working on the signup form in web/signup.tsx", "session_state"),
                    note("Working on the signup form in web/signup.tsx today", "session_state")])
        clock.t = datetime.now(UTC)
        res = run_dream(mem, project_dir=tmp_path, auto=True, emit=lambda _: None)
    a = res.analysis
    assert a is not None and {p.age_days for p in a.prunes} == {150, 120}
    assert all(p.reason == "retention" for p in a.prunes)
    # only the fresh pair is a candidate: not provably one fact ("today"), so a person reviews it
    assert not a.merges
    (review,) = a.reviews
    assert "signup" in review.a.memory and "signup" in review.b.memory


def test_a_contradiction_is_never_merged_even_in_auto(db_path: Path, tmp_path: Path) -> None:
    with TrulyMem(db_path, user_id="u", app_id="p") as mem:
        mem.commit([note("Always commit to the develop branch"), note("Never commit to the develop branch"),
                    note("用户的生日是3月3日", "pref"), note("用户的生日是5月3日", "pref")])
        before = {m.memory for m in iter_memories(mem.store, mem.scope)}
        res = run_dream(mem, project_dir=tmp_path, auto=True, emit=lambda _: None)
        after = {m.memory for m in iter_memories(mem.store, mem.scope)}
    assert res.analysis is not None and not res.analysis.merges and len(res.analysis.conflicts) == 2
    assert before <= after and res.applied is not None and res.applied.skipped == 2


def test_clusters_merge_only_when_every_pair_is_a_duplicate() -> None:
    # A~B, B~C, C~D but not A~C: the chain is cut where a pair is missing
    sims = {(0, 1): 0.95, (1, 2): 0.9, (2, 3): 0.97, (1, 3): 0.91}
    assert complete_linkage(sims) == [[0, 1], [2, 3]]
    assert complete_linkage({(0, 1): 0.9, (0, 2): 0.9, (1, 2): 0.9}) == [[0, 1, 2]]


def test_conflicts_are_capped_with_the_rest_counted(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="u", app_id="p") as mem:
        for i in range(30):
            mem.commit([{"subject": f"service {i}", "relation": "deploy_target", "object": "ECS"}])
            mem.commit([{"subject": f"service {i}", "relation": "deploy_target", "object": "Vercel"}],
                       supersede=False)
        items = list(iter_memories(mem.store, mem.scope))
    a = analyze(items, load_retention(), datetime.now(UTC), settings=DreamSettings(max_conflicts=10))
    assert len(a.conflicts) == 10 and a.conflicts_more == 20
    text = report(a)
    assert "Conflicts (10):" in text and "… 20 more, shown once these are resolved" in text
    assert 'deploy_target: ECS vs Vercel" [A/B/skip]' in text  # both values on every line
    # none of the conflicting memories is merged meanwhile, shown or not
    assert not a.merges


def test_the_judge_reads_values_negation_and_many_valued_frames() -> None:
    from trulymem.dream.judge import judge

    assert judge("数据库备份保留30天。", "数据库备份只保留14天。") == "contradiction"
    assert judge("用户上传的文件存放在阿里云 OSS。", "用户上传的文件存放在腾讯云 COS。") == "contradiction"
    assert judge("The user's birthday is March 3.", "The user's birthday is on May 3.") == "contradiction"
    assert judge("Always squash commits when merging", "Never squash commits when merging") == "contradiction"
    assert judge("The user speaks French", "The user speaks Japanese") == "distinct"
    assert judge("Use pnpm as the package manager", "The package manager is pnpm") == "duplicate"
    assert judge("Use pnpm", "Use pnpm 9 for every package") == "duplicate"  # adds a value, clashes with none


def test_progress_is_reported_for_the_fetch_and_each_analysis_stage(db_path: Path, tmp_path: Path) -> None:
    seen: list[tuple[str, int, int | None]] = []
    with TrulyMem(db_path, user_id="u", app_id="p") as mem:
        mem.commit([note(f"Note number {i} about module m{i}") for i in range(2500)])
        run_dream(mem, project_dir=tmp_path, dry_run=True, emit=lambda _: None,
                  progress=lambda what, done, total: seen.append((what, done, total)))
    assert [s for s in seen if s[0] == "Fetching memories"] == [("Fetching memories", 1000, None),
                                                                ("Fetching memories", 2000, None)]
    encoding = [s for s in seen if s[0] == "Encoding new memories"]
    assert encoding[-1] == ("Encoding new memories", 2500, 2500) and len(encoding) == 5  # batches of 512
    assert [s[0] for s in seen if s[0] not in ("Fetching memories", "Encoding new memories")] == [
        "Analysing: retention", "Analysing: contradictions", "Analysing: duplicates", "Analysing: judging pairs",
        "Analysed"]


def test_a_lived_database_encodes_only_its_new_memories(db_path: Path, tmp_path: Path) -> None:
    def encoded(mem: TrulyMem) -> list[tuple[str, int, int | None]]:
        seen: list[tuple[str, int, int | None]] = []
        run_dream(mem, project_dir=tmp_path, dry_run=True, emit=lambda _: None,
                  progress=lambda what, done, total: seen.append((what, done, total)))
        return [s for s in seen if s[0] == "Encoding new memories"]

    with TrulyMem(db_path, user_id="u", app_id="p") as mem:
        mem.commit([note(f"Note number {i} about module m{i}") for i in range(40)])
        assert encoded(mem)[-1][1:] == (40, 40)
    with TrulyMem(db_path, user_id="u", app_id="p") as mem:  # reopened: the cache is in the file
        assert encoded(mem) == []
        mem.commit([note("A new note about caching"), note("Another about the nightly pass")])
        mem.purge({"object": "Note number 7 about module m7"}, mode="hard", confirm=True)
        assert encoded(mem)[-1][1:] == (2, 2)
        rows = mem.store._q("SELECT count(*) FROM text_vectors")[0][0]  # type: ignore[attr-defined]
    assert rows == 41  # the purged memory's vector went with it


def test_a_change_statement_retires_the_old_value(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="u", app_id="p", clock=Clock()) as mem:
        mem.commit([note("Deploy the API to Heroku"), note("项目部署在阿里云上"), note("Heroku bills arrive monthly", "pref")])
        mem.commit([note("We moved from Heroku to AWS Lambda last quarter"), note("我们已经从阿里云迁移到了腾讯云")])
        items = list(iter_memories(mem.store, mem.scope))
    a = analyze(items, load_retention(), datetime.now(UTC))
    pairs = {(c.a.memory, c.b.memory) for c in a.conflicts}
    assert pairs == {("Deploy the API to Heroku", "We moved from Heroku to AWS Lambda last quarter"),
                     ("项目部署在阿里云上", "我们已经从阿里云迁移到了腾讯云")}  # another type's mention is not a rival


def test_pairs_the_rules_cannot_decide_go_to_the_model_or_stay_unmerged() -> None:
    from trulymem.dream.judge import judge
    from trulymem.dream.model_judge import judge_with_llm
    from trulymem.llm import ScriptedLLM

    # across scripts a foreign name cannot be matched ("Porto" / 布拉加); in one language, nothing shared but "user"
    pairs = [("The user lives in Porto", "用户住在布拉加"), ("User prefers replies in Chinese", "用户希望用中文回复"),
             ("用户不喜欢开会。", "用户讨厌排队。")]
    assert [judge(a, b) for a, b in pairs] == ["ambiguous", "duplicate", "ambiguous"]  # Chinese = 中文
    assert judge("The user lives in Suzhou", "用户住在厦门") == "contradiction"  # pinyin: two Chinese cities
    assert judge("用户的表姐陈静住在南京。", "用户的同事老周住在南京。") == "distinct"  # other subjects, one frame
    assert judge("The user has two children.", "The user has three kids.") == "contradiction"
    assert judge("Use pnpm, not npm", "The package manager for this repo is pnpm") == "duplicate"

    def reply(messages: list[dict[str, Any]]) -> str:
        assert "0. A: The user lives in Porto | B: 用户住在布拉加" in messages[0]["content"]
        return '```json\n[{"pair": 0, "verdict": "contradiction"}, {"pair": 1, "verdict": "duplicate"}, ' \
               '{"pair": 2, "verdict": "maybe"}]\n```'

    cache: dict[tuple[str, str], str] = {}
    said, warnings = judge_with_llm(pairs, ScriptedLLM([reply]), cache)
    assert said == ["contradiction", "duplicate", None] and not warnings  # an unknown verdict stays undecided
    again, _ = judge_with_llm(pairs[:2], ScriptedLLM([]), cache)  # cached: no model call
    assert again == ["contradiction", "duplicate"]
    failed, warnings = judge_with_llm(pairs[2:], ScriptedLLM([{"error": 500}]), cache)
    assert failed == [None] and "left unmerged" in warnings[0]


def test_a_plain_install_finds_paraphrases_in_english_and_chinese(db_path: Path, tmp_path: Path) -> None:
    with TrulyMem(db_path, user_id="u", app_id="p") as mem:  # no embedder configured for recall
        mem.commit([note("User prefers replies in Chinese", "pref"), note("用户希望用中文回复", "pref"),
                    note("用户不吃辣", "pref"), note("他吃不了辣的东西", "pref"),
                    note("Deploy the web app to Vercel"), note("Error tracking is handled by Sentry"),
                    note("用户每天早上跑步", "pref"), note("用户养了一只猫", "pref")])
        res = run_dream(mem, project_dir=tmp_path, dry_run=True, emit=lambda _: None)
    assert res.analysis is not None
    # found, but not provably the same (across languages, in other words): a person decides
    shown = sorted(sorted((r.a.memory, r.b.memory)) for r in res.analysis.reviews)
    assert shown == [["User prefers replies in Chinese", "用户希望用中文回复"], ["他吃不了辣的东西", "用户不吃辣"]]
    assert not res.analysis.conflicts and not res.analysis.merges


def _judge_pairs() -> dict[str, list[list[str]]]:
    import json

    data: dict[str, list[list[str]]] = json.loads(
        (Path(__file__).parent / "fixtures" / "judge_pairs.json").read_text(encoding="utf-8"))
    return data


def test_the_judge_without_a_model_on_pairs_written_apart_from_it() -> None:
    from trulymem.dream import dream_embedder
    from trulymem.dream.analyze import _frame_similarity
    from trulymem.dream.judge import judge

    frames = _frame_similarity(dream_embedder("auto", None))
    pairs = _judge_pairs()
    wrong = [(want, a, b, got) for want in ("contradiction", "duplicate") for a, b in pairs[want]
             if (got := judge(a, b, frames)) != want]
    wrong += [("not duplicate", a, b, "duplicate") for a, b in pairs["not_duplicate"] if judge(a, b, frames) == "duplicate"]
    assert wrong == []


def test_with_a_model_pairs_alike_only_in_meaning_merge_only_when_it_agrees(db_path: Path, tmp_path: Path) -> None:
    from trulymem.llm import ScriptedLLM

    texts = ["The user keeps a daily journal.", "Writing in a diary every evening is part of the user's routine.",
             "The user is a backend engineer.", "用户是做后端开发的。"]
    with TrulyMem(db_path, user_id="u", app_id="p") as mem:
        mem.commit([note(t, "pref") for t in texts])
        items = list(iter_memories(mem.store, mem.scope))
    asked: list[str] = []

    def reply(messages: list[dict[str, Any]]) -> str:
        listing = [line for line in str(messages[0]["content"]).splitlines() if line[:1].isdigit()]
        asked.extend(listing)
        return str([{"pair": n, "verdict": "duplicate" if "journal" in line else "distinct"}
                    for n, line in enumerate(listing)]).replace("'", '"')

    from trulymem.dream import dream_embedder

    a = analyze(items, load_retention(), datetime.now(UTC), embedder=dream_embedder("auto", None),
                llm=ScriptedLLM([reply]))
    assert any("journal" in line for line in asked) and any("backend" in line for line in asked)
    assert [sorted(m.memory for m in g.items) for g in a.merges] == [sorted(texts[:2])]


def test_neighbours_in_fewer_dimensions_match_the_exact_ones() -> None:
    import numpy as np

    import trulymem.dream.duplicates as dup

    rng = np.random.default_rng(3)
    centres = rng.standard_normal((1500, 512)).astype(np.float32)
    vecs = np.repeat(centres, 4, axis=0) + 0.35 * rng.standard_normal((6000, 512)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    exact_top, exact_knn = dup.nearest(vecs[:4000], 3)  # below the size where the search is reduced
    assert exact_top.shape == (4000, 3) and (exact_top[:, 0] // 4 == np.arange(4000) // 4).mean() > 0.99
    top, knn = dup.nearest(vecs, 3)  # reduced search, exact scores
    assert (top[:, 0] // 4 == np.arange(6000) // 4).mean() > 0.99  # each finds its own cluster
    assert np.allclose(knn, np.einsum("nd,nkd->nk", vecs, vecs[top]).mean(axis=1), atol=1e-5)


def test_each_model_client_is_asked_afresh_not_answered_from_anothers_verdicts(db_path: Path) -> None:
    """Verdicts are cached per model client: a second client (another model, or this test run
    twice in one process) is asked itself."""
    from trulymem.dream import dream_embedder
    from trulymem.llm import ScriptedLLM

    texts = ["The user keeps a daily journal.", "Writing in a diary every evening is part of the user's routine."]
    with TrulyMem(db_path, user_id="u", app_id="p") as mem:
        mem.commit([note(t, "pref") for t in texts])
        items = list(iter_memories(mem.store, mem.scope))
    for verdict, merged in (("duplicate", 1), ("distinct", 0), ("duplicate", 1)):
        llm = ScriptedLLM([str([{"pair": 0, "verdict": verdict}]).replace("'", '"')])
        a = analyze(items, load_retention(), datetime.now(UTC), embedder=dream_embedder("auto", None), llm=llm)
        assert len(llm.requests) == 1 and len(a.merges) == merged


def test_a_role_with_one_holder_held_by_two_is_a_conflict_other_shared_roles_are_not(db_path: Path,
                                                                                        tmp_path: Path) -> None:
    """Written apart from the rules: an owner, lead or 负责人 of one definite thing is one
    person at a time; reviewing, using or owning *a* thing is not exclusive."""
    with TrulyMem(db_path, user_id="u", app_id="p") as mem:
        mem.commit([note("Ines owns the billing dashboard."), note("Tariq owns the billing dashboard."),
                    note("Ines reviews the onboarding emails."), note("Tariq reviews the onboarding emails."),
                    note("Ines owns a sea kayak.", "fact"), note("Tariq owns a sea kayak.", "fact"),
                    note("Wen is the tech lead for the payments squad."),
                    note("Olu is the tech lead for the payments squad."),
                    note("周航负责数据平台的值班。"), note("林珊负责数据平台的值班。"),
                    note("Ines leads the search team."), note("Tariq leads the growth team.")])
        res = run_dream(mem, project_dir=tmp_path, dry_run=True, emit=lambda _: None)
    assert res.analysis is not None
    conflicts = sorted(sorted((c.a.memory, c.b.memory)) for c in res.analysis.conflicts)
    assert conflicts == [["Ines owns the billing dashboard.", "Tariq owns the billing dashboard."],
                         ["Olu is the tech lead for the payments squad.", "Wen is the tech lead for the payments squad."],
                         ["周航负责数据平台的值班。", "林珊负责数据平台的值班。"]]
    assert not res.analysis.merges


def test_agreeing_contrasts_and_two_subjects_with_two_values_are_not_conflicts() -> None:
    """Written apart from the rules: "A rather than B" agrees with "A, not B"; another subject
    with another value ("[trips] … [3] days" / "[hotels] … [10] days", "[订单] API 的 QPS 上限是 [500]" /
    "[搜索] API …") is two facts, in both languages, whether the word between is a verb or a name."""
    from trulymem.dream.judge import judge

    assert judge("Address him as Teo rather than Matteo", "His preferred name is Teo, not Matteo") != "contradiction"
    assert judge("Refunding a cancelled trip takes about 3 days",
                 "Refunding a cancelled hotel takes about 10 days") == "distinct"
    assert judge("订单 API 的 QPS 上限是 500", "搜索 API 的 QPS 上限是 200") == "distinct"
    # one subject, one slot, two values stays a conflict
    assert judge("Refunding a cancelled trip takes about 3 days",
                 "Refunding a cancelled trip takes about 10 days") == "contradiction"
    assert judge("订单 API 的 QPS 上限是 500", "订单 API 的 QPS 上限是 800") == "contradiction"
    assert judge("Address him as Teo", "Address him as Matteo") == "contradiction"
