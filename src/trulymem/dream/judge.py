"""The pairwise judge: two memories that look alike are a *duplicate*, a
*contradiction* or *distinct* — decided per pair, never by one similarity
threshold. What it reads, in any language: the values a memory pins down
(numbers, dates, names, vendor and product names), whether it is negated, and
whether the frame around the differing part takes one value or many.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from trulymem.dream.similarity import negated, words
from trulymem.dream.vocab import MULTI_VALUED, MULTI_VALUED_ZH

Verdict = Literal["duplicate", "contradiction", "distinct"]

_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*(?:%|k|m|gb|mb|ms|s|h|d)?(?![\w])|\d+(?=[天月日年岁号点个次%])",
                     re.IGNORECASE)
_ZH_NUMBER = re.compile(r"[零一二两三四五六七八九十百千万]+(?=[天月日年岁号点个次周])")
_MONTHS = ("january february march april may june july august september october november december "
           "jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday "
           "sunday").split()
_MONTH = re.compile(r"\b(?:" + "|".join(_MONTHS) + r")\b", re.IGNORECASE)
# Names written in Latin letters: capitalised words after the first, ALL-CAPS, identifiers with digits or dots.
_NAME = re.compile(r"(?<=[\w,;:'’)] )[A-Z][\w.+#-]*|\b[A-Z]{2,}[\w.+-]*|\b[A-Za-z]+\d[\w.]*|\b\w+\.\w+\b")
_PREDICATE = frozenset(words("is are was were be been has have had lives works likes loves plays owns speaks "
                             "uses prefers moved studies teaches runs drives goes wants needs knows"))


@lru_cache(maxsize=131_072)
def _seen(text: str) -> tuple[tuple[str, ...], frozenset[str], bool]:
    """A memory's words, values and negation, read once however many pairs it is in."""
    return tuple(words(text)), frozenset(values(text)), negated(text)


def values(text: str) -> set[str]:
    """What a memory pins down: numbers (with units), month and day names, Latin-letter names."""
    found = {m.group(0).casefold() for m in _NUMBER.finditer(text)}
    found |= {f"zh:{m.group(0)}" for m in _ZH_NUMBER.finditer(text)}
    found |= {m.group(0).casefold() for m in _MONTH.finditer(text)}
    found |= {m.group(0).casefold().strip(".") for m in _NAME.finditer(text)}
    return found


def value_clash(a: str, b: str) -> tuple[set[str], set[str]] | None:
    """The values only one side has, when both sides have some the other lacks ("30天" vs
    "14天", "OSS" vs "COS", "March 3" vs "May 3"); ``None`` when they do not clash.
    A memory that only adds a value to the other ("Use pnpm" / "Use pnpm 9") does not clash."""
    va, vb = _seen(a)[1], _seen(b)[1]
    only_a, only_b = set(va - vb), set(vb - va)
    return (only_a, only_b) if only_a and only_b else None


def many_valued(a: str, b: str) -> bool:
    """The frame takes many values at once ("speaks French" and "speaks Japanese")."""
    shared = set(_seen(a)[0]) & set(_seen(b)[0])
    return bool(shared & MULTI_VALUED) or any(w in a and w in b for w in MULTI_VALUED_ZH)


def _same_ending(a: str, b: str) -> bool:
    """Both end in the same statement ("svc-3 uses Redis" / "svc-7 uses Redis"): what
    differs comes before it, so they are about different things, not different values.
    A shared unit or one character ("30天" / "14天") is not an ending."""
    x, y = _seen(a)[0], _seen(b)[0]
    q = 0
    while q < min(len(x), len(y)) and x[-1 - q] == y[-1 - q]:
        q += 1
    tail = x[len(x) - q:]
    return q > 0 and q < min(len(x), len(y)) and (any(len(t) >= 3 and not t.isdigit() for t in tail) or q >= 2)


def judge(a: str, b: str) -> Verdict:
    """Two memories already found alike (by wording or meaning): what are they to each other?"""
    if _seen(a)[2] != _seen(b)[2]:
        return "contradiction" if not many_valued(a, b) else "distinct"
    if value_clash(a, b) is not None:
        return "distinct" if many_valued(a, b) or _same_ending(a, b) else "contradiction"
    return "duplicate"


def different_predicates(left: list[str], right: list[str]) -> bool:
    """Two statements about one thing, not two values of one attribute: "Mei lives in
    Denver" / "Mei is a pilot" differ from their predicate on."""
    return bool(left and right and (left[0] in _PREDICATE or right[0] in _PREDICATE) and left[0] != right[0])


# "we moved from Heroku to Lambda", "switched from npm to pnpm", "replaced Jenkins with GitHub Actions",
# "no longer use X", 从X迁移到Y, 由X换成Y, 不再使用X: the old value is no longer current.
_CHANGE_EN = [re.compile(p, re.IGNORECASE) for p in (
    r"\b(?:moved|migrated|switched|changed|went|upgraded|transitioned)\s+(?:\w+\s+){0,3}?from\s+(?P<old>[^,.;]+?)"
    r"\s+(?:to|onto)\s+(?P<new>[^,.;]+)",
    r"\breplaced\s+(?P<old>[^,.;]+?)\s+with\s+(?P<new>[^,.;]+)",
    r"\b(?P<old>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)\s+(?:was|has been|got)\s+replaced\s+by\s+(?P<new>[^,.;]+)",
    r"\bno longer\s+(?:use[sd]?|run[s]?|deploy(?:s|ed)?\s+to|on|in|with)\s+(?P<old>[^,.;]+)",
    r"\binstead of\s+(?P<old>[^,.;]+)")]
_CHANGE_ZH = [re.compile(p) for p in (
    r"从(?P<old>[^，。；,;]{1,20}?)(?:迁移|迁|搬|换|切换|改|转)(?:到|成|为)了?(?P<new>[^，。；,;]{1,20})",
    r"由(?P<old>[^，。；,;]{1,20}?)(?:改为|换成|切换到)(?P<new>[^，。；,;]{1,20})",
    r"不再(?:使用|用|部署到|住在)(?P<old>[^，。；,;]{1,20})")]


def replaced_value(text: str) -> str | None:
    """The value a change statement says is no longer current ("Heroku" in "we moved from
    Heroku to Lambda"), or ``None``."""
    for pattern in (*_CHANGE_EN, *_CHANGE_ZH):
        m = pattern.search(text)
        if m:
            return m.group("old").strip(" '\"“”")
    return None


def mentions(text: str, value: str) -> bool:
    """``text`` names ``value`` (its significant words, in order-free match)."""
    want = set(words(value))
    return bool(want) and want <= set(_seen(text)[0])
