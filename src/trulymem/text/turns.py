"""What kind of conversation turn a message is: a question, a statement about oneself."""

from __future__ import annotations

import re
from functools import lru_cache

from trulymem.text.tokenize import tokens

_SENTENCE = re.compile(r"[^.!?。！？]+[.!?。！？]*")
_PHOTO = re.compile(r"\s*\[shares a photo:[^\]]*\]\s*$")
# First-person words: a turn with one says something about its speaker ("my husband", "we went").
_FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves 我 我们".split())


@lru_cache(maxsize=16_384)  # the reranker asks it of the same candidate turns query after query
def is_question_turn(text: str) -> bool:
    """A turn that asks rather than tells: its last sentence is a question and at least
    half of its sentences are ("Wow! What did you paint?" asks; "I paint. Do you?" half)."""
    said = _PHOTO.sub("", text).strip()
    sentences = [s.strip() for s in _SENTENCE.findall(said) if s.strip()]
    if not sentences or not sentences[-1].endswith(("?", "？")):
        return False
    asked = sum(1 for s in sentences if s.endswith(("?", "？")))
    return 2 * asked >= len(sentences)


def is_self_statement(text: str) -> bool:
    """A turn in which its speaker tells something about themselves: it speaks in the
    first person and does not mostly ask."""
    return not _FIRST_PERSON.isdisjoint(tokens(text)) and not is_question_turn(text)
