"""English stems of content words: what the reranker and the topic enricher compare."""

from __future__ import annotations

from functools import lru_cache

import snowballstemmer  # type: ignore[import-untyped,unused-ignore]

from trulymem.text.stopwords import STOPWORDS
from trulymem.text.tokenize import tokens

_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


def stems(text: str) -> set[str]:
    """Stemmed content words of ``text`` (stopwords and one-letter tokens dropped)."""
    return {stem(t) for t in tokens(text) if t not in STOPWORDS and len(t) > 1}
