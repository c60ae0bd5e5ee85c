"""Name resolution: the same thing written differently is one node.

``User``, ``user``, ``ｕｓｅｒ``, `` user `` and ``user\\u200b`` all resolve to the
key ``user``; Chinese is folded the same way (full-width forms through NFKC).
Only the key is folded: the text a user wrote is kept as written.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WS = re.compile(r"\s+")
_REL_SEP = re.compile(r"[\s\-]+")


# Names repeat constantly (user, AI, task ids): cache the folding.
@lru_cache(maxsize=65_536)
def name_key(name: str) -> str:
    """The identity key of a name: NFKC, case-folded, invisible format characters
    (zero-width spaces, BOMs, direction marks) removed, whitespace collapsed."""
    if name.isascii():  # NFKC keeps ASCII as it is, casefold is lower, no ASCII character is Cf
        return _WS.sub(" ", name.lower()).strip()
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    visible = "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")
    return _WS.sub(" ", visible).strip()


@lru_cache(maxsize=8_192)
def relation_key(relation: str) -> str:
    """The identity key of a relation: like ``name_key`` with spaces/hyphens as ``_``.

    ``speaking style``, ``Speaking-Style`` and ``speaking_style`` are one relation.
    """
    return _REL_SEP.sub("_", name_key(relation))
