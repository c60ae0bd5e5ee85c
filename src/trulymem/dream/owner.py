"""The user by name: memories say "The user prefers tea" and "Tomás prefers tea" of one
person. Read once per pass from the memories themselves — a stated name ("user name
Tomás", "The user's name is Tomás", 用户叫 Tomás), else the one person the memories
speak of far more than of anyone else — so that "Tomás takes his coffee black" and "The user
drinks his coffee black" are seen as one person's one habit said twice.

Only what the rules read is rewritten, and only to find restatements for a person to review:
what is shown keeps its words, and nothing is merged or flagged on this reading alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from functools import lru_cache

from trulymem.dream.duplicates import duplicate_candidates
from trulymem.dream.findings import DreamSettings, text_of
from trulymem.dream.gate import gate, worth_review
from trulymem.dream.judge import FrameSimilarity, judge
from trulymem.dream.similarity import cjk
from trulymem.dream.terms import terms
from trulymem.embed import Embedder
from trulymem.memories import MemoryItem
from trulymem.text import relation_key

_NAME_RELATIONS = frozenset({"name", "full_name", "first_name", "nickname", "preferred_name", "goes_by", "called"})
_NAME = r"(?-i:[A-Z])[\w-]*[^\W\d_]"
_STATED = re.compile(rf"\b(?:the\s+)?user(?:'s|’s)\s+(?:first\s+|preferred\s+|full\s+)?name\s+is\s+({_NAME})|"
                     rf"\b(?:the\s+)?user\s+(?:goes by|is called|is named|prefers to be called)\s+({_NAME})|"
                     rf"用户(?:叫|名叫|的名字是|的名字叫)\s*({_NAME})", re.IGNORECASE)
# what is said of a person, not of a project: "Tomás prefers", "Amara's husband", "Renata 的生日"
_PERSONAL = (r"(?:['’]s?\s+)?(?:prefers?|likes?|loves?|hates?|wants?|lives?|works?|drinks?|eats?|speaks?|drives?|"
             r"rides?|is allergic|was born|husband|wife|partner|mother|mum|mom|father|dad|son|daughter|sister|"
             r"brother|kids|children|birthday|manager|boss|doctor|dentist|doesn't|does not|usually|always|never)\b|"
             r"\s*(?:的(?:生日|丈夫|妻子|老公|老婆|伴侣|妈妈|母亲|爸爸|父亲|儿子|女儿|孩子|哥哥|姐姐|弟弟|妹妹|医生|老板)|"
             r"喜欢|不喜欢|讨厌|住在|每天|每周|想|过敏|不吃|不喝)")
_MIN_MENTIONS = 5   # a name said this often as a person …
_MARGIN = 2.0       # … and this much more often than the next person's: the user
# a relative or colleague named beside the one they belong to ("his partner Mei-Ling", "sister Linnea")
_BESIDE_KIN = re.compile(r"\b(?:husband|wife|partner|mother|mum|mom|father|dad|son|daughter|sister|brother|"
                         r"colleague|manager|boss|friend|cousin)\s+(" + _NAME + ")")


def user_name(items: Sequence[MemoryItem]) -> str | None:
    """The user's name as the memories give it, or ``None`` when they do not tell."""
    for m in items:
        if relation_key(m.relation) in _NAME_RELATIONS and m.subject.casefold() == "user":
            first = m.object.split()[0] if m.object.split() else ""
            if re.fullmatch(_NAME, first):
                return first
        said = _STATED.search(m.memory)
        if said:
            return next(g for g in said.groups() if g)
    return _most_spoken_of(items)


_NOT_NAMES = frozenset("he she his her they their them it its the user we our my i you your this that there "
                       "everyone nobody someone".split())


def _most_spoken_of(items: Sequence[MemoryItem]) -> str | None:
    counts: Counter[str] = Counter()
    others: set[str] = set()
    for m in items:
        others |= set(_BESIDE_KIN.findall(m.memory))
        for name in set(re.findall(rf"\b({_NAME})(?=\s*{_PERSONAL})", m.memory)):
            counts[name] += 1
    ranked = [(n, c) for n, c in counts.most_common() if n not in others and n.casefold() not in _NOT_NAMES]
    if not ranked or ranked[0][1] < _MIN_MENTIONS:
        return None
    if len(ranked) > 1 and ranked[0][1] < _MARGIN * ranked[1][1]:
        return None
    return ranked[0][0]


# a memory that opens with "He" / "She" / 他 / 她 and names no one else is about the user
_PRONOUN_EN = re.compile(r"^(?:(He|She)(?:['’](?:d|s))?|(His|Her))\b(?!\s+(?-i:[A-Z]))")
_PRONOUN_ZH = re.compile(r"^(?:他|她)(?=的|[^们])")


@lru_cache(maxsize=64)
def _named(name: str) -> re.Pattern[str]:
    """The name, with its possessive, as a word of its own (not inside "Priya-Lane")."""
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?:['’]s|['’](?!\w))?(?![\w-])")


def as_user(m: MemoryItem, name: str | None) -> MemoryItem:
    """The memory as the rules read it: the user's name, or an opening pronoun, as "the user"
    (用户 in Chinese)."""
    text = m.memory
    own = _named(name) if name else None
    if not (own and own.search(text)) and not _PRONOUN_EN.match(text) and not _PRONOUN_ZH.match(text):
        return m

    def said(x: str) -> str:
        if cjk(x):
            return _PRONOUN_ZH.sub("用户", own.sub("用户", x) if own else x)
        x = _PRONOUN_EN.sub(lambda k: "The user's" if k.group(2) else "The user would" if k.group(0)[-1:] == "d"
                            else "The user", x)
        if own is None:
            return x
        out = own.sub(lambda k: "the user's" if k.group(0) != name else "the user", x)
        return out[:1].upper() + out[1:] if x[:1].isupper() else out
    return m.model_copy(update={"memory": said(text), "object": said(m.object)})


def restated_by_name(rest: Sequence[MemoryItem], df: dict[str, int], distinct: set[tuple[str, str]],
                     cfg: DreamSettings, embedder: Embedder | None, seen: Collection[tuple[int, int]],
                     frames: FrameSimilarity | None) -> dict[tuple[int, int], tuple[float, bool]]:
    """Pairs alike once the user's name reads as "the user" ("Tomás takes his coffee black" /
    "The user drinks his coffee black"), not found otherwise: for a person to review, never
    merged or flagged on that reading alone (the name is read from the memories, not known).
    Each with its similarity, and whether the judge read the two as one fact."""
    name = user_name(rest)
    reading = [as_user(m, name) for m in rest]
    changed = {k for k, (m, r) in enumerate(zip(rest, reading)) if m is not r}
    if not changed:
        return {}
    sets = [terms(text_of(m)) for m in reading]
    sims, _, _ = duplicate_candidates(reading, sets, df, set(), distinct, cfg, embedder, wide=True)
    out = {}
    for (i, j), s in sims.items():
        if (i, j) in seen or not ({i, j} & changed):
            continue
        a, b = reading[i].memory, reading[j].memory
        verdict = judge(a, b, frames, s)
        if verdict in ("duplicate", "ambiguous") and gate(a, b, verdict, sure=False) in ("duplicate", "review") \
                and worth_review(a, b, s):
            out[(i, j)] = (s, verdict == "duplicate")
    return out


def reading_texts(items: Sequence[MemoryItem]) -> list[str]:
    """The texts ``restated_by_name`` encodes besides the memories' own: kept in the vector
    cache with them, so a database that has lived encodes only what is new."""
    name = user_name(items)
    return [text_of(r) for m in items if (r := as_user(m, name)) is not m]
