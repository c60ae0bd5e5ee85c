"""Write-time enrichment by rules: per-speaker profiles grouped by topic, with the turns
as provenance, and recall reaching a person's statements on a topic through them."""

from __future__ import annotations

from datetime import UTC, datetime

from trulymem import TrulyMem
from trulymem.enrich.profiles import (
    OTHER,
    ProfileIndex,
    parsed_profile,
    profile_keys,
    profile_topics,
    rank_statements,
)
from trulymem.model import NodeType
from trulymem.recall import RecallConfig, RecallQuery, recall
from trulymem.store.base import FactQuery, NodeQuery
from trulymem.text.stem import stems
from trulymem.text.turns import is_self_statement

T0 = datetime(2025, 5, 2, 9, 0, tzinfo=UTC)
CHAT = [
    ("Rosa", "How was your week, Emil?", "A1:1", "a"),
    ("Emil", "Busy! I spent Saturday on the river in my kayak.", "A1:2", "a"),
    ("Rosa", "Kayaking sounds great. My sister finally got her driving licence.", "A1:3", "a"),
    ("Emil", "The train was late again this morning.", "A1:4", "a"),
    ("Rosa", "Did you finish the fence?", "B1:1", "b"),
    ("Emil", "Almost. Also I joined a pottery class on Thursdays, my first bowl cracked.", "B1:2", "b"),
    ("Rosa", "We adopted a kitten last night!", "B1:3", "b"),
    ("Emil", "Do you like hiking?", "B1:4", "b"),
]


def _ingest(mem: TrulyMem, **opts: bool) -> None:
    mem.run("memory_ingest", {"messages": [{"speaker": s, "text": t, "id": i, "session": ses,
                                            "timestamp": T0.isoformat()} for s, t, i, ses in CHAT], **opts})


def test_self_statements() -> None:
    assert is_self_statement("I joined a choir last month.")
    assert is_self_statement("We adopted a kitten!")
    assert not is_self_statement("The train was late again.")  # not about the speaker
    assert is_self_statement("Do you paint? I do, every Sunday, in my attic.")  # ends telling
    assert not is_self_statement("I paint. Do you?")  # ends asking, half of it asks
    assert not is_self_statement("Did my parcel arrive? Where is it?")  # asks


def test_profile_topics_by_lexicon_or_other() -> None:
    text = "I spent Saturday on the river in my kayak."
    assert profile_topics(text, stems(text)) == ["hobbies"]
    plain = "I finally fixed my fence."
    assert profile_topics(plain, stems(plain)) == [OTHER]
    assert profile_topics("What did you cook?", stems("What did you cook?")) == []


def test_profiles_link_a_speaker_to_their_statements_with_provenance(mem: TrulyMem) -> None:
    _ingest(mem)
    scope = mem.scope.user_wide()
    with mem.store.transaction(write=False):
        stated = mem.store.facts(FactQuery(scope=scope, relation_keys=["stated_in"]))
        of = mem.store.facts(FactQuery(scope=scope, relation_keys=["profile_of"]))
        hobbies = mem.store.nodes(NodeQuery(scope=scope, keys=profile_keys(["emil"])))
    by_profile: dict[str, set[str]] = {}
    for f in stated:
        by_profile.setdefault(f.subject or "", set()).add(f.object or "")
        assert f.turn_id == f.object and f.message_ids == [f.object]  # the turn is the provenance
    assert by_profile["Emil · hobbies"] == {"A1:2", "B1:2"}
    assert "A1:4" not in {t for turns in by_profile.values() for t in turns}  # not about Emil
    assert "B1:4" not in {t for turns in by_profile.values() for t in turns}  # a question
    assert {(f.subject, f.object) for f in of} >= {("Emil · hobbies", "Emil"), ("Rosa · family", "Rosa")}
    assert "profile_of" not in {f.relation for f in mem.history("Emil")}  # Emil's own facts stay his
    node = next(n for n in hobbies if n.name == "Emil · hobbies")
    assert node.type == NodeType.INFO and len(node.metadata["turns"]) == 2 and "kayak" in (node.summary or "")


def test_a_second_ingest_adds_to_the_profile(mem: TrulyMem) -> None:
    _ingest(mem)
    mem.run("memory_ingest", {"messages": [{"speaker": "Emil", "text": "I went climbing with my cousin.",
                                            "id": "C1:1", "session": "c"}]})
    with mem.store.transaction(write=False):
        nodes = mem.store.nodes(NodeQuery(scope=mem.scope.user_wide(), keys=profile_keys(["emil"])))
    assert len(next(n for n in nodes if n.name == "Emil · hobbies").metadata["turns"]) == 3


def test_profiles_off_writes_none(mem: TrulyMem) -> None:
    _ingest(mem, profiles=False)
    with mem.store.transaction(write=False):
        assert not mem.store.facts(FactQuery(scope=mem.scope.user_wide(), relation_keys=["stated_in"]))


def test_rank_statements_by_words_and_topic() -> None:
    idx = ProfileIndex()
    for i, (topic, text) in enumerate([("hobbies", "I paddled my kayak downriver"), ("hobbies", "I fire clay bowls"),
                                       ("work", "my manager praised the report"), (OTHER, "I repainted the fence")]):
        idx.add("Emil", topic, f"e{i}", stems(text))
    metas = [p for i, name in enumerate(idx.turns)
             if (p := parsed_profile(f"n{i}", "v1", idx.metadata(name, None))) is not None]
    by_topic = rank_statements(metas, stems("pastimes"), ["hobbies"], 1.0, 10)
    assert {e for e, _ in by_topic} == {"e0", "e1"}  # no shared word: the topic finds them
    by_word = rank_statements(metas, stems("kayak"), ["hobbies"], 1.0, 10)
    assert by_word[0][0] == "e0" and by_word[0][1] > by_word[1][1]
    off_topic = rank_statements(metas, stems("fence"), [], 1.0, 10, on_topic=True)
    assert off_topic == []
    assert rank_statements(metas, stems("fence"), [], 1.0, 10)[0][0] == "e3"


def _turns(mem: TrulyMem, query: str, cfg: RecallConfig) -> list[str]:
    with mem.store.transaction(write=False):
        res = recall(mem.store, mem.scope, RecallQuery(query, depth=1, limit=20), mem.clock(), cfg)
    return [str(n.metadata.get("turn_id")) for n in res.nodes if n.type == NodeType.EPISODE
            and any("profile" in w for w in n.why)]


def test_a_question_about_a_person_and_a_topic_reaches_their_statements(mem: TrulyMem) -> None:
    _ingest(mem)
    # "pastimes" shares no word with the kayak or the pottery turn: Emil's hobbies profile has both
    assert set(_turns(mem, "What pastimes does Emil have?", RecallConfig())) == {"A1:2", "B1:2"}
    assert _turns(mem, "What pastimes does Emil have?", RecallConfig(profile_seeds=0)) == []
