"""The kind of answer a question asks for (text/answers.py) and the three reranker features
of this pass: a turn carrying that kind of answer, neighbouring turns, and covering a set
question's words."""

from __future__ import annotations

import pytest

from trulymem.recall.rerank import Candidate, RerankWeights
from trulymem.recall.rerank import rerank as _rerank
from trulymem.text.answers import COUNT, NAME, carries_answer, expected_answer

OFF = RerankWeights.none()


@pytest.mark.parametrize(("question", "kind"), [
    ("Where did Pavel grow up?", NAME),
    ("Who taught Lin to knit?", NAME),
    ("Which cities has Pavel lived in?", NAME),
    ("What novel was Lin reading in June?", NAME),
    ("What are the names of Pavel's goats?", NAME),
    ("How many goats does Pavel keep?", COUNT),
    ("How long has Lin been knitting?", COUNT),
    ("What does Lin knit in winter?", None),
    ("When did Pavel buy the goats?", None),
    ("Why did Lin stop cycling?", None),
])
def test_expected_answer(question: str, kind: str | None) -> None:
    assert expected_answer(question) == kind


def test_a_name_is_a_capitalised_word_inside_a_sentence_or_a_quoted_title() -> None:
    assert carries_answer("We drove up to Tromsø last week.", NAME)
    assert carries_answer('Finished "the long winter" yesterday.', NAME)
    assert carries_answer("I visited my cousin. Then Marta came along.", NAME)
    # a sentence's first word, the speakers' own names, "I" and a photo caption are not names
    assert not carries_answer("Honestly it was a great week.", NAME)
    assert not carries_answer("Thanks, Lin! I'm glad. Yes, Pavel says so too.", NAME, {"lin", "pavel"})
    assert not carries_answer("Look at this. [shares a photo: a goat near Oslo]", NAME)
    assert carries_answer("Lin's sister Ada knits too.", NAME, {"lin"})  # possessive speaker name, then a name


def test_a_count_is_a_number_or_a_number_word() -> None:
    assert carries_answer("We keep 14 goats now.", COUNT)
    assert carries_answer("I have two brothers.", COUNT)
    assert not carries_answer("We keep some goats.", COUNT)
    assert not carries_answer("We keep some goats.", "colour")  # an unknown kind carries nothing


def test_kind_boosts_turns_that_say_the_kind_of_answer_asked_for() -> None:
    cands = [Candidate("vague", 1.0, "I moved a lot as a kid, it was tough.", "Pavel"),
             Candidate("named", 0.9, "I grew up near Brno with my grandparents.", "Pavel"),
             Candidate("addressed", 0.9, "Wow, that sounds hard, Pavel.", "Lin")]
    w = RerankWeights(speaker=0, question=0, answer=0, kind=0.2, neighbours=0)
    out = _rerank(cands, {"pavel"}, w, expects=NAME)
    assert out["named"][0] == pytest.approx(1.08) and "says a name" in out["named"][1]
    assert out["addressed"][0] == pytest.approx(0.9)  # a speaker's name is no answer
    assert _rerank(cands, {"pavel"}, w)["named"][0] == pytest.approx(0.9)  # no kind asked for
    assert not w.off and OFF.off


def _row() -> list[Candidate]:
    return [Candidate("a", 1.0, "I bought a loom.", "Lin", ("S2", 4)),
            Candidate("b", 0.9, "It was cheap.", "Lin", ("S2", 6)),
            Candidate("c", 0.8, "Knitting again tonight.", "Lin", ("S5", 1))]


def test_neighbours_gain_for_one_answer_and_lose_for_a_set() -> None:
    w = RerankWeights(speaker=0, question=0, answer=0, kind=0, neighbours=0.1)
    one = _rerank(_row(), set(), w)
    assert one["b"][0] == pytest.approx(0.99) and one["c"][0] == pytest.approx(0.8)
    many = _rerank(_row(), set(), w, many=True)
    assert many["b"][0] == pytest.approx(0.81) and "near a better turn" in many["b"][1]
    assert "next to a better turn" in one["b"][1]
    assert w.set_aware and not OFF.set_aware
