"""The nodes enrichment makes to link turns (a speaker's profile on a topic, a topic) guide
recall's expansion but are not returned as memories, nor are the facts that touch them."""

from __future__ import annotations

from datetime import UTC, datetime

from trulymem import TrulyMem
from trulymem.enrich.profiles import is_enrichment_node
from trulymem.model import NodeType
from trulymem.recall import RecallQuery, recall
from trulymem.store.base import NodeQuery

T0 = datetime(2025, 3, 2, 18, 30, tzinfo=UTC)
CHAT = [
    ("user", "I went kayaking on the fjord with my sister on Sunday."),
    ("assistant", "That sounds wonderful. How cold was the water?"),
    ("user", "Freezing, but I loved it. I also started a pottery class."),
    ("user", "My landlord finally fixed the heating."),
]


def test_profile_and_topic_nodes_are_walked_not_returned(mem: TrulyMem) -> None:
    mem.run("memory_ingest", {"messages": [
        {"speaker": who, "text": text, "id": f"c{i}", "session": "chat", "timestamp": T0.isoformat()}
        for i, (who, text) in enumerate(CHAT)]})
    with mem.store.transaction(write=False):
        every = mem.store.nodes(NodeQuery(scope=mem.scope.user_wide(), limit=200))
        scaffolding = {n.id for n in every if is_enrichment_node(n.name, n.metadata)}
        names = {n.name for n in every if n.id in scaffolding}
        # the ingest made them: the user's profile on hobbies (and "other"), the topic nodes
        assert {"user · hobbies", "topic hobbies"} <= names
        for query in ("kayaking", "What hobbies does the user have?", "user", "pottery class"):
            res = recall(mem.store, mem.scope, RecallQuery(query, depth=2, limit=20), mem.clock())
            assert res.nodes, query
            assert not {n.id for n in res.nodes} & scaffolding, query
            assert not {i for f in res.facts for i in (f.subject_id, f.object_id)} & scaffolding, query
            assert all(n.name not in names for n in res.nodes)
        turns = recall(mem.store, mem.scope, RecallQuery("What hobbies does the user have?", depth=2, limit=20),
                       mem.clock())
        # what the profile and topic led to is still found: the pottery turn says no "hobbies"
        assert "c2" in {n.metadata.get("turn_id") for n in turns.nodes if n.type == NodeType.EPISODE}


def test_a_node_a_user_names_like_a_topic_word_is_still_a_memory() -> None:
    assert not is_enrichment_node("hobbies", {})
    assert not is_enrichment_node("user · notes", {"topic": "notes"})  # no turn index: not a profile
    assert is_enrichment_node("Ola · pets", {"speaker": "Ola", "topic": "pets", "turns": {}})
    assert is_enrichment_node("Topic  Music", {})


def test_facts_left_out_are_replaced_from_further_down(mem: TrulyMem) -> None:
    """Leaving out the facts that touch scaffolding must not shrink what recall returns
    while real facts sit below the cut."""
    mem.run("memory_ingest", {"messages": [
        {"speaker": who, "text": text, "id": f"c{i}", "session": "chat", "timestamp": T0.isoformat()}
        for i, (who, text) in enumerate(CHAT)]})
    mem.commit([{"subject": "user", "relation": "likes", "object": "kayaking"},
                {"subject": "user", "relation": "hobby", "object": "kayaking on fjords"},
                {"subject": "sister", "relation": "sister_of", "object": "user"}])
    with mem.store.transaction(write=False):
        wide = recall(mem.store, mem.scope, RecallQuery("kayaking", depth=2, limit=40), mem.clock())
        assert len(wide.facts) > 10  # there is more than one page of real facts to return
        res = recall(mem.store, mem.scope, RecallQuery("kayaking", depth=2, limit=10), mem.clock())
        assert len(res.facts) == 10
        assert [f.id for f in res.facts] == [f.id for f in wide.facts][:10]  # the same best, in order
