"""Set questions (query.is_set_question) and a named person's own statements fused again for them."""

from __future__ import annotations

import pytest

from trulymem.recall.query import is_set_question


@pytest.mark.parametrize("text", [
    "Which harbours has Tomas sailed from?",
    "What board games does Ines own?",
    "What kinds of bread does Ola bake?",
    "How many bikes does Ines have?",
    "What has Tomas repaired?",
    "Where has Ola lived?",
    "What are Ines's favourite films?",
    "What do Tomas and Ola both collect?",
])
def test_questions_whose_answer_is_a_set(text: str) -> None:
    assert is_set_question(text)


@pytest.mark.parametrize("text", [
    "What is Tomas's job?",
    "Which film inspires Ola the most?",
    "What do seagulls eat according to Ines?",
    "When did Ola move to Bergen?",
    "What kind of boat does Tomas sail?",
    "What has happened?",
])
def test_questions_with_one_answer(text: str) -> None:
    assert not is_set_question(text)


def test_related_words_are_what_an_answer_may_say_instead() -> None:
    from trulymem.text.related import related_words

    found = related_words(["What", "does", "Bea", "do", "to", "destress"])
    assert "therapy" in found and "relax" in found and "destress" not in found
    assert related_words(["Bea", "sailing"]) == []  # nothing related: no second search
    assert related_words(["liked"]) == related_words(["liked"])  # stable order


def test_a_related_word_finds_the_answer_full_text_alone_misses(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from trulymem import TrulyMem
    from trulymem.model import NodeType
    from trulymem.recall import RecallConfig, RecallQuery, recall

    talk = [("Bea", "Knitting in the evening is pure therapy for me."), ("Ola", "Nice! I mostly sleep."),
            ("Bea", "Work has been hectic and I need to destress, honestly."), ("Ola", "Same here.")]
    with TrulyMem(tmp_path / "m.db", user_id="u", embedder=None) as mem:
        mem.run("memory_ingest", {"messages": [{"speaker": s, "text": t, "id": f"S1:{i}", "session": "S1"}
                                               for i, (s, t) in enumerate(talk, 1)]})

        def text_hits(cfg: RecallConfig) -> list[str]:
            with mem.store.transaction(write=False):
                res = recall(mem.store, mem.scope, RecallQuery("What does Bea do to destress?", depth=0, limit=10),
                             mem.clock(), cfg)
            return [str(n.metadata.get("turn_id")) for n in res.nodes if n.type == NodeType.EPISODE
                    and any("related" in w for w in n.why)]

        assert "S1:1" in text_hits(RecallConfig())  # on by default (LoCoMo: it gains on tune and heldout)
        assert text_hits(replace(RecallConfig(), related_weight=0)) == []


def test_a_set_asked_of_a_person_fuses_their_own_statements_again(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from trulymem import TrulyMem
    from trulymem.model import NodeType
    from trulymem.recall import RecallConfig, RecallQuery, recall

    talk = [("S1", "Bea", "I play tennis every Sunday with my brother."),
            ("S1", "Ola", "Tennis sounds fun. Doubles or singles?"),
            ("S2", "Ola", "I watched football and basketball all weekend, what a game."),
            ("S2", "Bea", "I joined a basketball league at my gym last month."),
            ("S3", "Bea", "My knee hurts after the league game, so I rest.")]
    with TrulyMem(tmp_path / "m.db", user_id="u", embedder=None) as mem:
        mem.run("memory_ingest", {"messages": [{"speaker": sp, "text": t, "id": f"{s}:{i}", "session": s}
                                               for i, (s, sp, t) in enumerate(talk, 1)]})

        def why(question: str, cfg: RecallConfig) -> dict[str, list[str]]:
            with mem.store.transaction(write=False):
                res = recall(mem.store, mem.scope, RecallQuery(question, depth=0, limit=10), mem.clock(), cfg)
            return {str(n.metadata.get("turn_id")): n.why for n in res.nodes if n.type == NodeType.EPISODE}

        on = why("What sports does Bea play?", RecallConfig())
        assert any("own" in w.split("+") for w in on["S1:1"]) and not any("own" in w.split("+") for w in on.get("S2:3", []))
        assert not any("own" in w.split("+") for ws in why("What sports does Bea play?",
                                                  replace(RecallConfig(), own_weight=0)).values() for w in ws)
        # one answer asked for: not a set, no second fusion
        assert not any("own" in w.split("+") for ws in why("Which sport does Bea play on Sunday?", RecallConfig()).values()
                       for w in ws)
