"""A cheap second look at the fused episode candidates (issue 16).

Fusion ranks by words alone; things it cannot see decide many LoCoMo misses: who
said a turn (83% of evidence is said by the person the question names), whether the
turn is itself a question (questions echo the words of later questions but answer
nothing), whether it replies to a question that matches, whether it says the kind
of thing asked for (a name, a number), and whether it sits next to better turns.
Each feature only reorders what the retrievers found, and a weight of 0 turns it off.
Features that did not gain in most of LoCoMo's six dev conversations, judged leave one
conversation out (coverage of the query's words, session spread, self statements,
set coverage, window, topic, protect), were removed (issue 28, docs/benchmarks.md).
Pure functions of plain data: easy to test, easy to ablate.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from trulymem.text.answers import carries_answer
from trulymem.text.normalize import name_key
from trulymem.text.turns import is_question_turn

__all__ = ["Candidate", "RerankWeights", "is_question_turn", "rerank"]


@dataclass(frozen=True)
class RerankWeights:
    # Larger speaker boosts gain multi-hop but lose more on questions naming the wrong person.
    speaker: float = 0.1       # × (1 + w) when the turn's speaker is a person the query names
    question: float = 0.1      # × (1 - w) when the turn is a question
    answer: float = 1.0        # the reply right after a matching question turn scores at least w × the
                               # question's score (the question found it; the reply says the answer)
    kind: float = 0.2          # × (1 + w) when the turn carries the kind of answer the question asks for
                               # (``text.answers``: a name for "where", "who", "what book"; a number for "how many")
    neighbours: float = 0.0    # best first, per better-ranked turn within two turns of it in its session: × (1 + w)
                               # when the answer is one thing (it is often said over neighbouring turns), × (1 - w)
                               # when it is a set (``many``: its members were said apart). 0.02 helps in 4 of the
                               # 6 dev conversations (leave-one-out +0.3) but loses on both heldout ones: off

    @classmethod
    def none(cls) -> RerankWeights:
        """Every feature off: the fused order unchanged."""
        return cls(**{f.name: 0 for f in fields(cls)})

    @property
    def set_aware(self) -> bool:
        """Whether a feature on depends on the answer being a set (``rerank(many=…)``)."""
        return bool(self.neighbours)

    @property
    def off(self) -> bool:
        return not any(getattr(self, f.name) for f in fields(self))


@dataclass(frozen=True)
class Candidate:
    id: str
    score: float
    text: str                  # what was said (without the "Speaker: " prefix)
    speaker: str | None = None
    place: tuple[str, int] | None = None  # (session, position): turns near each other say one thing


def rerank(candidates: list[Candidate], speakers: set[str], weights: RerankWeights, *,
           many: bool = False, expects: str | None = None) -> dict[str, tuple[float, list[str]]]:
    """New score and the features that moved it, per candidate id. ``speakers`` are
    name keys of the people the query names; ``many``: the answer is a set of things
    (``query.is_set_question``); ``expects``: the kind of answer asked for
    (``text.answers.expected_answer``)."""
    out: dict[str, tuple[float, list[str]]] = {}
    boost = weights.speaker if speakers else 0.0
    asks = {c.id: is_question_turn(c.text) for c in candidates} if weights.question or weights.answer else {}
    # speakers' own names are not answers: every turn addresses someone
    voices = {part for c in candidates if c.speaker for part in c.speaker.casefold().split()} if expects else set()
    for c in candidates:
        score, why = c.score, []
        if boost and c.speaker is not None and name_key(c.speaker) in speakers:
            score *= 1 + boost
            why.append("speaker")
        if weights.question and asks[c.id]:
            score *= 1 - weights.question
            why.append("question turn")
        if weights.kind and expects and carries_answer(c.text, expects, voices):
            score *= 1 + weights.kind
            why.append(f"says a {expects}")
        out[c.id] = (score, why)
    if weights.answer:
        _answers(candidates, out, weights.answer, asks)
    if weights.neighbours:
        _neighbours(candidates, out, -weights.neighbours if many else weights.neighbours)
    return out


def _answers(candidates: list[Candidate], out: dict[str, tuple[float, list[str]]], w: float,
             asks: dict[str, bool]) -> None:
    """A question turn (``asks``) lends ``w`` of its first score to the next turn of its
    session, when someone else says it."""
    at = {c.place: c for c in candidates if c.place is not None}
    for c in candidates:
        if c.place is None or not asks[c.id]:
            continue
        reply = at.get((c.place[0], c.place[1] + 1))
        if reply is None or reply.speaker == c.speaker:
            continue
        score, why = out[reply.id]
        if c.score * w > score:
            out[reply.id] = (c.score * w, [*why, "answers a matching question"])


def _neighbours(candidates: list[Candidate], out: dict[str, tuple[float, list[str]]], w: float) -> None:
    """Best first, a turn gains ``w`` (loses, when negative) per better-ranked turn within two
    turns of it in its session, those scores as they were before this stage."""
    placed: list[tuple[str, int]] = []
    for c in sorted(candidates, key=lambda c: -out[c.id][0]):
        if c.place is None:
            continue
        near = sum(1 for s, i in placed if s == c.place[0] and abs(i - c.place[1]) <= 2)
        if near:
            score, why = out[c.id]
            out[c.id] = (score * (1 + w) ** near, [*why, "next to a better turn" if w > 0 else "near a better turn"])
        placed.append(c.place)
