"""What kind of answer a question asks for, and whether a turn carries one (issue 16).

"Where did Ola move from?" is answered by a turn that names a place ("my home country,
Sweden"), "Who gave Ines money?" by one that names someone ("my aunt Rosa"), "What book
did Ola read?" by one that names a title; "How many kids…" by one that says a number.
Classic question answering matches the answer's type; here it is only a hint for the
reranker: a proper name (a capitalised word inside a sentence that is not a speaker's
name) or a quoted title, and a number or number word.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache

NAME, COUNT = "name", "count"

_COUNT_Q = re.compile(r"^\s*how\s+(?:many|much|long|old|often)\b", re.IGNORECASE)
# the things a name answers: a place, a person, a work with a title
_NAME_NOUNS = (r"city|cities|country|countries|state|states|town|towns|place|places|region|island|continent|"
               r"book|books|novel|novels|song|songs|album|albums|movie|movies|film|films|show|shows|band|bands|"
               r"artist|artists|author|authors|musician|musicians|singer|singers|name|names")
_NAME_Q = re.compile(rf"^\s*(?:where|who|whom|whose)\b|\b(?:{_NAME_NOUNS})\b", re.IGNORECASE)

_PHOTO = re.compile(r"\s*\[shares a photo:[^\]]*\]\s*$")
_CAPITALISED = re.compile(r"(?<![\w-])[^\W\d_a-z][\w'’-]*")  # candidates only: isupper() decides below
_OPENERS = " \t\n\"“”‘’'()[]"  # what may stand between a sentence's end and its first word
_SENTENCE_END = ".!?…"
_POSSESSIVE = re.compile(r"['’]s?$")
_QUOTED = re.compile(r"[\"“][^\"”]{2,80}[\"”]")
_NUMBER = re.compile(r"\b(?:\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                     r"dozen|twenty|thirty|forty|fifty|hundred|thousand|once|twice|both|couple)\b", re.IGNORECASE)
# capitalised inside a sentence without naming anything
_NOT_NAMES = frozenset("i i'm i've i'll i'd ok okay mom dad mum mr mrs ms dr".split())


def expected_answer(question: str) -> str | None:
    """``COUNT`` for "how many/much/long/old/often", ``NAME`` for a question asking where,
    who, or for a place, person or titled work by its kind ("what book…", "which cities…");
    ``None`` otherwise."""
    if _COUNT_Q.search(question):
        return COUNT
    if _NAME_Q.search(question):
        return NAME
    return None


@lru_cache(maxsize=16_384)  # the reranker asks it of the same candidate turns query after query
def _names_in(text: str) -> frozenset[str]:
    """Capitalised words that do not open a sentence, and quoted spans, case-folded."""
    said = _PHOTO.sub("", text)
    found = {m.group(0).casefold() for m in _QUOTED.finditer(said)}
    for m in _CAPITALISED.finditer(said):
        before = said[max(0, m.start() - 16) : m.start()].rstrip(_OPENERS)
        if not before or before[-1] in _SENTENCE_END:
            continue  # opens the text or a sentence
        word = _POSSESSIVE.sub("", m.group(0))
        if word[:1].isupper() and not word.isupper() and word.casefold() not in _NOT_NAMES:
            found.add(word.casefold())
    return frozenset(found)


def carries_answer(text: str, kind: str, speakers: Collection[str] = ()) -> bool:
    """Whether ``text`` says something of ``kind`` (``expected_answer``): a name other than
    the ``speakers``' (case-folded first names), or a number."""
    if kind == COUNT:
        return bool(_NUMBER.search(_PHOTO.sub("", text)))
    if kind == NAME:
        return any(n not in speakers for n in _names_in(text))
    return False
