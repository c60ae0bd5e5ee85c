"""A memory's terms: what the wording-based comparisons of the dream count."""

from __future__ import annotations

from trulymem.dream.amounts import value_sequence, without_numbers
from trulymem.dream.similarity import words
from trulymem.dream.values import special_values
from trulymem.dream.vocab import CANON, GENERIC


def terms(text: str) -> set[str]:
    """A memory's significant words (synonyms as one), its dates, times, quantities and
    frequencies as one term each however written ("half an hour" = "30 minutes"), and so its numbers."""
    keys, rest = special_values(text)
    numbers = {v for v in value_sequence(text) if v.startswith("n:")}  # "twenty-one" = "21" = "二十一"
    return {CANON.get(t, t) for t in words(without_numbers(rest)) if t not in GENERIC} | set(keys) | numbers
