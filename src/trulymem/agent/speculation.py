"""Stated or guessed? The runtime's check on every fact the model commits and every
fact a model extracts: a claim about the user that the user did not say — or said
the opposite of ("I don't like rock" stored as ``likes rock``) — is speculation,
and so is any claim whose own words hedge ("probably_plays"), whatever its subject.
"""

from __future__ import annotations

import re

from trulymem.agent.extract import rule_statements
from trulymem.text import name_key
from trulymem.text.statements import USER_WORDS, denies, hedged, negated_before, single_valued
from trulymem.text.stopwords import STOPWORDS, content_terms
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
    heard, low = set(tokens(said)), said.casefold()
    words = content_terms(tokens(obj))
    # a CJK fragment cut at a quote mark ("叫“星图”") is matched in the raw text
    if not words or not all(w in heard or w in low for w in words):
        return False
    at = _position(said, obj)
    denied = negated_before(said, at) if at >= 0 else False
    return denied == denies(relation)


def speculation_reason(subject: str, relation: str, obj: str, said: str, user_id: str | None) -> str | None:
    """Why this claim must be stored as speculation, or ``None`` when it may stand as stated."""
    if hedged(relation, obj):
        return "its own words hedge"
    if about_user(subject, user_id):
        if not stated_by(said, relation, obj):
            return "the user said the opposite" if stated_by(said, _flip(relation), obj) else "not stated by the user"
        if not _slot_supported(said, relation, obj):
            # "I'm at the office in Lisbon" does not say where the user lives: a guess here
            # would replace a stated value of the slot
            return "the user did not say this about it"
    return None


def _slot_supported(said: str, relation: str, obj: str) -> bool:
    """For a single-valued relation, the user's words must name the slot too: the
    relation's own words, or a statement the rules read for the same slot and value."""
    slot = single_valued(relation)
    if slot is None:
        return True
    low = said.casefold()
    words = [w for w in re.split(r"[_\s]+", relation.casefold()) if w and w not in STOPWORDS]
    if any((w[:4] if w.isascii() else w) in low for w in words):
        return True
    value = name_key(obj)
    return any(single_valued(st.relation) == slot and (name_key(st.object) in value or value in name_key(st.object))
               for st in rule_statements(said))


def _flip(relation: str) -> str:
    return "likes" if denies(relation) else "dislikes"
