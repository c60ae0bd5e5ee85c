"""What the user said comes first (issue 28): stated facts rank above message and task
bookkeeping, the task-chain intent keeps every open task however many turns follow,
claims the user did not state are stored as speculation with a warning, and turns are
listed apart from tasks. Real SQLite file; the model is scripted (ScriptedLLM)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Clock
from trulymem import TrulyMem
from trulymem.agent import Agent
from trulymem.llm import ScriptedLLM
from trulymem.server.protocol import CHAIN_INTENT, PERSONA_INTENT
from trulymem.store.base import FactQuery
from trulymem.text.speculation import speculation_reason

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "speculation_claims.json").read_text(encoding="utf-8"))
TALK = ["I live in Oslo.", "I really enjoy bouldering.", "I work for Nordlys Games.",
        "My favourite band is Röyksopp.", "Tell me about fjords.", "What's a good sauna etiquette?",
        "I'll think about the trip.", "Thanks, that helps."]


@pytest.fixture
def memory(db_path: Path) -> Iterator[TrulyMem]:
    with TrulyMem(db_path, user_id="sigrid", clock=Clock()) as mem:
        yield mem


def _talked(mem: TrulyMem) -> TrulyMem:
    mem.commit([{"subject": "user", "relation": "prefers", "object": "short answers", "pinned": True},
                {"subject": "user", "relation": "uses", "object": "metric units", "pinned": True}])
    agent = Agent(mem, ScriptedLLM([f"reply {i}" for i in range(len(TALK))]), extract="rules")
    for text in TALK:
        agent.turn(text)
    return mem


def _rank(mem: TrulyMem, query: str, want: tuple[str, str, str], depth: int = 2) -> int:
    facts = [(f.subject, f.relation, f.object) for f in mem.recall(query, depth=depth).facts]
    assert want in facts, (query, facts)
    return facts.index(want) + 1


@pytest.mark.parametrize(("query", "want"), [
    ("lives_in", ("user", "lives_in", "Oslo")),
    ("works_at", ("user", "works_at", "Nordlys Games")),
    ("favorite_band", ("user", "favorite_band", "Röyksopp")),
    ("what do I like?", ("user", "likes", "bouldering")),
    ("where do I live?", ("user", "lives_in", "Oslo")),
    ("Oslo", ("user", "lives_in", "Oslo")),
])
def test_stated_facts_rank_above_message_bookkeeping(memory: TrulyMem, query: str, want: tuple[str, str, str]) -> None:
    mem = _talked(memory)
    assert _rank(mem, query, want) == 1
    assert _rank(mem, query, want, depth=1) == 1  # the web app's search


def test_pinned_facts_lead_only_where_the_query_reaches_them(memory: TrulyMem) -> None:
    mem = _talked(memory)
    top = mem.recall("works_at").facts[0]
    assert (top.relation, top.object) == ("works_at", "Nordlys Games")
    pinned = [f for f in mem.recall("units").facts if f.pinned]
    assert pinned and mem.recall("units").facts[0].object == "metric units"
    structural = [f for f in mem.recall("lives_in").facts if f.type == "episode"]
    stated = [f for f in mem.recall("lives_in").facts if f.type != "episode" and f.kind == "FACT"]
    assert min(f.score for f in stated) > max(f.score for f in structural)


def _tool(mem: TrulyMem, name: str, **args: Any) -> dict[str, Any]:
    res = mem.call(name, args)
    assert res.ok, res.error
    assert res.result is not None
    return res.result


def test_chain_intent_keeps_every_open_task_through_the_published_protocol(memory: TrulyMem) -> None:
    """An MCP client following server/protocol.py: steps 1-2 recall, step 4 task_create a Turn_."""
    _tool(memory, "task_create", task_id="Task_haiku_duel", description="Haiku duel, our turn next",
          info_nodes=["haiku_duel_state"])
    _tool(memory, "memory_commit", triplets=[{"subject": "haiku_duel_state", "relation": "last_line",
                                              "object": "frost on the old gate"}])
    _tool(memory, "task_create", task_id="Task_trip_plan", description="Planning a trip to Tromsø")
    _tool(memory, "task_set_state", task_id="Task_haiku_duel", state="paused")
    for turn in range(15):
        _tool(memory, "memory_recall", query_intent=PERSONA_INTENT, depth=2)
        text = _tool(memory, "memory_recall", query_intent=CHAIN_INTENT, depth=2)["text"]
        assert "Task_haiku_duel [paused]" in text and "frost on the old gate" in text, (turn, text)
        assert "Task_trip_plan [in_progress]" in text, (turn, text)
        _tool(memory, "task_create", task_id=f"Turn_20260101_{turn:04}", description=f"talked about item {turn}",
              info_nodes=[f"item {turn}"])
    # within a token budget the open tasks are cut last
    small = _tool(memory, "memory_recall", query_intent=CHAIN_INTENT, depth=2, max_tokens=60)["text"]
    assert "Task_haiku_duel [paused]" in small and "Task_trip_plan" in small
    # turns are in the chain but listed apart, by their words, never as open tasks
    text = _tool(memory, "memory_recall", query_intent=CHAIN_INTENT, depth=2)["text"]
    tasks, _, turns = text.partition("Turns (newest first)")
    assert "Turn_" not in tasks and "talked about item 14" in turns, text
    assert [t["state"] for t in _tool(memory, "task_list", limit=1, kind="all")["tasks"]] == ["completed"]
    assert [t["task_id"] for t in _tool(memory, "task_list", limit=5)["tasks"]] == ["Task_trip_plan", "Task_haiku_duel"]


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: f"{c['label']}:{c['said'][:30]}")
def test_claims_are_stated_only_when_the_user_states_them(case: dict[str, Any]) -> None:
    subject, relation, obj = case["claim"]
    why = speculation_reason(subject, relation, obj, case["said"], "sigrid")
    assert ("speculation" if why else "stated") == case["label"], why


@pytest.mark.parametrize(("said", "obj", "relation", "reason"), [
    ("Have you ever tried ice fishing?", "ice fishing", "likes", "a question"),
    ("My uncle collects vinyl records.", "vinyl records", "collects", "about someone else"),
    ("Unless it rains I'll cycle to Bergen.", "Bergen", "travels_to", "a condition"),
])
def test_a_model_commit_the_user_did_not_state_is_stored_as_speculation_with_a_warning(
        memory: TrulyMem, said: str, obj: str, relation: str, reason: str) -> None:
    llm = ScriptedLLM([{"tool_calls": [{"name": "memory_commit", "arguments": {"triplets": [
        {"subject": "user", "relation": relation, "object": obj}]}}]}, "OK."])
    r = Agent(memory, llm, extract="rules").turn(said)
    facts = [f for f in memory.store.facts(FactQuery(scope=memory.scope.user_wide())) if f.object == obj
             and f.subject == "user"]
    assert [f.speculation for f in facts] == [True]
    assert any(reason in w and obj in w for w in r.trace.warnings), r.trace.warnings


def test_agent_context_lists_turns_apart_from_tasks(memory: TrulyMem) -> None:
    memory.task_create("Task_knitting", "Knitting a scarf pattern")
    llm = ScriptedLLM([f"reply {i}" for i in range(4)])
    agent = Agent(memory, llm, extract="rules")
    for text in ("hello", "how are you", "nice weather"):
        agent.turn(text)
    agent.turn("anything else?")
    prompt = llm.requests[-1]["messages"][0]["content"]
    assert "## Recent turns" in prompt
    assert "## Task chain" in prompt
    chain = prompt.split("## Task chain", 1)[1].split("##", 1)[0]
    assert "turn:" not in chain


def test_messages_are_shown_by_their_words_and_time_not_their_ids(memory: TrulyMem) -> None:
    mem = _talked(memory)
    res = mem.recall("Oslo")
    said = next(f for f in res.facts if f.relation == "said")
    assert said.text.startswith("user said “I live in Oslo.” (") and said.object not in said.text
    excerpts = [line for line in res.text.splitlines() if "I live in Oslo." in line]
    assert excerpts and all(said.object.split(":")[0] not in line for line in excerpts)
    _tool(mem, "memory_ingest", messages=[{"speaker": "Nadia", "text": "We hiked the Preikestolen trail.", "id": "D4:2"}])
    cited = mem.recall("Preikestolen").text
    assert "[D4:2 · " in cited  # a short conversation id stays, for citing


@pytest.mark.parametrize(("text", "names"), [
    ("I'll ask Ingrid tomorrow.", ["Ingrid"]),
    ("What's on in Bergen? Tell me.", ["Bergen"]),
    ("Let's go! Maybe Astrid can drive. Don't forget.", ["Astrid"]),
])
def test_ingest_makes_no_entities_of_sentence_openers(memory: TrulyMem, text: str, names: list[str]) -> None:
    assert _tool(memory, "memory_ingest", messages=[{"speaker": "user", "text": text}])["entities"] == names


def test_task_list_lists_tasks_apart_from_turns(memory: TrulyMem) -> None:
    memory.task_create("Task_garden", "Plan the allotment")
    agent = Agent(memory, ScriptedLLM([f"reply {i}" for i in range(25)]), extract="rules")
    for i in range(25):
        agent.turn(f"small talk {i}")
    memory.task_create("Task_tax", "File the tax return")
    memory.task_set_state("Task_garden", "paused")
    assert [t.task_id for t in memory.task_list(limit=5, kind="task").tasks] == ["Task_tax", "Task_garden"]
    turns = memory.task_list(limit=5, kind="turn").tasks
    assert len(turns) == 5 and {t.kind for t in turns} == {"turn"}
    assert [t.task_id for t in memory.task_list(state="paused", kind="task").tasks] == ["Task_garden"]
    assert len(memory.task_list(limit=30, kind="all").tasks) == 27  # the whole chain
    assert [t.task_id for t in memory.task_list().tasks] == ["Task_tax", "Task_garden"]  # by default: tasks
    bad = memory.call("task_list", {"kind": "chore"})
    assert not bad.ok and bad.error is not None and "kind" in str(bad.error)


@pytest.mark.parametrize("embedder", ["hashing", None])
@pytest.mark.parametrize(("query", "relation"), [
    ("where do I work?", "works_at"), ("What's my job?", "works_at"), ("has_pet", "has_pet"),
    ("Do I have pets?", "has_pet"), ("where do I live?", "lives_in"), ("what music do I like?", "likes"),
    ("birthday", "birthday"), ("我住在哪里？", "lives_in"), ("我的生日是哪天？", "birthday"), ("我在哪工作？", "works_at"),
    ("我养了什么宠物？", "has_pet"), ("我喜欢什么音乐？", "likes"),
])
def test_the_fact_a_question_names_comes_first_whatever_the_embedder(tmp_path: Path, embedder: str | None,
                                                                     query: str, relation: str) -> None:
    """With the hashing embedder (the CLI's and server's default) every user fact resembles a
    question about the user alike; the fact the question names must still lead, and a pinned
    fact it does not name must not."""
    with TrulyMem(tmp_path / "m.db", user_id="u", embedder=embedder) as mem:
        mem.commit([{"subject": "user", "relation": r, "object": o} for r, o in (
            ("lives_in", "Lisbon"), ("works_at", "Acme"), ("likes", "jazz music"), ("has_pet", "Mochi"),
            ("birthday", "March 3"))])
        mem.commit([{"subject": "user", "relation": "allergic_to", "object": "peanuts", "pinned": True}])
        assert mem.recall(query).facts[0].relation == relation
