"""Which memories say the same thing, without comparing all pairs.

A memory's *terms* are its significant words: English content words, stemmed;
Chinese characters that are not function words. Terms are weighted by rarity
in the scope (IDF), so "PostgreSQL" counts more than "use" and 猫 more than 喜.
Similarity is weighted Jaccard. Candidate pairs come from prefix filtering —
each memory is probed only through its rarest terms, which is exact: no pair at
or above the threshold is missed — so 100k memories never become 5·10⁹ pairs.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache

import snowballstemmer

from trulymem.text.stopwords import CHINESE, ENGLISH

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_STEMMER = snowballstemmer.stemmer("english")
_ZH_FUNCTION = set("的了是在和与或吗呢吧啊我你他她它们这那个很也都就还又把被给对从向而且但却么")
NEGATIONS = frozenset({"not", "no", "never", "don't", "doesn't", "didn't", "isn't", "aren't", "won't", "cannot",
                       "can't", "avoid", "without", "stop", "stopped", "dislike", "dislikes", "hate", "hates",
                       "不", "没", "别", "勿", "未", "无", "讨厌", "不要", "不再", "没有"})
_ZH_NEG = re.compile(r"不要|不再|没有|讨厌|[不没别勿未无]")
_EN_NEG_WORDS = {"not", "no", "never", "dont", "doesnt", "didnt", "isnt", "arent", "wont", "cannot", "cant",
                 "avoid", "without", "stop", "stopped", "dislik", "hate"}


_KEEP = frozenset({"not", "no", "nor", "never"})
ABBREVIATIONS = {"repo": "repository", "repos": "repositories", "db": "database", "dbs": "databases",
                 "env": "environment", "envs": "environments", "config": "configuration", "configs": "configurations",
                 "docs": "documentation", "doc": "documentation", "k8s": "kubernetes", "pg": "postgresql",
                 "postgres": "postgresql", "js": "javascript", "ts": "typescript", "py": "python", "auth": "auth",
                 "prod": "production", "dev": "development", "msg": "message", "msgs": "messages", "pkg": "package",
                 "pkgs": "packages", "dir": "directory", "dirs": "directories", "img": "image", "imgs": "images"}


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


def words(text: str) -> list[str]:
    """Significant words in order: stemmed English content words, Chinese content characters."""
    out: list[str] = []
    for w in _WORD.findall(text.casefold().replace("'", "").replace("’", "")):
        if _CJK_CHAR.search(w):
            for ch in w:
                if _CJK_CHAR.match(ch) and ch not in _ZH_FUNCTION and ch not in CHINESE:
                    out.append(ch)
                elif not _CJK_CHAR.match(ch) and ch.isalnum():
                    out.append(ch)
        elif w in _KEEP or w not in ENGLISH:  # "not"/"no" are stopwords but carry the meaning here
            out.append(_stem(ABBREVIATIONS.get(w, w)))
    return out


def negated(text: str) -> bool:
    low = text.casefold().replace("'", "").replace("’", "")
    return any(_stem(w) in _EN_NEG_WORDS or w in _EN_NEG_WORDS for w in _WORD.findall(low)) or bool(_ZH_NEG.search(low))


def without_negation(ws: Sequence[str]) -> list[str]:
    neg_stems = {_stem(w) for w in _EN_NEG_WORDS} | _EN_NEG_WORDS
    return [w for w in ws if w not in neg_stems and not _ZH_NEG.fullmatch(w)]


class TermIndex:
    """Document frequencies over a collection, for IDF weights."""

    def __init__(self, docs: Iterable[set[str]]) -> None:
        self.df: dict[str, int] = defaultdict(int)
        self.n = 0
        for d in docs:
            self.n += 1
            for t in d:
                self.df[t] += 1

    def weight(self, term: str) -> float:
        return math.log(1 + (self.n + 1) / (self.df.get(term, 0) + 1))

    def weights(self) -> dict[str, float]:
        """Every term's weight; terms never seen get the rarest weight."""
        return _Weights({t: self.weight(t) for t in self.df}, self.weight(""))



class _Weights(dict[str, float]):
    def __init__(self, known: dict[str, float], unseen: float) -> None:
        super().__init__(known)
        self.unseen = unseen

    def __missing__(self, key: str) -> float:
        return self.unseen


def weighted_jaccard(a: set[str], b: set[str], w: dict[str, float]) -> float:
    if not a or not b:
        return 0.0
    inter = sum(w[t] for t in a & b)
    union = sum(w[t] for t in a | b)
    return inter / union if union else 0.0


def candidate_pairs(sets: Sequence[set[str]], w: dict[str, float], threshold: float,
                    blocks: Sequence[str], df: dict[str, int] | None = None) -> set[tuple[int, int]]:
    """Pairs ``(i, j)``, ``i < j``, in the same block that may reach ``threshold``.

    Prefix filtering: order a set's terms rarest first; once the terms left weigh
    less than ``threshold`` of the set, a pair sharing none of the earlier terms
    cannot reach the threshold (the overlap would weigh less than
    ``threshold * weight(set) <= threshold * weight(union)``)."""
    postings: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, s in enumerate(sets):
        for t in s:
            postings[(blocks[i], t)].append(i)
    out: set[tuple[int, int]] = set()
    for i, s in enumerate(sets):
        if not s:
            continue
        # rarest first (short posting lists); any fixed order keeps the filter exact
        ordered = sorted(s, key=(lambda t: (df.get(t, 0), t)) if df is not None else (lambda t: (-w[t], t)))
        total = sum(w[t] for t in ordered)
        left = total
        for t in ordered:
            if left < threshold * total:
                break
            for j in postings[(blocks[i], t)]:
                if j != i:
                    out.add((i, j) if i < j else (j, i))
            left -= w[t]
    return out


class UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)

    def groups(self) -> list[list[int]]:
        out: dict[int, list[int]] = defaultdict(list)
        for i in range(len(self.parent)):
            out[self.find(i)].append(i)
        return [g for g in out.values() if len(g) > 1]


UNIFORM = _Weights({}, 1.0)  # plain Jaccard: "more than 60% of significant words in common"
