"""The memory-agent eval (bench/bench_agent_llm.py): the scripted run end to end over
real HTTP, the fact-matching scheme, and the command line without an endpoint.

The runtime's targets (must-write facts, speculation, "last time" answers) are not
asserted here: the report is printed, and its figures are checked against the
fixture and the per-turn records they are computed from."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from trulymem import TrulyMem

BENCH = Path(__file__).parents[1] / "bench"
sys.path.insert(0, str(BENCH))
import agent_eval_lib as lib  # noqa: E402
import bench_agent_llm as bench  # noqa: E402

CONVS = lib.load_conversations()


@pytest.fixture(scope="module")
def scripted() -> tuple[list[list[Any]], dict[str, Any]]:
    runs = bench.run_all(CONVS, None, 1, bench.Options(extract="rules"))
    report = bench.build_report(runs)
    report |= {"model": "scripted-eval", "base_url": "local", "scripted": True, "extract": "rules"}
    print("\n" + bench.render(report))
    return runs, report


def _turns(lang: str) -> list[lib.Turn]:
    return next(c for c in CONVS if c.lang == lang).turns()


def test_fixture_covers_the_design() -> None:
    assert sorted(c.lang for c in CONVS) == ["en", "zh"]
    for c in CONVS:
        assert len(c.sessions) >= 3 and [s.day for s in c.sessions] == sorted({s.day for s in c.sessions})
        turns = c.turns()
        texts = " ".join(t.user for t in turns)
        assert "为所欲为" in texts and ("Nagato Yuki" in texts or "长门有希" in texts)
        assert sum(len(t.must_write) for t in turns) >= 8 and sum(len(t.guess) for t in turns) >= 3
        assert any(t.must_not_current for t in turns) and any(t.must_not_write for t in turns)
        assert any(p.negated for t in turns for p in t.must_write)
        asked = [t.user for t in turns if t.answer_contains]
        assert any(w in q for q in asked for w in ("last time", "just now", "before", "上次", "刚才", "之前"))
        for t in turns:  # a question must not carry its own answer
            assert not any(a.casefold() in t.user.casefold() for a in t.answer_contains), t.user


def test_report_counts_come_from_the_fixture(scripted: tuple[list[list[Any]], dict[str, Any]]) -> None:
    runs, report = scripted
    res = report["results"]
    assert set(res) == {"en", "zh", "all"} and report["runs"] == 1
    for lang in ("en", "zh"):
        turns, r = _turns(lang), res[lang]
        assert r["turns"] == len(turns)
        assert r["must_write"]["total"] == sum(len(t.must_write) for t in turns)
        assert r["corrections"]["total"] == sum(len(t.must_not_current) for t in turns)
        assert r["negations"]["total"] == sum(len(t.must_not_write) for t in turns)
        assert r["speculation"]["guesses"] == sum(len(t.guess) for t in turns)
        assert r["answers"]["total"] == r["questions_clean"]["total"] == sum(bool(t.answer_contains) for t in turns)
        for step in ("persona", "chain", "recorded", "all_steps"):
            assert r["protocol"][step]["total"] == len(turns)
        # The scripted model calls tools exactly where the fixture says; the rest are one round trip.
        quiet = [t for t in turns if not t.scripted.tool_calls and not t.guess]
        rt = r["round_trips"]
        assert len(quiet) - r["errors"] <= rt["no_tool_turns"] <= len(quiet)
        assert rt["no_tool_one_trip"] == rt["no_tool_turns"] > 0 and rt["no_tool_one_trip_share"] == 1.0
        assert r["prompt_tokens"]["p50"] > 0 and r["completion_tokens"]["p50"] > 0
        assert r["memory_ms"]["p50"] > 0 and r["wall_s"] > 0
    assert res["all"]["turns"] == res["en"]["turns"] + res["zh"]["turns"]
    assert res["all"]["must_write"]["ok"] == res["en"]["must_write"]["ok"] + res["zh"]["must_write"]["ok"]
    # Every failure is listed, and the figures agree with the per-turn records.
    records = [r for conv in runs[0] for r in conv.turns]
    checks = [c for r in records for c in r.checks]
    assert len(report["failures"]) == sum(not c.ok for c in checks)
    for rec, turn in zip(records, [t for c in CONVS for t in c.turns()]):
        assert rec.user == turn.user
        answer = [c for c in rec.checks if c.kind == "answer"]
        if turn.answer_contains:
            assert answer[0].ok == any(a.casefold() in rec.reply.casefold() for a in turn.answer_contains)
        else:
            assert not answer
        if rec.error is None:
            assert rec.llm_calls == (2 if turn.scripted.tool_calls or turn.guess else 1)


def test_the_command_line_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--scripted", "--runs", "1", "--lang", "zh", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["scripted"] and report["langs"] == ["zh"] and set(report["results"]) == {"zh"}
    assert report["results"]["zh"]["turns"] == len(_turns("zh"))


def test_without_an_endpoint_it_says_how_to_set_one() -> None:
    # conftest clears TRULYMEM_* / OPENAI_* and points the config dir at an empty temp dir.
    r = subprocess.run([sys.executable, str(BENCH / "bench_agent_llm.py")], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2, r.stderr
    assert "set an endpoint: --base-url/--model" in r.stderr and "TRULYMEM_LLM_MODEL" in r.stderr
    assert r.stdout == ""


def _facts(triplets: list[dict[str, Any]]) -> list[Any]:
    with TrulyMem(":memory:", user_id="u") as mem:
        mem.commit(triplets)
        return [f for name in ("user", "用户") for f in mem.history(name)]


def test_fact_matching_is_by_wording_and_polarity() -> None:
    likes = lib.Pattern(relation_any=["like", "love", "喜欢"], object_contains="rock")
    not_likes = likes.model_copy(update={"negated": True})
    lives = lib.Pattern(relation_any=["live"], relation_none=["based"], object_contains="Paris")
    facts = {f"{f.relation} {f.object}": f for f in _facts([
        {"subject": "user", "relation": "likes", "object": "Rock music"},
        {"subject": "user", "relation": "dislikes", "object": "rock"},
        {"subject": "user", "relation": "does_not_like", "object": "hard rock"},
        {"subject": "user", "relation": "lived_in", "object": "Paris"},
        {"subject": "user", "relation": "livesIn", "object": "Paris, France"},
        {"subject": "user", "relation": "lives_based_in", "object": "Paris"},
        {"subject": "用户", "relation": "不喜欢", "object": "rock"}])}
    assert likes.matches(facts["likes Rock music"]) and not not_likes.matches(facts["likes Rock music"])
    for neg in ("dislikes rock", "does_not_like hard rock", "不喜欢 rock"):
        assert lib.negative(facts[neg]) and not likes.matches(facts[neg])
    assert not_likes.matches(facts["does_not_like hard rock"]) and not_likes.matches(facts["不喜欢 rock"])
    assert not not_likes.matches(facts["dislikes rock"])  # "dislike" is not a form of "like": list it
    assert lives.matches(facts["livesIn Paris, France"])
    assert not lives.matches(facts["lived_in Paris"]) and not lives.matches(facts["lives_based_in Paris"])


def test_guesses_are_scored_on_the_speculation_mark(tmp_path: Path) -> None:
    with TrulyMem(tmp_path / "m.db", user_id="u") as mem:
        mem.commit([{"subject": "user", "relation": "plays", "object": "saxophone", "speculation": True},
                    {"subject": "user", "relation": "lives_in", "object": "Lisbon"}])
        view = lib.MemoryView(mem, "u")
    sax = lib.Guess(subject="user", relation="plays", object="saxophone")
    lisbon = lib.Guess(subject="user", relation="lives_in", object="Lisbon", relation_any=["live"])
    rec = bench.TurnRecord(where="t", user="x")
    bench.score_memory(lib.Turn(user="x", guess=[sax, lisbon]), rec, view)
    guesses = [c for c in rec.checks if c.kind == "guess"]
    assert [(c.ok, c.matched) for c in guesses] == [(True, 1), (False, 1)]
    assert not view.current(sax.pattern()) and view.current(lisbon.pattern())


def test_the_scripted_model_answers_only_from_the_prompt() -> None:
    system = ("You are X.\n\n## Persona (from memory)\nname: Kyoto-cat\n\n## Task chain\n- Task_a [paused] chat\n\n"
              "## Memories related to the user's message\n- user plans_to_visit Kyoto in May\n\nRULES TEXT")
    assert lib.quote_answer(system, ["Kyoto"], "en", "RULES TEXT") == "From memory: - user plans_to_visit Kyoto in May"
    assert "don't remember" in lib.quote_answer(system, ["Berlin"], "en")
    assert "don't remember" in lib.quote_answer(system.replace("plans_to_visit Kyoto", "x"), ["Kyoto"], "en")
