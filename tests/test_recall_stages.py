"""Issue 16's recall stages, each on its own: question vs intent-list parsing, the
speaker-aware reranker, question turns, and topic enrichment with provenance."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from trulymem import TrulyMem
from trulymem.model import NodeType
from trulymem.recall import RecallConfig
from trulymem.recall.query import is_question, parse_query
from trulymem.recall.rerank import Candidate, RerankWeights, is_question_turn, rerank
from trulymem.store.base import FactQuery
from trulymem.text.topics import topic_line, topics_of


@pytest.mark.parametrize(("text", "question"), [
    ("AI,persona,role,character,tone,speaking_style", False),
    ("TaskNode,working_memory,task_chain", False),
    ("New York, 猫娘", False),
    ("rock music", False),
    ("What did Priya bake on June 3, 2021?", True),
    ("When did Tomas, Ines and Bea go sailing?", True),
    ("Where does Ola live", True),
    ("Tell me about the trip to Oslo, the one in spring last year", True),
])
def test_questions_and_intent_lists_are_told_apart(text: str, question: bool) -> None:
    assert is_question(text) is question


def test_a_question_keeps_every_word_and_finds_its_names() -> None:
    p = parse_query("What did Priya's brother bake on June 3, 2021?")
    assert p.question and p.terms == ["What", "did", "Priya's", "brother", "bake", "on", "June", "3", "2021"]
    assert p.capitalised == ["Priya", "June"]
    lst = parse_query("AI,persona,role")
    assert not lst.question and lst.terms == ["AI", "persona", "role"] and lst.capitalised == []
    assert parse_query("Where did James go?").capitalised == ["James"]  # a trailing s is not a possessive


@pytest.mark.parametrize(("text", "asks"), [
    ("What did you cook last night?", True),
    ("Wow, that's lovely! Where was it taken?", True),
    ("I baked rye bread for the fair. Have you tried it?", True),
    ("I baked rye bread for the fair. It sold out. Want some?", False),
    ("I baked rye bread for the fair.", False),
    ("Did you see it? [shares a photo: a loaf of bread]", True),
])
def test_question_turns(text: str, asks: bool) -> None:
    assert is_question_turn(text) is asks


def _order(scores: dict[str, tuple[float, list[str]]]) -> list[str]:
    return sorted(scores, key=lambda i: -scores[i][0])


def test_the_named_speaker_is_a_soft_boost() -> None:
    cands = [Candidate("a", 1.00, "Have you ever been sailing?", "Bea"),
             Candidate("b", 0.95, "We went sailing near Bergen last June.", "Ola"),
             Candidate("c", 0.50, "My cat sleeps all day.", "Ola")]
    out = rerank(cands, {"ola"}, replace(RerankWeights.none(), speaker=0.1, question=0.1))
    assert _order(out) == ["b", "a", "c"]
    assert "speaker" in out["b"][1] and "question turn" in out["a"][1]
    # soft: a far better match by someone else still leads
    far = [Candidate("x", 1.0, "Ola went sailing near Bergen.", "Bea"), Candidate("y", 0.3, "Hi.", "Ola")]
    assert _order(rerank(far, {"ola"}, replace(RerankWeights.none(), speaker=0.1))) == ["x", "y"]


def test_zero_weights_change_nothing() -> None:
    cands = [Candidate("a", 0.6, "sailing and fishing in June", "Ola"), Candidate("b", 0.7, "sailing", "Bea")]
    off = rerank(cands, {"ola"}, RerankWeights.none())
    assert {k: v[0] for k, v in off.items()} == {"a": 0.6, "b": 0.7} and RerankWeights.none().off


def test_topics_by_lexicon() -> None:
    assert topics_of("We went kayaking and then hiking all weekend") == ["hobbies"]
    assert "family" in topics_of("My husband and the kids loved it")
    assert topics_of("The invoice is due on Tuesday") == []
    assert "hobby" in topic_line(["hobbies"]) and topic_line([]) == ""


T0 = datetime(2024, 3, 1, 10, 0, tzinfo=UTC)
TALK = [
    {"speaker": "Ines", "text": "Have you picked up any new hobbies lately?", "id": "S1:1"},
    {"speaker": "Tomas", "text": "Yes! I went kayaking on the lake twice this month.", "id": "S1:2"},
    {"speaker": "Ines", "text": "Kayaking sounds fun. I mostly read.", "id": "S1:3"},
    {"speaker": "Tomas", "text": "The quarterly report is finally done.", "id": "S1:4"},
    {"speaker": "Ines", "text": "Nice, and how is the new flat?", "id": "S1:5"},
    {"speaker": "Tomas", "text": "Small but bright. Next weekend I try climbing at the gym.", "id": "S2:1",
     "session": "s2"},
]


def _ingest(mem: TrulyMem, topics: bool = True) -> None:
    msgs = [{"session": "s1", **m, "timestamp": T0.isoformat()} for m in TALK]
    mem.run("memory_ingest", {"messages": msgs, "topics": topics})


def test_topic_edges_have_provenance(mem: TrulyMem) -> None:
    _ingest(mem)
    with mem.store.transaction(write=False):
        about = mem.store.facts(FactQuery(scope=mem.scope.user_wide(), relation_keys=["about"]))
    by_topic: dict[str, set[str]] = {}
    for f in about:
        by_topic.setdefault(f.object or "", set()).add(f.subject or "")
    # each episode about hobbies across both sessions, linked by its own turn (the fact's provenance)
    assert by_topic["topic hobbies"] == {"S1:2", "S1:3", "S2:1"}
    assert all(f.turn_id == f.subject for f in about)
    assert "S1:4" not in {s for subjects in by_topic.values() for s in subjects}


def _turns(mem: TrulyMem, query: str, cfg: RecallConfig | None = None, text_only: bool = False) -> list[str]:
    """Turn ids recalled, best first; ``text_only``: only those full text found."""
    from trulymem.recall import RecallQuery, recall

    with mem.store.transaction(write=False):
        res = recall(mem.store, mem.scope, RecallQuery(query, depth=1, limit=20), mem.clock(), cfg)
    return [str(n.metadata.get("turn_id")) for n in res.nodes if n.type == NodeType.EPISODE
            and (not text_only or any(w.startswith("text") for w in n.why))]


def test_a_question_word_finds_a_turn_that_names_an_instance(mem: TrulyMem, tmp_path) -> None:  # type: ignore[no-untyped-def]
    _ingest(mem)
    # climbing shares no word with the question, only the topic: full text finds it
    assert "S2:1" in _turns(mem, "What hobbies does Tomas have?", text_only=True)
    with TrulyMem(tmp_path / "plain.db", user_id="u") as plain:
        _ingest(plain, topics=False)
        assert "S2:1" not in _turns(plain, "What hobbies does Tomas have?", text_only=True)


def test_a_question_with_commas_is_searched_word_by_word(mem: TrulyMem) -> None:
    _ingest(mem)
    q = "What did Tomas finish, the report or the flat?"
    assert "S1:4" in _turns(mem, q)[:3]
    assert "S1:4" not in _turns(mem, q, replace(RecallConfig(), parse_questions=False))  # the old phrase split


def test_speaker_and_question_turn_rerank_in_recall(mem: TrulyMem) -> None:
    _ingest(mem)
    on = _turns(mem, "What hobbies did Tomas pick up?")
    off = _turns(mem, "What hobbies did Tomas pick up?", replace(RecallConfig(), rerank=RerankWeights.none()))
    assert on.index("S1:2") < on.index("S1:1")  # his statement above her question
    # and it is the reranker that puts her question below his other statements
    assert off.index("S1:1") < off.index("S1:3") and on.index("S1:3") < on.index("S1:1")
    assert set(on) == set(off)  # the reranker reorders, it never adds or drops


def test_a_reply_inherits_the_score_of_the_question_it_answers() -> None:
    cands = [Candidate("q", 1.0, "Which lake did you paddle on?", "Bea", ("s1", 4)),
             Candidate("r", 0.4, "Lake Mjøsa, twice!", "Ola", ("s1", 5)),
             Candidate("r2", 0.3, "Also, my cat is fine.", "Ola", ("s1", 7))]
    w = replace(RerankWeights.none(), answer=1.0)
    out = rerank(cands, set(), w)
    assert out["r"][0] == pytest.approx(1.0) and "answers a matching question" in out["r"][1]
    assert out["r2"][0] == pytest.approx(0.3)  # not the next turn
    same = [replace(cands[0], speaker="Ola"), cands[1]]  # a speaker asking and going on is no answer
    assert rerank(same, set(), w)["r"][0] == pytest.approx(0.4)


def test_frame_words_are_not_searched() -> None:
    from trulymem.recall.query import topic_terms

    assert topic_terms(["What", "might", "Ola", "likely", "enjoy"]) == ["What", "Ola", "enjoy"]
    assert topic_terms(["likely"]) == ["likely"]


def test_asked_topics() -> None:
    from trulymem.text.topics import asked_topics

    assert asked_topics("What hobbies does Ola have?") == ["hobbies"]
    assert asked_topics("Where did Ola park?") == []
