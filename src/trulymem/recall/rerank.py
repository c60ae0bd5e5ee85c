"""A cheap second look at the fused episode candidates (issue 16).

Fusion ranks by words alone; things it cannot see decide many LoCoMo misses: who
said a turn (83% of evidence is said by the person the question names), whether the
turn is itself a question (questions echo the words of later questions but answer
nothing), whether it replies to a question that matches, and whether it says the kind
of thing asked for (a name, a number). Each feature only reorders what the retrievers
found, and a weight of 0 turns it off; those that lost recall on the tune split
(coverage, window, protect, topic, sessions, statement, neighbours, cover) are kept
off by default so the bench can show why. Pure functions of plain data: easy to test, easy to ablate.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from trulymem.text.answers import carries_answer
from trulymem.text.normalize import name_key
from trulymem.text.stem import stems
from trulymem.text.topics import topics_of
from trulymem.text.turns import is_question_turn, is_self_statement

__all__ = ["Candidate", "RerankWeights", "is_question_turn", "rerank"]


@dataclass(frozen=True)
class RerankWeights:
    # Defaults from the LoCoMo tune split (bench/bench_locomo.py --split tune): larger speaker
    # boosts gain multi-hop but lose more on questions naming the wrong person; coverage of
    # the turn's own words undid what its neighbours' words found, so it is off.
    speaker: float = 0.1       # × (1 + w) when the turn's speaker is a person the query names
    question: float = 0.1      # × (1 - w) when the turn is a question
    coverage: float = 0.0      # × (1 + w · share of the query's content words the turn says)
    protect: int = 0           # the best this many before reranking stay in the top ten: a question may
                               # name the wrong person (LoCoMo's adversarial ones), so a boost must not
                               # bury what the words found best
    window: float = 0.0        # × (1 - w) per better-ranked turn within two turns of it in its session
    topic: float = 0.0         # × (1 + w) when the turn is about a topic the question asks about
    answer: float = 1.0        # the reply right after a matching question turn scores at least w × the
                               # question's score (the question found it; the reply says the answer)
    sessions: float = 0.0      # a question whose answer is a set (``query.is_set_question``): × (1 - w) per
                               # better-ranked turn of the same session, so the top spreads over sessions
                               # (tune: 0.1 lost 0.8, and 4.7 on those very questions: evidence shares sessions)
    statement: float = 0.0     # × (1 + w) when a person the query names tells about themselves in the turn
                               # (tune: 0.05 gained multi-hop 0.9, open-domain 1.7, lost adversarial 1.1)
    kind: float = 0.2          # × (1 + w) when the turn carries the kind of answer the question asks for
                               # (``text.answers``: a name for "where", "who", "what book"; a number for "how many");
                               # tune: R@10 +0.3, no category lower (0.3 gained more and lost open-domain 1.6)
    neighbours: float = 0.0    # best first, per better-ranked turn within two turns of it in its session: × (1 + w)
                               # when the answer is one thing (it is often said over neighbouring turns), × (1 - w)
                               # when it is a set (``many``: its members were said apart); tune: 0.02 gained R@10
                               # 0.5 (single-hop, adversarial) and lost open-domain 3.3, temporal 0.8: off
    cover: float = 0.0         # a set question (``many``): the top ten chosen one at a time, each turn × (1 + w ·
                               # the question's words it says that the turns chosen before it do not); tune: 0.1-0.5
                               # moved nothing but multi-hop (-0.3 to -0.8): off

    @classmethod
    def none(cls) -> RerankWeights:
        """Every feature off: the fused order unchanged."""
        return cls(**{f.name: 0 for f in fields(cls)})

    @property
    def set_aware(self) -> bool:
        """Whether a feature on depends on the answer being a set (``rerank(many=…)``)."""
        return bool(self.sessions or self.neighbours or self.cover)

    @property
    def off(self) -> bool:
        """No feature on (``protect`` alone keeps an order nothing changed)."""
        return not any(getattr(self, f.name) for f in fields(self) if f.name != "protect")


@dataclass(frozen=True)
class Candidate:
    id: str
    score: float
    text: str                  # what was said (without the "Speaker: " prefix)
    speaker: str | None = None
    place: tuple[str, int] | None = None  # (session, position): turns near each other say one thing


def rerank(candidates: list[Candidate], query_stems: set[str], speakers: set[str],
           weights: RerankWeights, asked: list[str] | None = None, *,
           many: bool = False, expects: str | None = None) -> dict[str, tuple[float, list[str]]]:
    """New score and the features that moved it, per candidate id. ``speakers`` are
    name keys of the people the query names; ``query_stems`` from ``stems(query)``;
    ``asked`` the topics the question asks about (``text.topics.asked_topics``); ``many``:
    the answer is a set of things (``query.is_set_question``); ``expects``: the kind of
    answer asked for (``text.answers.expected_answer``)."""
    out: dict[str, tuple[float, list[str]]] = {}
    boost = weights.speaker if speakers else 0.0
    asks = {c.id: is_question_turn(c.text) for c in candidates} if weights.question or weights.answer else {}
    # speakers' own names are not answers: every turn addresses someone
    voices = {part for c in candidates if c.speaker for part in c.speaker.casefold().split()} if expects else set()
    for c in candidates:
        score, why = c.score, []
        own = c.speaker is not None and bool(speakers) and name_key(c.speaker) in speakers
        if boost and own:
            score *= 1 + boost
            why.append("speaker")
        if weights.statement and own and is_self_statement(c.text):
            score *= 1 + weights.statement
            why.append("tells about themselves")
        if weights.question and asks[c.id]:
            score *= 1 - weights.question
            why.append("question turn")
        if weights.topic and asked and (hit := set(asked) & set(topics_of(c.text))):
            score *= 1 + weights.topic
            why.append(f"about {min(hit)}")
        if weights.kind and expects and carries_answer(c.text, expects, voices):
            score *= 1 + weights.kind
            why.append(f"says a {expects}")
        if weights.coverage and query_stems:
            share = len(query_stems & stems(c.text)) / len(query_stems)
            if share:
                score *= 1 + weights.coverage * share
                why.append(f"covers {share:.0%}")
        out[c.id] = (score, why)
    if weights.answer:
        _answers(candidates, out, weights.answer, asks)
    if weights.window:
        _neighbours(candidates, out, -weights.window)
    if weights.neighbours:
        _neighbours(candidates, out, -weights.neighbours if many else weights.neighbours)
    if weights.sessions and many:
        _over_sessions(candidates, out, weights.sessions)
    if weights.cover and many and len(query_stems) > 1:
        _cover(candidates, out, weights.cover, query_stems)
    if weights.protect:
        _protect(candidates, out, weights.protect)
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


def _cover(candidates: list[Candidate], out: dict[str, tuple[float, list[str]]], w: float,
           query_stems: set[str], top: int = 10) -> None:
    """The best ``top`` chosen one at a time, each turn's score × (1 + ``w`` · the query words
    it says that none chosen before it says); chosen turns keep their order above the rest."""
    said = {c.id: query_stems & stems(c.text) for c in candidates}
    left = {c.id: out[c.id][0] for c in candidates}
    covered: set[str] = set()
    chosen: list[str] = []
    while left and len(chosen) < top:
        best = max(left, key=lambda i: (left[i] * (1 + w * len(said[i] - covered)), i))
        chosen.append(best)
        del left[best]
        covered |= said[best]
    below = max(left.values(), default=0.0)
    for cid in reversed(chosen):  # above every turn left, in the order chosen
        score, why = out[cid]
        new = max(score, below * (1 + 1e-6))
        out[cid] = (new, why if new == score else [*why, "covers more of the question"])
        below = new


def _over_sessions(candidates: list[Candidate], out: dict[str, tuple[float, list[str]]], w: float) -> None:
    """Best first, a turn loses ``w`` per better-ranked turn of its session: a set's members
    were said at different times, and one session's neighbouring turns say one of them."""
    seen: dict[str, int] = {}
    for c in sorted(candidates, key=lambda c: -out[c.id][0]):
        if c.place is None:
            continue
        n = seen.get(c.place[0], 0)
        if n:
            score, why = out[c.id]
            out[c.id] = (score * (1 - w) ** n, [*why, "same session as a better turn"])
        seen[c.place[0]] = n + 1


def _protect(candidates: list[Candidate], out: dict[str, tuple[float, list[str]]], n: int) -> None:
    """The ``n`` best candidates by their old score stay in the new top ten."""
    ranked = sorted(out.values(), key=lambda v: -v[0])
    if len(ranked) <= 10:
        return
    floor = ranked[9][0]
    for c in sorted(candidates, key=lambda c: -c.score)[:n]:
        score, why = out[c.id]
        if score < floor:
            out[c.id] = (floor * 1.0001, [*why, "kept: best by its words"])
