"""Name resolution: the same thing written differently is one node.

``User``, ``user``, ``ｕｓｅｒ`` and `` user `` all resolve to the key ``user``;
Chinese is folded the same way (full-width punctuation and spaces through NFKC).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WS = re.compile(r"\s+")
_REL_SEP = re.compile(r"[\s\-]+")


# Names repeat constantly (user, AI, task ids): cache the folding.
@lru_cache(maxsize=65_536)
def clean_text(text: str) -> str:
    """NFKC and whitespace-collapse display text, keeping its case."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip()


@lru_cache(maxsize=65_536)
def name_key(name: str) -> str:
    """The identity key of a node name: NFKC, case-folded, whitespace collapsed."""
    return unicodedata.normalize("NFKC", clean_text(name).casefold())


@lru_cache(maxsize=8_192)
def relation_key(relation: str) -> str:
    """The identity key of a relation: like ``name_key`` with spaces/hyphens as ``_``.

    ``speaking style``, ``Speaking-Style`` and ``speaking_style`` are one relation.
    """
    return _REL_SEP.sub("_", name_key(relation))
