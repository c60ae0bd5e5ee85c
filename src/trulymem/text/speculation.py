"""Stated or guessed? The check on every fact a model commits with the user's message
beside it (the Agent's turns, ``memory_commit``'s ``user_message``) and every fact a
model extracts: a claim about the user that the user did not say — or said
the opposite of ("I don't like rock" stored as ``likes rock``) — is speculation,
and so is any claim whose own words hedge ("probably_plays"), whatever its subject.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from trulymem.text import name_key
from trulymem.text.first_person import rule_statements
from trulymem.text.statements import USER_WORDS, denies, hedged, negated_before, not_asserted, single_valued
from trulymem.text.stopwords import STOPWORDS, content_terms
from trulymem.text.tokenize import tokens

# "user's band", "my sister", "用户的乐队", "user_band": the user's own world.
_POSSESSIVE = re.compile(r"^(?:the )?(?:user'?s?|my|我的|用户的|user_)\s*\S")


def about_user(subject: str, user_id: str | None) -> bool:
    key = name_key(subject)
    return key in USER_WORDS or (user_id is not None and key == name_key(user_id)) or bool(_POSSESSIVE.match(key))


# mentions of a claim's object judged, at most: each is a scan of the message, and a
# commit's many claims share one message (up to 32,000 characters)
_MAX_MENTIONS = 16


@lru_cache(maxsize=16)
def _read(said: str) -> tuple[frozenset[str], str]:
    """The message's words and its casefolded text, read once for all a commit's claims."""
    return frozenset(tokens(said)), said.casefold()


@lru_cache(maxsize=16)
def _rule_statements(said: str) -> tuple[Any, ...]:
    return tuple(rule_statements(said))


def _positions(said: str, obj: str) -> list[int]:
    """Where ``said`` mentions the claim's object: every verbatim mention, else the first
    mention of its first content word found."""
    low, needle = _read(said)[1], obj.casefold().strip()
    found = [m.start() for m, _ in zip(re.finditer(re.escape(needle), low), range(_MAX_MENTIONS))] if needle else []
    if found:
        return found
    for word in content_terms(re.findall(r"\w+", obj.casefold())):
        at = low.find(word[:2] if re.match(r"[\u4e00-\u9fff]", word) else word)
        if at >= 0:
            return [at]
    return []


_REASONS = {"a guess": "the user's words hedge", "someone else's words": "the user reports someone else's words"}


def unstated(said: str, relation: str, obj: str) -> str | None:
    """Why ``said`` (what the user wrote) does not state the claim about the user with its
    polarity — ``None`` when it does: it must hold every content word of the object in a
    sentence that asserts it of the writer (not a question, a condition or someone else)
    with the claim's polarity (a denied statement does not state its positive form)."""
    heard, low = _read(said)
    words = content_terms(tokens(obj))
    # a CJK fragment cut at a quote mark ("叫“星图”") is matched in the raw text
    if not words or not all(w in heard or w in low for w in words):
        return "not stated by the user"
    at = _positions(said, obj)
    if not at:
        return None if not denies(relation) else "not stated by the user"
    # The latest mention that asserts something decides: "Do you like jazz? Yes, I like jazz."
    # states it, "I live in Paris. … I don't live in Paris anymore." says the opposite; a
    # question, a condition or someone else's words after a statement change nothing.
    verdict: str | None = "not stated by the user"
    for pos in at:
        why = not_asserted(said, pos)
        if why:
            if verdict is not None and verdict != "the user said the opposite":
                verdict = _REASONS.get(why, f"the user's words are {why}")
            continue
        verdict = "the user said the opposite" if negated_before(said, pos) != denies(relation) else None
    return verdict


def speculation_reason(subject: str, relation: str, obj: str, said: str, user_id: str | None) -> str | None:
    """Why this claim must be stored as speculation, or ``None`` when it may stand as stated."""
    if hedged(relation, obj):
        return "its own words hedge"
    if about_user(subject, user_id):
        why = unstated(said, relation, obj)
        if why:
            return why
        if not _slot_supported(said, relation, obj):
            # "I'm at the office in Lisbon" does not say where the user lives: a guess here
            # would replace a stated value of the slot
            return "the user did not say this about it"
    return None


def speculation_warning(why: str, subject: str, relation: str, obj: str) -> str:
    """The warning that a claim was stored as speculation, and why (``speculation_reason``)."""
    return f"stored as speculation ({why}): {subject} {relation} {obj}"


def _slot_supported(said: str, relation: str, obj: str) -> bool:
    """For a single-valued relation, the user's words must name the slot too: the
    relation's own words, or a statement the rules read for the same slot and value."""
    slot = single_valued(relation)
    if slot is None:
        return True
    low = _read(said)[1]
    words = [w for w in re.split(r"[_\s]+", relation.casefold()) if w and w not in STOPWORDS]
    if any((w[:4] if w.isascii() else w) in low for w in words):
        return True
    value = name_key(obj)
    return any(single_valued(st.relation) == slot and (name_key(st.object) in value or value in name_key(st.object))
               for st in _rule_statements(said))
