"""Which memories say the same thing, without comparing all pairs.

A memory's *terms* are its significant words: English content words, stemmed
(common abbreviations spelled out), Chinese characters that are not function
words. Similarity is the Jaccard index of the terms — the seed's "more than 60%
of significant words in common". Candidate pairs come from prefix filtering —
each memory is indexed and probed only through its rarest terms, which is exact:
no pair at or above the threshold is missed — so 100k memories never become
5·10⁹ comparisons.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache

from trulymem.text.stem import stem
from trulymem.text.stopwords import CHINESE, ENGLISH

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_RUNS = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_LATIN_WORD = re.compile(r"[A-Za-z]+")
_ZH_FUNCTION = set("的了是在和与或吗呢吧啊我你他她它们这那个很也都就还又把被给对从向而且但却么里")
NEGATIONS = frozenset({"not", "no", "never", "don't", "doesn't", "didn't", "isn't", "aren't", "won't", "cannot",
                       "can't", "avoid", "without", "stop", "stopped", "dislike", "dislikes", "hate", "hates",
                       "forbidden", "forbids", "prohibited", "banned",
                       "不", "没", "别", "勿", "未", "无", "讨厌", "不要", "不再", "没有"})
_ZH_NEG = re.compile(r"不要|不再|没有|讨厌|禁止|不得|不准|不许|[不没别勿未无禁]")
_EN_NEG_WORDS = {"not", "no", "never", "dont", "doesnt", "didnt", "isnt", "arent", "wont", "cannot", "cant",
                 "avoid", "without", "stop", "stopped", "dislik", "hate",
                 "forbidden", "forbid", "prohibit", "banned"}  # a prohibition says no as "never" does


_KEEP = frozenset({"not", "no", "nor", "never"})
ABBREVIATIONS = {"repo": "repository", "repos": "repositories", "db": "database", "dbs": "databases",
                 "env": "environment", "envs": "environments", "config": "configuration", "configs": "configurations",
                 "docs": "documentation", "doc": "documentation", "k8s": "kubernetes", "pg": "postgresql",
                 "postgres": "postgresql", "js": "javascript", "ts": "typescript", "py": "python", "auth": "auth",
                 "prod": "production", "dev": "development", "msg": "message", "msgs": "messages", "pkg": "package",
                 "pkgs": "packages", "dir": "directory", "dirs": "directories", "img": "image", "imgs": "images"}


def words(text: str) -> list[str]:
    """Significant words in order: stemmed English content words, Chinese content characters."""
    out: list[str] = []
    for token in _WORD.findall(_POSSESSIVE.sub("", text.casefold()).replace("'", "").replace("’", "")):
        # "python服务用pytest": each Chinese character, and each Latin run as one word
        for w in _RUNS.findall(token) if _CJK_CHAR.search(token) else (token,):
            if _CJK_CHAR.match(w):
                if w not in _ZH_FUNCTION and w not in CHINESE:
                    out.append(w)
            else:
                for part in _CONTRACTIONS.get(w, (w,)):  # "can't" = "cannot" = "can not"
                    if part in _KEEP or part not in ENGLISH:  # "not"/"no" are stopwords but carry the meaning here
                        out.append(stem(ABBREVIATIONS.get(part, part)))
    return out


# "Tomás's" and "Tomás'" are Tomás: without it one reads "tomáss", the other "tomá"
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b|(?<=s)['’](?=\s|$)")
_CONTRACTIONS = {"cant": ("can", "not"), "cannot": ("can", "not"), "wont": ("will", "not"),
                 **{w + "nt": (w, "not") for w in "do does did is are was were could should would have has had "
                                                  "must need".split()}}


# Chinese words with a negation character that negate nothing: 少不了 (can't do without), 不得不
# (has to), 不错 (good), 不同 (different), 不断 (keeps on), 差不多 (about) …
_ZH_NOT_NEGATION = re.compile(r"少不了|离不开|不得不|不可或缺|必不可少|忍不住|不错|不少|差不多|不断|不停|不仅|不管|不同|不久|"
                              r"无论|没错|毫无疑问")


@lru_cache(maxsize=131_072)  # per text, asked in every pair it is in
def negated(text: str) -> bool:
    low = _ZH_NOT_NEGATION.sub("", text.casefold().replace("'", "").replace("’", ""))
    return any(stem(w) in _EN_NEG_WORDS or w in _EN_NEG_WORDS for w in _WORD.findall(low)) or bool(_ZH_NEG.search(low))


def without_negation(ws: Sequence[str]) -> list[str]:
    neg_stems = {stem(w) for w in _EN_NEG_WORDS} | _EN_NEG_WORDS
    return [w for w in ws if w not in neg_stems and not _ZH_NEG.fullmatch(w)]


def document_frequencies(docs: Iterable[set[str]]) -> dict[str, int]:
    df: dict[str, int] = defaultdict(int)
    for d in docs:
        for t in d:
            df[t] += 1
    return df


def jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def similar_pairs(sets: Sequence[set[str]], threshold: float, blocks: Sequence[str], df: dict[str, int],
                  probes: Sequence[int] | None = None, targets: set[int] | None = None,
                  max_postings: int | None = None) -> list[tuple[int, int, float]]:
    """Every pair ``(i, j, jaccard)``, ``i < j``, of one block with Jaccard >= ``threshold``.

    Prefix filtering (AllPairs): with terms in one global order, rarest first, two
    sets with Jaccard >= t share a term among the first ``|x| - ceil(t|x|) + 1`` of
    each — so only those prefixes are indexed and probed, and every candidate is
    verified. Exact: no pair at the threshold is missed — unless ``max_postings`` is
    set: a term held by more sets of one block than that is boilerplate (a template
    with many values), and pairs that share only such terms in their prefixes are not
    looked for. ``probes``/``targets`` restrict which sets look for which."""
    def prefix(s: set[str]) -> list[str]:
        ordered = sorted(s, key=lambda t: (df.get(t, 0), t))
        return ordered[: len(ordered) - math.ceil(threshold * len(ordered) - 1e-9) + 1]

    index: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, s in enumerate(sets):
        if s and (targets is None or i in targets):
            for t in prefix(s):
                index[(blocks[i], t)].append(i)
    if max_postings is not None:
        index = defaultdict(list, {k: v for k, v in index.items() if len(v) <= max_postings})
    out: dict[tuple[int, int], float] = {}
    for i in range(len(sets)) if probes is None else probes:
        s = sets[i]
        if not s:
            continue
        low, high = threshold * len(s), len(s) / threshold if threshold > 0 else math.inf
        checked: set[int] = set()  # per probe: only pairs that pass are kept, so memory stays small
        for t in prefix(s):
            for j in index.get((blocks[i], t), ()):
                if j == i or j in checked or not low <= len(sets[j]) <= high:
                    continue
                checked.add(j)
                v = jaccard(s, sets[j])
                if v >= threshold:
                    out[(i, j) if i < j else (j, i)] = v
    return [(i, j, v) for (i, j), v in sorted(out.items())]


def common_ends(x: Sequence[str], y: Sequence[str]) -> tuple[int, int]:
    """How many leading and trailing items two sequences share (the trailing ones never
    overlap the leading ones): what is left between them is where they differ."""
    p = 0
    while p < min(len(x), len(y)) and x[p] == y[p]:
        p += 1
    q = 0
    while q < min(len(x), len(y)) - p and x[-1 - q] == y[-1 - q]:
        q += 1
    return p, q


@lru_cache(maxsize=131_072)
def cjk(text: str) -> bool:
    """Written in Chinese (or Japanese), Latin-letter names and all ("Python服务用pytest"), as
    opposed to Latin-letter text: at least as many CJK characters as Latin words."""
    han = len(_CJK_CHAR.findall(text))
    return han > 0 and han >= len(_LATIN_WORD.findall(text))


def mentions(text: str, value: str) -> bool:
    """``text`` names ``value`` (its significant words, in order-free match)."""
    want = set(words(value))
    return bool(want) and want <= set(words(text))
