"""Words a question uses and the words a turn that answers it may use instead (general
English, hand-made): "What does Ola do to destress?" is answered by "pottery is like
therapy for me", "What do Ines's kids like?" by "they love dinosaurs". Recall searches them
with ``RecallConfig.related_weight`` > 0 (0.3 by default: it gains on LoCoMo tune and heldout,
docs/benchmarks.md)."""

from __future__ import annotations

from functools import lru_cache

from trulymem.text.stem import stems

# question word(s) -> related words a statement uses
_RELATED: dict[str, str] = {
    "like likes liked": "love loves loved enjoy enjoys favorite favourite fan",
    "enjoy enjoys enjoyed": "love loves loved like fun favorite favourite",
    "love loves loved": "like enjoy favorite favourite passion",
    "destress stress relax relaxing unwind calm": "relax relaxing calm peace peaceful therapy therapeutic unwind chill",
    "kids children child": "kids children son daughter",
    "visit visited visiting": "went trip travel traveled travelled",
    "buy bought purchase purchased": "bought got purchased new",
    "watch watched see seen": "saw watched movie show",
    "inspire inspired inspiration inspires": "inspire inspired inspiring motivate motivated motivation",
    "support supports supported": "support supportive help helped friends family",
    "interests interest interested": "interested passion passionate love",
    "allergic allergy allergies": "allergic allergy allergies reaction",
    "religious religion faith": "church faith pray prayer god",
    "political politics": "rights vote election activist",
    "friends friend": "friend friends buddy pal",
    "career job profession": "job work career",
    "feel feeling feelings": "feel felt feeling",
    "made make": "made make baked cooked built created",
}


@lru_cache(maxsize=1)
def _index() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for asked, related in _RELATED.items():
        for s in stems(asked):
            out.setdefault(s, set()).update(related.split())
    return {s: frozenset(words) for s, words in out.items()}


def related_words(question_terms: list[str]) -> list[str]:
    """Words related to the question's terms that it does not say, in a stable order."""
    index = _index()
    said = {t.casefold() for t in question_terms}
    found: dict[str, None] = {}
    for t in question_terms:
        for s in stems(t):
            for w in sorted(index.get(s, ())):
                if w not in said:
                    found[w] = None
    return list(found)
