"""Polarity: what a negation governs, whether one memory denies what another says, and
markers that cannot both hold of one thing (automatic / manual, always / never)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from trulymem.dream.similarity import negated, without_negation, words
from trulymem.dream.vocab import CJK, GENERIC, OWNER_WORDS

_ZH_MODALS = frozenset("要会能想应该可必须得再太")


# words that sharpen a denial without adding to what is denied ("doesn't actually speak Portuguese")
_HEDGES = frozenset(words("actually really at all any more anymore in fact"))
_ZH_HEDGE = re.compile(r"其实|实际上|根本|完全|从来|并(?=不|没)")  # as words: their characters mean other things alone
# not the dot in ".env", "v1.2"; but Western punctuation after a Chinese character ends a clause
# ("用户其实不会说温州话,只能听懂一点": the negation governs 说温州话 only)
_CLAUSE = re.compile(r"[,;:.!?](?=\s|$)|(?<=[\u3400-\u9fff])[,;:.!?]|[，。；：！？、]|\s[-–—]\s")


# a negation with a condition in its clause ("never … without", "don't … unless", 没有…不能) is a rule
_CONDITION = re.compile(r"\b(?:never|not|no|don't|do not|doesn't|does not|cannot|can't|nothing|nobody)\b"
                        r".*\b(?:without|unless|until|except)\b|除非|没有.{1,12}(?:不能|不得|不许)", re.IGNORECASE)


def conditional(text: str) -> bool:
    """A negation with a condition: a rule of what must come first, no denial."""
    return bool(_CONDITION.search(text))


@lru_cache(maxsize=131_072)
def _negation_scopes(text: str) -> tuple[tuple[str, ...], ...]:
    """The words each negation governs: up to three content words after it, in its own
    clause ("We don't use Sentry; errors go to Rollbar": only Sentry)."""
    out = []
    for clause in _CLAUSE.split(text):
        if _CONDITION.search(clause):
            continue  # "Never delete data without a backup" requires a backup: it denies no deletion
        seq = words(_ZH_HEDGE.sub("", clause))
        for k, t in enumerate(seq):
            if without_negation([t]):
                continue
            han = CJK.match(t) is not None  # a Chinese negation governs the rest of its clause
            after = [w for w in without_negation(seq[k + 1:] if han else seq[k + 1:k + 5])
                     if w not in GENERIC and w not in OWNER_WORDS and w not in _ZH_MODALS and w not in _HEDGES]
            out.append(tuple(after if han else after[:3]))
    return tuple(out)


# what the other side sets aside itself: "Call her Maya rather than Mariana" does not say
# what "… is Maya, not Mariana" denies
_CONTRAST = re.compile(r"\b(?:rather than|instead of)\s+([^,;.]{1,40})", re.IGNORECASE)


def _negated_side(a: str, b: str) -> tuple[str, set[str]]:
    neg, other = (a, b) if negated(a) else (b, a)
    return neg, set(words(other))


def denies(a: str, b: str) -> bool:
    """The negated one denies what the other says: the words its negation governs (up to
    three after it) are all in the other ("Never squash commits" / "Always squash commits"),
    not just any negation somewhere ("Use pnpm, not npm" / "The package manager is pnpm")."""
    neg, said = _negated_side(a, b)
    scopes = _negation_scopes(neg)
    other = b if neg is a else a
    set_aside = {w for m in _CONTRAST.finditer(other) for w in words(m.group(1))}
    if any(scope and all(w in said for w in scope) and not all(w in set_aside for w in scope) for scope in scopes):
        return True
    return not scopes and not _CONDITION.search(neg)  # negated by a form the word list misses: assume so


def denies_plainly(neg: str, other: str) -> bool:
    """Where both are negated somewhere: what ``neg``'s negation governs (two content words at
    least) ``other`` says, and ``other``'s own negations govern none of it ("Orchard has no
    offline mode" / "Orchard has an offline mode … without signal")."""
    said = set(words(other))
    if any(not scope for scope in _negation_scopes(other)):
        return False  # a negation after what it negates ("… is forbidden") may govern any of it
    theirs = {w for scope in _negation_scopes(other) for w in scope}
    return any(len(scope) >= 2 and all(w in said for w in scope) and not set(scope) & theirs
               for scope in _negation_scopes(neg))


def negates_shared(a: str, b: str) -> bool:
    """Some word the negation governs is in the other memory too: "not npm" next to a
    memory without npm negates something else, "不允许mock数据库" next to "mock数据库" does not."""
    neg, said = _negated_side(a, b)
    # one Chinese character in common says little ("不再新增JS文件" / "新写的前端代码"): two do
    return any(sum(w in said for w in scope if CJK.match(w)) >= 2 or
               any(w in said for w in scope if not CJK.match(w)) for scope in _negation_scopes(neg))


# Markers that cannot both hold of one thing: (one side, the other side), English and Chinese.
_OPPOSITES = [(frozenset(x.split("|")), frozenset(y.split("|"))) for x, y in (
    ("automatic|automatically|自动", "manual|manually|by hand|hand-written|手动|人工|手工"),
    ("always|总是|每次都|一律", "never|从不|绝不|永远不"),
    ("required|mandatory|compulsory|必须|必需|强制", "optional|not required|可选|不必|无需|不需要"),
    ("enabled|turned on|switched on|开启|启用|打开", "disabled|turned off|switched off|关闭|禁用"),
    ("allowed|permitted|允许|可以|同意", "forbidden|prohibited|banned|blocked|not allowed|not permitted|nobody may|no one may|"
     "nobody is allowed|no one is allowed|禁止|不允许|不准|不要|不能"),
    # not minding something is no dislike of it
    ("doesn't mind|does not mind|don't mind|is fine with|is okay with|is ok with|不介意|无所谓",
     "dislikes|hates|doesn't like|does not like|can't stand|不喜欢|讨厌|反感"),
)]
_MARKER = re.compile("|".join(
    rf"\b{re.escape(m)}\b" if m.isascii() else re.escape(m)
    for m in sorted({m for x, y in _OPPOSITES for m in x | y}, key=len, reverse=True)), re.IGNORECASE)


@lru_cache(maxsize=131_072)
def _markers(text: str) -> frozenset[tuple[int, int]]:
    found = {m.group(0).casefold() for m in _MARKER.finditer(text)}
    return frozenset((k, side) for k, pair in enumerate(_OPPOSITES) for side in (0, 1) if found & pair[side])


def opposite(a: str, b: str) -> bool:
    """One says "automatically", "always", "required", the other "manually", "never",
    "optional" (in either language), and neither says both."""
    ma, mb = _markers(a), _markers(b)
    return any((k, side) in ma and (k, 1 - side) in mb and (k, 1 - side) not in ma and (k, side) not in mb
               for k, side in ma)


_PERMISSION = frozenset(words("allowed permitted ok okay fine may 允许 可以 准"))


def polarity_only(left: Sequence[str], right: Sequence[str]) -> bool:
    """Both differing parts are no more than a negation, with "allowed" or the like."""
    return all(negated(" ".join(side)) and not [t for t in without_negation(list(side)) if t not in _PERMISSION]
               for side in (left, right))


# a permission and a prohibition of one act ("may be accessed from home over the VPN" / "must not be
# accessed … not even over VPN", "is fine with meeting invites before 9am" / "Never schedule meetings …")
_PERMITS = re.compile(r"\b(?:may|can|allowed|permitted|is fine with|is ok(?:ay)? with|doesn't mind|does not mind|"
                      r"free to|ok to|okay to)\b|可以|允许|同意|不介意", re.IGNORECASE)
_FORBIDS = re.compile(r"\b(?:never|must not|mustn't|must never|may not|should not|shouldn't|should never|not allowed|"
                      r"don't|do not|doesn't want|does not want|not even|no longer allow\w*|does not allow|doesn't allow)\b|"
                      r"不要|不能|不允许|禁止|不准|不许|别|不得", re.IGNORECASE)


def permission_denied(a: str, b: str) -> bool:
    """One permits an act and the other forbids it: the prohibition's words (its governed words,
    or for a rule with a condition the words before the condition) mostly in the permission,
    two at least."""
    for yes, no in ((a, b), (b, a)):
        if negated(yes) or not negated(no) or not _PERMITS.search(yes) or not _FORBIDS.search(no):
            continue
        said = set(words(yes))
        for clause in _CLAUSE.split(no):
            m = _FORBIDS.search(clause)
            if m is None:
                continue
            after = [w for w in without_negation(words(_UNLESS.split(clause[m.end():])[0]))
                     if w not in GENERIC and w not in OWNER_WORDS and w not in _ZH_MODALS and w not in _HEDGES][:4]
            if len(after) >= 2 and sum(w in said for w in after) * 2 >= len(after):
                return True
    return False


_UNLESS = re.compile(r"\b(?:without|unless|until|except)\b|除非", re.IGNORECASE)


def plain_denial(a: str, b: str) -> bool:
    """One says, in one clause, exactly what a clause of the other denies, nothing more on
    either side but whose it is and hedges ("用户会说温州话" / "用户其实不会说温州话, 只能听懂一点";
    "She is allergic to shellfish" / "She is not allergic to shellfish at all")."""
    if negated(a) == negated(b) or conditional(a) or conditional(b):
        return False
    neg, said = (a, b) if negated(a) else (b, a)
    said_clauses = [c for c in _CLAUSE.split(said) if words(c)]
    if len(said_clauses) != 1:
        return False
    skip = OWNER_WORDS | _HEDGES | _PRONOUNS
    claim = set(words(_ZH_HEDGE.sub("", said_clauses[0]))) - skip
    return len(claim) >= 2 and any(
        negated(c) and set(without_negation(words(_ZH_HEDGE.sub("", c)))) - skip == claim for c in _CLAUSE.split(neg))


_PRONOUNS = frozenset(words("she he they her his their 她 他"))
