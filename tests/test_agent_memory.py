"""What the agent keeps: stated facts the model did not commit, guesses marked as
guesses, "last time" across sessions, and the work after the reply (model
summaries and extraction) that survives the process. Real SQLite file; the model
is scripted (ScriptedLLM runs the runtime's real code paths)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Clock
from trulymem import TrulyMem
from trulymem.agent import Agent
from trulymem.agent.extract import rule_statements
from trulymem.agent.record import parts
from trulymem.llm import ScriptedLLM


@pytest.fixture
def memory(db_path: Path) -> Iterator[TrulyMem]:
    with TrulyMem(db_path, user_id="alice", clock=Clock()) as mem:
        yield mem


def current(mem: TrulyMem, relation: str | None = None) -> dict[str, Any]:
    return {f.object: f for f in mem.history("user", relation) if f.invalid_at is None and f.relation != "said"}


def lazy(n: int) -> ScriptedLLM:
    """A model that answers and never writes memory."""
    return ScriptedLLM([f"reply {i}" for i in range(n)])


MUST_WRITE = [
    ("I like rock", "likes", "rock"),
    ("I'm working on the Atlas project.", "working_on", "the Atlas project"),
    ("I plan to visit Kyoto in May.", "plans_to", "visit Kyoto in May"),
    ("I'm currently at the office in Lisbon", "is_at", "the office in Lisbon"),
    ("我喜欢爵士乐", "likes", "爵士乐"),
    ("我在做一个记忆系统项目", "working_on", "记忆系统项目"),
    ("我打算五月去京都", "plans_to", "五月去京都"),
    ("我现在在公司", "is_at", "公司"),
]


@pytest.mark.parametrize(("said", "relation", "obj"), MUST_WRITE)
def test_what_the_user_states_is_stored_when_the_model_writes_nothing(memory: TrulyMem, said: str, relation: str,
                                                                       obj: str) -> None:
    agent = Agent(memory, lazy(1), extract="rules")
    r = agent.turn(said)
    fact = current(memory, relation)[obj]
    assert fact.speculation is False and fact.source == "rule-extract"
    assert fact.turn_id == r.trace.turn_id and fact.message_ids == [f"{r.trace.turn_id}:user"]
    assert r.trace.extracted == [f"user {relation} {obj}"]


def test_questions_conditionals_and_third_persons_are_not_statements() -> None:
    for text in ("Do you like rock?", "If I like it I'll tell you", "My sister likes jazz", "I'd love to help",
                 "你喜欢什么音乐？", "What should I plan to do?"):
        assert rule_statements(text) == [], text


def test_a_move_supersedes_the_old_home_at_write_time(memory: TrulyMem, db_path: Path) -> None:
    agent = Agent(memory, lazy(4), extract="rules")
    first = agent.turn("I live in Paris.")
    agent.turn("I moved to Berlin last week")
    homes = memory.history("user", "lives_in")
    assert [(f.object, f.invalid_at is None) for f in homes] == [("Paris", False), ("Berlin", True)]
    assert homes[0].superseded_by == homes[1].id and homes[0].turn_id == first.trace.turn_id
    agent.turn("I like rock")
    agent.turn("Actually I don't like rock anymore, I like jazz.")
    assert {k: f.relation for k, f in current(memory).items()} == {"Berlin": "lives_in", "rock": "dislikes",
                                                                    "jazz": "likes"}


def test_a_model_commit_in_other_words_is_not_written_twice(memory: TrulyMem) -> None:
    llm = ScriptedLLM([{"tool_calls": [{"name": "memory_commit", "arguments": {"triplets": [
        {"subject": "user", "relation": "喜欢", "object": "rock"}]}}]}, "Noted!"])
    Agent(memory, llm, extract="rules").turn("I like rock")
    assert [(f.relation, f.object) for f in current(memory).values()] == [("喜欢", "rock")]


def test_guesses_are_marked_whatever_the_model_says(memory: TrulyMem) -> None:
    llm = ScriptedLLM([{"tool_calls": [{"name": "memory_commit", "arguments": {"triplets": [
        {"subject": "user", "relation": "likes", "object": "rock", "speculation": False},
        {"subject": "user's band", "relation": "probably_plays", "object": "punk"},
        {"subject": "user[speculation]", "relation": "likes", "object": "music"},
        {"subject": "idiom_chain_current", "relation": "content", "object": "为虎作伥"}]}}]}, "Got it."])
    r = Agent(memory, llm, extract="rules").turn("I don't like rock, but my band is loud.")
    facts = {f.object: f for f in memory.store.facts(_all(memory))}
    assert facts["rock"].speculation is True and facts["rock"].relation == "likes"  # the user said the opposite
    assert facts["punk"].speculation is True  # hedged, about the user's band
    assert facts["music"].speculation is True and facts["music"].subject == "user"
    assert facts["为虎作伥"].speculation is False  # the AI's own game state is not a guess about the user
    assert any("the user said the opposite" in w for w in r.trace.warnings)
    # the runtime stored what was said: the denial, which replaces the model's "likes rock"
    assert [(f.relation, f.speculation) for f in current(memory).values() if f.object == "rock"] == [("dislikes", False)]


def _all(mem: TrulyMem) -> Any:
    from trulymem.store.base import FactQuery
    return FactQuery(scope=mem.scope.user_wide(), validity="all")


def test_last_time_recalls_the_previous_session_by_time_not_words(db_path: Path) -> None:
    clock = Clock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    sessions = {
        "day1": ["Let's talk about hiking in the Alps", "What do we talk about when we talk about boots?"],
        "day2": ["I want to bake sourdough bread", "How long should the starter ferment?"],
    }
    seen: list[str] = []

    def answer(messages: list[dict[str, Any]]) -> str:
        seen.append(messages[0]["content"])
        section = messages[0]["content"].split("## Last time", 1)
        return "Last time: " + section[1].split("##", 1)[0] if len(section) > 1 else "I don't know."

    with TrulyMem(db_path, user_id="alice", clock=clock) as mem:
        for name, texts in sessions.items():
            agent = Agent(mem, lazy(len(texts)), session_id=name, extract="rules")
            for t in texts:
                agent.turn(t)
            clock.advance(days=1)
        agent = Agent(mem, ScriptedLLM([answer, answer]), session_id="day3", extract="rules")
        r = agent.turn("What did we talk about last time?")
        r2 = agent.turn("上次我们聊了什么？")
    assert "sourdough" in r.reply and "starter" in r.reply and "hiking" not in r.reply
    assert "sourdough" in r2.reply and r2.trace.recalled["history_reference"] == "上次"
    assert len(r.trace.recalled["previous_session"]) == 2 and "2026-03-02" in seen[0]


def test_model_summaries_and_extraction_run_after_the_reply_in_batches(memory: TrulyMem) -> None:
    calls: list[str] = []

    def extract(messages: list[dict[str, Any]]) -> str:
        listing = messages[1]["content"]
        calls.append(listing)
        turns = [int(line.split()[1]) for line in listing.splitlines() if line.startswith("Turn ")]
        facts = {"I adopted a cat named Miso": [{"subject": "user", "relation": "has_pet", "object": "a cat named Miso"},
                                                {"subject": "user", "relation": "likes", "object": "dogs"}]}
        out = []
        for i in turns:
            said = listing.split(f"Turn {i}\nUser: ", 1)[1].split("\n", 1)[0]
            out.append({"turn": i, "summary": f"summary of {said[:12].strip()}", "facts": facts.get(said, [])})
        return "```json\n" + json.dumps({"turns": out}) + "\n```"

    agent = Agent(memory, lazy(3), post_llm=ScriptedLLM([extract, extract]), post_batch=2)
    r1 = agent.turn("I adopted a cat named Miso")
    agent.turn("hello")
    agent.turn("bye")
    assert agent.flush(timeout=10)
    agent.close()
    assert len(calls) == 2 and calls[0].count("Turn ") == 2  # two turns per model call, then the rest
    facts = current(memory)
    assert facts["a cat named Miso"].source == "llm-extract" and facts["a cat named Miso"].speculation is False
    assert facts["dogs"].speculation is True  # the model said "stated", the user never did
    assert facts["a cat named Miso"].message_ids == [f"{r1.trace.turn_id}:user"]
    records = [t for t in memory.task_list(kind="turn").tasks]
    assert sorted(t.description for t in records) == ["summary of I adopted a", "summary of bye", "summary of hello"]


def test_work_left_by_a_killed_process_is_done_by_the_next_agent(db_path: Path) -> None:
    script = textwrap.dedent(f"""
        import os
        from trulymem import TrulyMem
        from trulymem.agent import Agent
        from trulymem.llm import ScriptedLLM
        mem = TrulyMem({str(db_path)!r}, user_id="alice")
        agent = Agent(mem, ScriptedLLM(["ok", "ok"]), post_llm=ScriptedLLM([]), post_batch=10)
        agent.turn("I adopted a cat named Miso")
        agent.turn("I'm at home")
        os._exit(0)  # killed: no close, no flush
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    reply = json.dumps({"turns": [{"turn": 0, "summary": "Adopted a cat", "facts": [
        {"subject": "user", "relation": "has_pet", "object": "a cat named Miso"}]}, {"turn": 1, "summary": "At home"}]})
    with TrulyMem(db_path, user_id="alice") as mem:
        pending = [t for t in mem.task_list(kind="turn").tasks]
        assert len(pending) == 2
        with Agent(mem, lazy(0), post_llm=ScriptedLLM([reply]), extract="model") as agent:
            assert agent.flush(timeout=10)
        assert "a cat named Miso" in current(mem)
        assert sorted(t.description for t in mem.task_list(kind="turn").tasks) == ["Adopted a cat", "At home"]


def test_a_failing_post_turn_model_keeps_the_turn_pending_then_gives_up(memory: TrulyMem) -> None:
    agent = Agent(memory, lazy(1), post_llm=ScriptedLLM([{"error": 500}, "not json", {"error": 503}]))
    agent.turn("I like rock")
    agent.close(timeout=10)
    assert len(agent.post.errors) == 3 if agent.post else False
    (record,) = [n for n in memory.store.nodes(_tasks(memory)) if n.metadata.get("kind") == "turn"]
    assert record.metadata["post"] == "failed" and record.metadata["attempts"] == 3
    assert "rock" in current(memory)  # the rules already stored what was said


def _tasks(mem: TrulyMem) -> Any:
    from trulymem.store.base import NodeQuery
    return NodeQuery(scope=mem.scope, types=["TaskNode"])


def test_context_rewrite_longer_than_what_it_replaces_is_refused(memory: TrulyMem) -> None:
    long = "1 call: memory_recall looked for x. " + "Nothing much was found. " * 40
    llm = ScriptedLLM([
        {"tool_calls": [{"name": "memory_recall", "arguments": {"query_intent": "x"}}]},
        {"tool_calls": [{"name": "context_rewrite", "arguments": {"summary": long, "tool_calls_summarized": 1}}]},
        "done"])
    r = Agent(memory, llm, extract="off").turn("look something up")
    refused = r.trace.tools[-1]
    assert not refused.ok and refused.error and "not shorter" in refused.error["message"] and r.trace.rewrites == 0


def test_agent_settings_are_validated(memory: TrulyMem) -> None:
    from trulymem import InvalidInput
    with pytest.raises(InvalidInput) as exc:
        Agent(memory, lazy(0), extract="sometimes")  # type: ignore[arg-type]
    assert exc.value.field == "extract"


def test_turn_records_keep_time_order_across_days(db_path: Path) -> None:
    clock = Clock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    with TrulyMem(db_path, user_id="alice", clock=clock) as mem:
        agent = Agent(mem, lazy(3), extract="off")
        ids = []
        for _ in range(3):
            ids.append(agent.turn("hi").trace.record_task)
            clock.advance(days=1)
        chain = mem.task_list(kind="turn").tasks
        assert [t.task_id for t in chain] == ids[::-1]
        assert [t.previous_task for t in chain] == [ids[1], ids[0], None]
        assert datetime.fromisoformat(chain[0].created_at) - datetime.fromisoformat(chain[2].created_at) \
            >= timedelta(days=2)


def test_a_reply_longer_than_one_episode_is_stored_whole(memory: TrulyMem) -> None:
    reply = " ".join(f"word{i}" for i in range(1500))  # 12,389 characters
    r = Agent(memory, ScriptedLLM([reply]), extract="off").turn("Tell me everything " + "x" * 5000)
    assert r.reply == reply and [len(p) for p in parts(reply)] == [3993, 3994, 3995, 404]
    assert len(r.trace.written["episodes"]) == 2 + 4  # the user's 5,019 characters in two parts (no space to cut at)
    texts = [n.summary for n in memory.store.nodes(_episodes(memory))]
    stored = " ".join(t.split(": ", 1)[1] for t in reversed(texts) if t.startswith("AI: "))
    assert stored == reply


def _episodes(mem: TrulyMem) -> Any:
    from trulymem.store.base import NodeQuery
    return NodeQuery(scope=mem.scope, types=["EpisodeNode"])


def test_what_the_runtime_writes_has_vectors_like_any_tool_write(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="alice", embedder="hashing") as mem:
        Agent(mem, lazy(1), extract="rules").turn("I'm working on the Atlas project.")
        with mem.store.transaction(write=False):
            assert mem.store.count_nodes_without_vectors() == 0
