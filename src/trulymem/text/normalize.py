"""Name resolution: the same thing written differently is one node.

``User``, ``user``, ``ｕｓｅｒ``, `` user `` and ``user\\u200b`` all resolve to the
key ``user``; Chinese is folded the same way (full-width forms through NFKC).
Only the key is folded: the text a user wrote is kept as written. A unit right after
a number keeps its case in the key (``10 MB`` is not ``10 Mb``, ``5 ms`` not ``5 Ms``):
folding it would make a second value reinforce the first and lose its text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import TypeVar

T = TypeVar("T")

_WS = re.compile(r"\s+")
_REL_SEP = re.compile(r"[\s\-]+")
# a unit symbol after a number (10 MB, 100Mb/s, 5 ms): SI prefixes and bits/bytes differ by case alone
_UNIT = re.compile(r"(?<=\d)(\s*)([^\W\d_]{1,4}(?:/[^\W\d_]{1,3})?)(?!\w)")  # not in 2024-05-01T12:00
_CASELESS_UNITS = frozenset({"am", "pm", "st", "nd", "rd", "th", "x", "utc", "gmt"})  # 5 PM = 5 pm, 1st = 1ST


def _cased_unit(unit: str) -> bool:
    """Case tells this unit apart: not a word capitalised (``Beta``, ``Days``), not caseless."""
    letters = unit.split("/")[0]
    return (unit != unit.casefold() and unit.casefold() not in _CASELESS_UNITS
            and (len(letters) <= 2 or letters != letters.capitalize()))


# Names repeat constantly (user, AI, task ids): cache the folding.
@lru_cache(maxsize=65_536)
def name_key(name: str) -> str:
    """The identity key of a name: NFKC, case-folded, invisible format characters
    (zero-width spaces, BOMs, direction marks) removed, whitespace collapsed; units
    after a number keep their case."""
    units = [m for m in _UNIT.finditer(name) if _cased_unit(m[2])]
    if not units:
        return folded_key(name)
    parts, at = [], 0
    for m in units:  # fold around each cased unit, keep the unit as written (NFKC only)
        parts += [_fold(name[at:m.start(2)]), unicodedata.normalize("NFKC", m[2])]
        at = m.end(2)
    return _WS.sub(" ", "".join([*parts, _fold(name[at:])])).strip()


def folded_key(name: str) -> str:
    """``name_key`` with every letter case-folded: the key of databases before schema 8."""
    return _WS.sub(" ", _fold(name)).strip()


def _fold(text: str) -> str:
    if text.isascii():  # NFKC keeps ASCII as it is, casefold is lower, no ASCII character is Cf
        return text.lower()
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")


@lru_cache(maxsize=8_192)
def relation_key(relation: str) -> str:
    """The identity key of a relation: like ``name_key`` with spaces/hyphens as ``_``.

    ``speaking style``, ``Speaking-Style`` and ``speaking_style`` are one relation.
    """
    return _REL_SEP.sub("_", folded_key(relation))


def rekeyed(rows: Iterable[tuple[T, str, str]]) -> list[tuple[str, T]]:
    """``(new key, row id)`` for the ``(row id, name, key)`` rows keyed the old way whose key
    now keeps a unit's case (schema 8 on both stores). Keys made from another text than
    the node's name (episodes, tasks) are left as they are."""
    return [(name_key(name), rid) for rid, name, key in rows if key == folded_key(name) != name_key(name)]
