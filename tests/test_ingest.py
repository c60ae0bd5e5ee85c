from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import snapshot
from trulymem import InvalidInput, TrulyMem
from trulymem.tools.ingest import mentioned_names

MESSAGES = [
    {"speaker": "Caroline", "text": "I went to the LGBTQ support group yesterday, it was powerful.", "id": "D1:3",
     "session": "session_1", "timestamp": "2023-05-08T13:56:00"},
    {"speaker": "Melanie", "text": "Wow Caroline, that's great! Did you meet anyone from Sweden?", "id": "D1:4",
     "session": "session_1", "timestamp": "2023-05-08T13:57:00"},
    {"speaker": "Caroline", "text": "Yes, a painter from Stockholm.", "id": "D2:1", "session": "session_2",
     "timestamp": "2023-05-20T09:00:00"},
]


@pytest.fixture
def convo(db_path: Path) -> TrulyMem:
    mem = TrulyMem(db_path, user_id="conv", embedder="hashing")
    res = mem.run("memory_ingest", {"messages": MESSAGES})
    assert len(res.episodes) == 3  # type: ignore[attr-defined]
    return mem


def test_messages_become_linked_episodes(convo: TrulyMem) -> None:
    said = {f.object: f for f in convo.history("Caroline", "said")}
    assert set(said) == {"D1:3", "D2:1"}
    f = said["D1:3"]
    assert (f.session_id, f.turn_id, f.message_ids, f.valid_at.year) == ("session_1", "D1:3", ["D1:3"], 2023)
    assert [(x.subject, x.object) for x in convo.history("D1:3", "next_message")] == [("D1:3", "D1:4")]
    assert not convo.history("D1:4", "next_message")  # the next message is in another session
    assert {x.object for x in convo.history("D1:4", "mentions")} == {"Sweden"}
    res = convo.recall("LGBTQ support group", depth=0)
    ep = next(n for n in res.nodes if n.name == "D1:3")
    assert ep.type == "EpisodeNode" and ep.metadata["turn_id"] == "D1:3" and ep.metadata["session"] == "session_1"
    assert "[D1:3 · 2023-05-08 13:56] Caroline: I went to the LGBTQ support group" in res.text
    assert "said" not in res.text  # provenance links are not listed as facts


def test_a_date_in_the_question_finds_what_was_said_that_day(db_path: Path) -> None:
    mem = TrulyMem(db_path, user_id="conv", embedder="hashing")
    days = ["2023-07-03", "2023-07-07", "2023-07-12", "2023-08-01"]
    mem.run("memory_ingest", {"messages": [
        {"speaker": "John", "text": f"Talked with the neighbours about our community, part {i}.", "id": f"D{i}:1",
         "session": f"session_{i}", "timestamp": f"{day}T10:00:00"} for i, day in enumerate(days, 1)]})
    res = mem.recall("What did John and the neighbours discuss on 7 July, 2023?", depth=0)
    first = next(n for n in res.nodes if n.type == "EpisodeNode")
    assert first.name == "D2:1" and "time:7 july, 2023" in first.why
    res = mem.recall("what did John talk about the week before 12 July 2023", depth=0)
    # 5 to 12 July: the 7th and the 12th itself (where "last week" would be told)
    assert {n.name for n in res.nodes if n.type == "EpisodeNode"}.issuperset({"D2:1", "D3:1"})
    boosted = {n.name for n in res.nodes if any(w.startswith("time:") for w in n.why)}
    assert boosted == {"D2:1", "D3:1"}


def test_a_session_ingested_in_several_calls_is_one_chain(db_path: Path) -> None:
    """An agent recording turn by turn gets the same links and context as one batch."""
    msgs = [{"speaker": "AB"[i % 2], "text": f"message {i} about topic{i}", "id": f"D1:{i}", "session": "s1",
             "timestamp": f"2023-01-01T10:0{i}:00"} for i in range(6)]
    whole = TrulyMem(db_path, user_id="whole", embedder="hashing")
    whole.run("memory_ingest", {"messages": msgs})
    split = TrulyMem(db_path, user_id="split", embedder="hashing")
    for m in msgs:
        split.run("memory_ingest", {"messages": [m]})
    for mem in (whole, split):
        chain = [(f.subject, f.object) for i in range(5) for f in mem.history(f"D1:{i}", "next_message")]
        assert chain == [(f"D1:{i}", f"D1:{i + 1}") for i in range(5)]
    contexts = [{n.name: n.metadata["context"] for n in mem.recall("topic2", depth=0).nodes
                 if n.type == "EpisodeNode"} for mem in (whole, split)]
    assert contexts[0]["D1:2"] == contexts[1]["D1:2"] == (
        "A: message 0 about topic0\nB: message 1 about topic1\nB: message 3 about topic3\nA: message 4 about topic4")


def test_bad_ingest_changes_nothing(convo: TrulyMem) -> None:
    before = snapshot(convo)
    for messages, field in (([], "messages"), ([{"speaker": "A", "text": ""}], "messages.0.text"),
                            ([{"speaker": "A", "text": "x", "id": "m1"}, {"speaker": "B", "text": "y", "id": "m1"}],
                             "messages.1.id"),
                            ([{"speaker": "A", "text": "again", "id": "D1:3"}], "messages.0.id"),
                            ([{"speaker": "A", "text": "x", "timestamp": "yesterday"}], "messages.0.timestamp")):
        with pytest.raises(InvalidInput) as exc:
            convo.run("memory_ingest", {"messages": messages})
        assert exc.value.field == field
    assert snapshot(convo) == before


def test_name_extraction() -> None:
    assert mentioned_names("Wow Caroline, did you see The Beatles in New York?", {"caroline"}) == [
        "Beatles", "New York"]
    assert mentioned_names("I think so. Yes!", set()) == []


def test_a_chat_model_can_extract_facts_while_ingesting(db_path: Path) -> None:
    from trulymem.llm import ScriptedLLM
    from trulymem.model import utcnow
    from trulymem.tools import ToolContext, get_tool, run_tool

    reply = ('[{"message": 0, "subject": "Caroline", "relation": "attended", "object": "LGBTQ support group"},'
             ' {"message": 2, "subject": "Caroline", "relation": "met", "object": "a painter from Stockholm"},'
             ' {"message": 9, "subject": "x", "relation": "y", "object": "z"}, {"subject": "no message"}]')
    mem = TrulyMem(db_path, user_id="conv", embedder="hashing")
    ctx = ToolContext(store=mem.store, scope=mem.scope, now=utcnow(), embedder=mem.embedder,
                      llm=ScriptedLLM([reply]))
    res = run_tool(get_tool("memory_ingest"), ctx, {"messages": MESSAGES, "extract_facts": True})
    assert len(res.episodes) == 3  # type: ignore[attr-defined]
    met = mem.history("Caroline", "met")
    assert [(f.object, f.turn_id, f.source) for f in met] == [("a painter from Stockholm", "D2:1", "llm-extract")]
    assert met[0].valid_at.day == 20  # when it was said
    before = snapshot(mem)
    no_model = ToolContext(store=mem.store, scope=mem.scope, now=utcnow())
    with pytest.raises(InvalidInput) as exc:
        run_tool(get_tool("memory_ingest"), no_model, {"messages": [{"speaker": "a", "text": "b"}],
                                                       "extract_facts": True})
    assert exc.value.field == "extract_facts" and snapshot(mem) == before
