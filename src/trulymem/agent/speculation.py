"""Stated or guessed? The runtime's check on every fact the model commits and every
fact a model extracts: a claim about the user that the user did not say — or said
the opposite of ("I don't like rock" stored as ``likes rock``) — is speculation,
and so is any claim whose own words hedge ("probably_plays"), whatever its subject.
"""

from __future__ import annotations

import re

from trulymem.text import name_key
from trulymem.text.statements import USER_WORDS, hedged, negated_before, negative_relation, preference
from trulymem.text.stopwords import content_terms
from trulymem.text.tokenize import tokens

# "user's band", "my sister", "用户的乐队", "user_band": the user's own world.
_POSSESSIVE = re.compile(r"^(?:the )?(?:user'?s?|my|我的|用户的|user_)\s*\S")


def about_user(subject: str, user_id: str | None) -> bool:
    key = name_key(subject)
    return key in USER_WORDS or (user_id is not None and key == name_key(user_id)) or bool(_POSSESSIVE.match(key))


def _position(said: str, obj: str) -> int:
    """Where ``said`` mentions the claim's object (its first content word if not verbatim)."""
    low = said.casefold()
    at = low.find(obj.casefold().strip())
    if at >= 0:
        return at
    for word in content_terms(re.findall(r"\w+", obj.casefold())):
        at = low.find(word[:2] if re.match(r"[\u4e00-\u9fff]", word) else word)
        if at >= 0:
            return at
    return -1


def stated_by(said: str, relation: str, obj: str) -> bool:
    """True when ``said`` (what the user wrote) contains every content word of the object
    with the claim's polarity: a denied statement does not state its positive form."""
    heard = set(tokens(said))
    words = content_terms(tokens(obj))
    if not words or not all(w in heard for w in words):
        return False
    at = _position(said, obj)
    denied = negated_before(said, at) if at >= 0 else False
    return denied == (negative_relation(relation) or preference(relation) is False)


def speculation_reason(subject: str, relation: str, obj: str, said: str, user_id: str | None) -> str | None:
    """Why this claim must be stored as speculation, or ``None`` when it may stand as stated."""
    if hedged(relation, obj):
        return "its own words hedge"
    if about_user(subject, user_id) and not stated_by(said, relation, obj):
        if stated_by(said, _flip(relation), obj):
            return "the user said the opposite"
        return "not stated by the user"
    return None


def _flip(relation: str) -> str:
    return "likes" if negative_relation(relation) or preference(relation) is False else "dislikes"
