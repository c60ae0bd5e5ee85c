"""The pairwise judge: two memories that look alike are a *duplicate*, a
*contradiction* or *distinct* — decided per pair, never by one similarity
threshold. What it reads, in any language: the values a memory pins down
(numbers, dates, names, vendor and product names), whether it is negated, and
whether the frame around the differing part takes one value or many.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Literal

from trulymem.dream import singles
from trulymem.dream.changes import retires
from trulymem.dream.polarity import denies, denies_plainly, negates_shared, opposite, polarity_only
from trulymem.dream.roles import other_holder
from trulymem.dream.similarity import ABBREVIATIONS, cjk, common_ends, negated, without_negation, words
from trulymem.dream.values import maybe_same_date, rates_to_compare, special_values, value_sequence, without_numbers
from trulymem.dream.vocab import CANON, GENERIC, MULTI_VALUED, MULTI_VALUED_PHRASES, OWNER_WORDS

Verdict = Literal["duplicate", "contradiction", "distinct"]
Judged = Literal["duplicate", "contradiction", "distinct", "ambiguous"]
_CJK_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*(?:%|k|m|gb|mb|ms|s|h|d)?(?![\w])|\d+(?=[天月日年岁号点个次%])",
                     re.IGNORECASE)
_ZH_NUMBER = re.compile(r"[零一二两三四五六七八九十百千万]+(?=[天月日年岁号点个次周])")
_MONTHS = ("january february march april may june july august september october november december "
           "jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday "
           "sunday").split()
# capitalised only: "may" and "march" are words too ("Interns may use the staging cluster")
_MONTH = re.compile(r"\b(?:" + "|".join(m.capitalize() for m in _MONTHS) + r")\b")
# Names written in Latin letters: capitalised words after the first, ALL-CAPS, identifiers with digits or dots.
# A word with a capital inside ("MariaDB", "CockroachDB") is a name even where a sentence starts.
_NAME = re.compile(r"(?<=[\w,;:'’)] )[A-Z][\w.+#-]*|\b[A-Z]{2,}[\w.+-]*|\b[A-Za-z]+\d[\w.]*|"
                   r"(?<![A-Za-z0-9_.])[A-Za-z0-9_]+\.[A-Za-z0-9_]+(?![A-Za-z0-9_])|"
                   r"\b[A-Z][a-z]+[A-Z][\w.+#-]*|\b[a-z]{2,}-[a-z]+-\d{1,2}[a-z]?\b")  # and regions: eu-north-1
# Values written as words: number words, languages, weekdays (English and Chinese), one canonical key each.
_VALUE_WORDS = {w: k for k, ws in {
    "n1": "one 一个", "n2": "two 两个 二", "n3": "three 三个", "n4": "four 四个", "n5": "five 五个", "n6": "six 六个",
    "n7": "seven 七个", "n8": "eight 八个", "n9": "nine 九个", "n10": "ten 十个",
    "lang-en": "english 英文 英语", "lang-zh": "chinese 中文 汉语 普通话", "lang-ja": "japanese 日文 日语",
    "lang-fr": "french 法语 法文", "lang-de": "german 德语 德文", "lang-es": "spanish 西班牙语", "lang-ko": "korean 韩语",
    "lang-ru": "russian 俄语", "lang-pt": "portuguese 葡萄牙语", "lang-it": "italian 意大利语",
    "d1": "星期一 周一", "d2": "星期二 周二", "d3": "星期三 周三", "d4": "星期四 周四", "d5": "星期五 周五",
    "d6": "星期六 周六", "d7": "星期日 星期天 周日",
}.items() for w in ws.split()}
_VALUE_WORD = re.compile(r"\b(?:" + "|".join(w for w in _VALUE_WORDS if w.isascii()) + r")\b|"
                         + "|".join(sorted((w for w in _VALUE_WORDS if not w.isascii()), key=len, reverse=True)),
                         re.IGNORECASE)
_PREDICATE = frozenset(words("is are was were be been has have had lives works likes loves plays owns speaks "
                             "uses prefers moved studies teaches runs drives goes wants needs knows")) | \
    frozenset("住养喜爱读学做当有")  # Chinese verbs that start a fact about someone (住在成都 / 是一名律师)


@lru_cache(maxsize=131_072)
def _seen(text: str) -> tuple[tuple[str, ...], frozenset[str], bool]:
    """A memory's words, values and negation, read once however many pairs it is in."""
    return tuple(words(text)), frozenset(values(text)), negated(text)


_ZH_DIGITS = {ch: k for k, ch in enumerate("零一二三四五六七八九十")} | {"两": 2}
_LATIN_IN_CJK = re.compile(r"(?<![A-Za-z0-9.])[A-Za-z][A-Za-z0-9.+#-]*")


def _small_number(token: str) -> str:
    """One key for a small count however written ("2", "two", "两", "二"), so they never clash;
    a time on the hour is its hour ("10:00" is "10 am" is "10点")."""
    if re.fullmatch(r"\d{1,2}:00", token):
        token = token.split(":")[0]
    if token.isdigit() and 0 < int(token) <= 10:
        return f"n{int(token)}"
    if token in _ZH_DIGITS and _ZH_DIGITS[token] > 0:
        return f"n{_ZH_DIGITS[token]}"
    return token if token[:1].isdigit() else f"zh:{token}"


@lru_cache(maxsize=131_072)  # per text, read in every pair it is in (templated memories: thousands)
def values(text: str) -> frozenset[str]:
    """What a memory pins down: numbers (with units), month and day names, Latin-letter
    names (in Chinese text, every Latin-letter word: "订单存在PostgreSQL里"). Dates, times and
    quantities are read first, one key each however written (``dream.values``)."""
    special, text = special_values(text)
    found = {_small_number(m.group(0).casefold()) for m in _NUMBER.finditer(text)}
    found |= {_small_number(m.group(0)) for m in _ZH_NUMBER.finditer(text)}
    if cjk(text):
        found |= {m.group(0).casefold().rstrip(".") for m in _LATIN_IN_CJK.finditer(text)}
    found |= {m.group(0).casefold() for m in _MONTH.finditer(text)}
    found |= {ABBREVIATIONS.get(n, n) for n in (m.group(0).casefold().strip(".") for m in _NAME.finditer(text))}
    words_found = {_VALUE_WORDS[m.group(0).casefold()] for m in _VALUE_WORD.finditer(text)}
    # a language or number named in words stands for itself, not as a Latin-letter name too
    found -= {m.group(0).casefold() for m in _VALUE_WORD.finditer(text)}
    return frozenset(found | words_found | special)


def value_clash(a: str, b: str) -> tuple[set[str], set[str]] | None:
    """The values only one side has, when both sides have some the other lacks ("30天" vs
    "14天", "OSS" vs "COS", "March 3" vs "May 3"); ``None`` when they do not clash.
    A memory that only adds a value to the other ("Use pnpm" / "Use pnpm 9") does not clash."""
    va, vb = _seen(a)[1], _seen(b)[1]
    only_a = rates_to_compare({v for v in va - vb if not _also_said(v, b)}, vb)
    only_b = rates_to_compare({v for v in vb - va if not _also_said(v, a)}, va)
    if only_a and only_b and same_numbers(a, b):  # "twelve" / "12", "50k" / "50,000": one number twice written
        only_a, only_b = {v for v in only_a if not NUMERIC.fullmatch(v)}, {v for v in only_b if not NUMERIC.fullmatch(v)}
    return (only_a, only_b) if only_a and only_b else None


def numbers_spelled_apart(a: str, b: str) -> bool:
    """The same words around the same numbers in the same order, only written otherwise."""
    return a != b and same_numbers(a, b) and value_sequence(a) == value_sequence(b) and \
        words(without_numbers(a)) == words(without_numbers(b))


NUMERIC = re.compile(r"n?\d[\d.,:]*(?:%|k|m|gb|mb|ms|s|h|d)?", re.IGNORECASE)


def same_numbers(a: str, b: str) -> bool:
    na, nb = (sorted(v for v in value_sequence(t) if v.startswith("n:")) for t in (a, b))
    return bool(na) and na == nb


_WORDLIKE = re.compile(r"[a-z][a-z0-9.+#-]*")
_CAPITALISED = re.compile(r"\b[A-Z][\w-]*")


@lru_cache(maxsize=131_072)
def _also_said(value: str, other: str) -> bool:
    """A name the other memory says too, where only one side read it as a name (a sentence's
    first word: "Maya lives in Porto" / "Maya 现在住在布拉加"), or the initials of a name the
    other spells out ("FCM" / "Firebase Cloud Messaging")."""
    if not _WORDLIKE.fullmatch(value):
        return False
    stem = value[:-1] if value.endswith("s") and len(value) > 3 else value  # "GeoTIFFs" is "GeoTIFF"
    if re.search(rf"(?<![\w.+#-]){re.escape(stem)}s?(?![\w+#-]|\.\w)", other.casefold()):
        return True
    initials = "".join(m.group(0)[0] for m in _CAPITALISED.finditer(other)).casefold()
    return 2 <= len(value) <= 5 and value.isalpha() and value in initials


def many_valued(a: str, b: str) -> bool:
    """The frame takes many values at once ("speaks French" and "speaks Japanese")."""
    shared = set(_seen(a)[0]) & set(_seen(b)[0])
    return bool(shared & MULTI_VALUED) or any(w in a.casefold() and w in b.casefold() for w in MULTI_VALUED_PHRASES)


def _same_ending(a: str, b: str) -> bool:
    """Both end in the same statement ("svc-3 uses Redis" / "svc-7 uses Redis"): what
    differs comes before it, so they are about different things, not different values.
    A shared unit, noun or character ("30天" / "14天", "in YAML files" / "in TOML files") is
    not a statement: it takes two words, or a verb."""
    x, y = _seen(a)[0], _seen(b)[0]
    _, q = common_ends(x, y)
    tail = x[len(x) - q:]
    return 0 < q < min(len(x), len(y)) and (q >= 2 or any(t in _PREDICATE for t in tail))


# How alike two memories' frames are with their values masked ("The orders service stores its
# data in X" / "订单服务的数据存在X里"): a sentence encoder's cosine, the one way to tell across
# languages that two values fill one slot.
FrameSimilarity = Callable[[str, str], float]
FRAME_MATCH = 0.7         # across languages
FRAME_MATCH_WORDS = 0.65  # in one language, where the words around the values already line up
CROSS_SURE = 0.6          # a cross-language pair with no name to check: the encoder alone must be this sure


def judge(a: str, b: str, frames: FrameSimilarity | None = None, similarity: float | None = None) -> Judged:
    """Two memories already found alike (by wording or meaning): what are they to each other?
    Negation and opposite markers first, then the values each pins down, then the frame
    around what differs, then language; ``ambiguous`` when the rules cannot tell (a model
    decides, or nothing is merged). ``similarity``: the pair's cosine, where an encoder found it."""
    one_language = cjk(a) == cjk(b)
    if one_language and numbers_spelled_apart(a, b):
        return "duplicate"  # "twelve cousins" / "12 cousins": whether to merge is the gate's to prove
    verdict = _by_change(a, b, one_language) or _by_role(a, b) or _by_single(a, b) or _by_negation(a, b, one_language) or \
        _by_values(a, b, one_language, frames) or _by_frame(a, b, one_language)
    return verdict or _by_language(a, b, one_language, similarity)


@lru_cache(maxsize=131_072)
def masked(text: str, other: str | None = None) -> str:
    """The memory with its values (dates, times, quantities, numbers, names, Latin words in
    Chinese text) as "X"; with ``other``, a name both say stays (the subject of both:
    "iOS 4.0 版本定在X发布" / "The iOS 4.0 release is scheduled for X")."""
    keep = other.casefold() if other is not None else ""

    def mask(m: re.Match[str]) -> str:
        return m.group(0) if keep and m.group(0).casefold().strip(".") in keep else "X"
    out = " ".join(_NUMBER.sub("X", special_values(text, "X")[1]).split()) if other is None else \
        " ".join(special_values(text, "X")[1].split())
    out = _LATIN_IN_CJK.sub(mask, out) if cjk(text) else _NAME.sub(mask, _MONTH.sub("X", out))
    return out if other is None else _NUMBER.sub(mask, out)


def _by_change(a: str, b: str, one_language: bool) -> Judged | None:
    """A change statement retires what the other says ("We ripped out webpack; …" / "The
    frontend is bundled with webpack")."""
    return "contradiction" if retires(a, b) or retires(b, a) else None


def _by_single(a: str, b: str) -> Judged | None:
    """One place of home, one favourite of a kind: "用户住在大连" / "用户目前定居在烟台"."""
    return "contradiction" if singles.differ(a, b) else "distinct" if singles.other_attribute(a, b) else None


def _by_role(a: str, b: str) -> Judged | None:
    """One holder at a time: "Dev owns the ledger service" / "Hana owns the ledger service"."""
    return "contradiction" if other_holder(a, b) else None


def _by_negation(a: str, b: str, one_language: bool) -> Judged | None:
    # in English only: a Chinese character is too small a word to tell what a negation governs
    if one_language and not cjk(a) and _seen(a)[2] and _seen(b)[2] and (denies_plainly(a, b) or denies_plainly(b, a)):
        return "contradiction"  # "has no offline mode" / "has an offline mode … without signal"
    if _seen(a)[2] != _seen(b)[2]:
        if denies(a, b):
            return "contradiction"  # "likes jazz" / "doesn't like jazz": a many-valued frame, one value denied
        if not opposite(a, b) and (not one_language or negates_shared(a, b)):
            # the negation may well govern what they share ("不允许mock数据库" / "同意mock数据库"),
            # or cannot be read across languages: never one memory
            return "ambiguous"
    if opposite(a, b) and (not one_language or shared_content(a, b)):
        return "contradiction"  # "deploys happen automatically" / "需要手动触发部署"
    return None


def _by_values(a: str, b: str, one_language: bool, frames: FrameSimilarity | None) -> Judged | None:
    if maybe_same_date(a, b):
        return "ambiguous"  # "03/04" / "April 3"
    clash = value_clash(a, b)
    if clash is None:
        ka, kb = special_values(a)[0], special_values(b)[0]
        if ka and kb and (ka <= kb or kb <= ka):
            return None  # the same days, dates or times written otherwise ("Mon/Wed" / "Mondays and Wednesdays")
        if polarity_only(*_middles(a, b)[:2]):
            return None  # "is not allowed" / "is forbidden": one prohibition, two wordings
        if not one_language or not (_one_slot(a, b) or (not cjk(a) and (_end_swap(a, b) or _diverge(a, b)))):
            return None
        # one slot, two values written as plain words ("prefers dark mode" / "light mode",
        # "called master" / "named main"): a disagreement, unless the frame takes many values
        mx, my, p, _ = _middles(a, b)
        many = many_valued(a, b) or (p > 0 and different_predicates(list(mx), list(my))) or other_subjects(a, b)
        return "distinct" if many else "contradiction"
    if not one_language:  # the words around the values cannot be compared: the frames' meaning can
        if many_valued(a, b) or frames is None or frames(masked(a, b), masked(b, a)) < FRAME_MATCH:
            return "ambiguous"
        return "contradiction"
    if frames is not None and frames(masked(a), masked(b)) < FRAME_MATCH_WORDS:
        return "distinct"  # values in two different statements ("hand-off every Wednesday" / "Dependabot PRs")
    if other_owner(a, b) or _other_slots(clash) or _start_and_end(a, b):
        return "distinct"  # "The user's birthday …" / "The user's mother's birthday …"
    counts = all(v[:1].isdigit() or v.startswith("n") and v[1:].isdigit() for side in clash for v in side)
    # "has two bedrooms" / "has three bedrooms": a count is one value even where the verb takes many
    many = many_valued(a, b) and not counts
    # a date, time, quantity or frequency that differs is a value, whatever wording follows it
    keyed = all(_measure(v) for side in clash for v in side)
    ending = not keyed and _same_ending(a, b)
    return "distinct" if many or ending or _two_places(a, b) or other_subjects(a, b) else "contradiction"


def _measure(value: str) -> bool:
    """A date, time, quantity, frequency or share: a value whatever wording surrounds it."""
    return ":" in value or value.endswith("%")


def _kinds(values_: set[str]) -> set[str]:
    """"name" and/or "measure"; a number that is part of a name on the same side ("2" in
    "us-east-2") is the name's."""
    names = [v for v in values_ if not (_measure(v) or NUMERIC.fullmatch(v))]
    measures = [v for v in values_ if v not in names
                and not ((digits := re.sub(r"\D", "", v)) and any(digits in n for n in names))]
    return ({"name"} if names else set()) | ({"measure"} if measures else set())


def _other_slots(clash: tuple[set[str], set[str]]) -> bool:
    """What differs is not one slot: a name on one side, a date or amount on the other ("[Piotr]"
    / "1:1 … on [Wednesdays]"), or a name and a date on both ("[v1.0] was released on [9 Jan]" /
    "[v2.0] shipped on [20 May]": two releases)."""
    ka, kb = _kinds(clash[0]), _kinds(clash[1])
    return not ka & kb or len(ka) == len(kb) == 2


_START = re.compile(r"\b(?:begins?|began|begun|starts?|started|kicked off|kicks off|launch(?:ed|es)?|opened)\b|开始|启动|"
                    r"上线|开工", re.IGNORECASE)
_END = re.compile(r"\b(?:complete[ds]?|finish(?:ed|es)?|ends?|ended|wrapped up|closed|was done)\b|完成|结束|收尾|完工",
                  re.IGNORECASE)


def _start_and_end(a: str, b: str) -> bool:
    """The start of something and its end are two dates ("The migration began on 3 February" /
    "… was completed on 20 March"), not one date said twice."""
    (sa, ea), (sb, eb) = _start_end(a), _start_end(b)
    return (sa and not ea and eb and not sb) or (ea and not sa and sb and not eb)


@lru_cache(maxsize=131_072)
def _start_end(text: str) -> tuple[bool, bool]:
    return bool(_START.search(text)), bool(_END.search(text))


def other_owner(a: str, b: str) -> bool:
    """One is about the user's thing, the other about someone else's of the same kind."""
    ca, cb = _owner_chains(a), _owner_chains(b)
    return bool(ca and cb) and ca != cb and (ca[:len(cb)] == cb or cb[:len(ca)] == ca or ca[0] == cb[0])


def _by_frame(a: str, b: str, one_language: bool) -> Judged | None:
    if other_subjects(a, b) or _two_places(a, b, small=4) or other_owner(a, b):
        return "distinct"  # "[Alice] reviews [frontend] code" / "[Bob] reviews [backend] code"
    mx, my, p, _ = _middles(a, b)
    if p > 0 and different_predicates(list(mx), list(my)):
        return "distinct"  # "Felix lives in Boston" / "Felix is a nurse": two facts about one person
    if many_valued(a, b) and _own_content(a, b) and _own_content(b, a):
        return "distinct"  # "用户喜欢看科幻小说" / "用户也喜欢看悬疑电影": another value of a many-valued thing
    if one_language and not shared_content(a, b):
        return "ambiguous"  # only the embedder says they are alike
    return None


def _by_language(a: str, b: str, one_language: bool, similarity: float | None) -> Judged:
    if not one_language:  # a name in Latin letters must be in the other too ("Suzhou" / "厦门": cannot tell)
        latin, other = (b, a) if cjk(a) else (a, b)
        names = {v for v in _seen(latin)[1] if not v[:1].isdigit()}
        if any(v not in other.casefold() and v not in _seen(other)[1] for v in names):
            return "ambiguous"
        if not names and similarity is not None and similarity < CROSS_SURE:
            return "ambiguous"  # nothing to check but the encoder, and it is not sure
    return "duplicate"


def _span(tokens: list[str]) -> int:
    """Words in a differing part; a run of up to three Chinese characters is one word."""
    return 1 if tokens and len(tokens) <= 3 and all(_CJK_CHAR.match(t) for t in tokens) else len(tokens)


def _one_slot(a: str, b: str) -> bool:
    """The same wording with one short part swapped for another that shares nothing with it
    (synonyms as one), around something said ("Our office is in [the suburbs]")."""
    mx, my, p, q = _middles(a, b)
    left, right = [t for t in mx if t not in GENERIC], [t for t in my if t not in GENERIC]
    if not left or not right or max(_span(left), _span(right)) > 2:
        return False
    if {CANON.get(t, t) for t in left} & {CANON.get(t, t) for t in right}:
        return False
    seq = _seen(a)[0]
    around = [t for t in (*seq[:p], *seq[len(seq) - q:]) if t not in GENERIC and t not in OWNER_WORDS]
    return bool(around)


def _diverge(a: str, b: str) -> bool:
    """A long shared beginning, then each goes its own way from a word the other never says
    ("Pull requests land on main via [squash], so …" / "… via [rebase], keeping …")."""
    x = [CANON.get(t, t) for t in _seen(a)[0] if t not in GENERIC]
    y = [CANON.get(t, t) for t in _seen(b)[0] if t not in GENERIC]
    p, _ = common_ends(x, y)
    if len([t for t in x[:p] if t not in OWNER_WORDS]) < 3 or p >= min(len(x), len(y)):
        return False
    return x[p] not in y[p:] and y[p] not in x[p:] and x[p] not in _PREDICATE and y[p] not in _PREDICATE


def _end_swap(a: str, b: str) -> bool:
    """All but the last word of one is said by the other (synonyms as one), and the last
    words differ and appear nowhere else: one slot, at the end, with two values written
    as plain words ("called master" / "named main"). A negation is no word of the frame."""
    x = [CANON.get(t, t) for t in without_negation(_seen(a)[0]) if t not in GENERIC]
    y = [CANON.get(t, t) for t in without_negation(_seen(b)[0]) if t not in GENERIC]
    if len(x) < 3 or len(y) < 3 or x[-1] == y[-1] or x[-1] in y or y[-1] in x:
        return False
    short, long_ = (x, y) if len(x) <= len(y) else (y, x)
    return set(short[:-1]) <= set(long_[:-1]) and bool(set(short[:-1]) - OWNER_WORDS)


def _own_content(a: str, b: str) -> bool:
    """``a`` says something ``b`` does not: a content word (synonyms as one) missing from ``b``."""
    have = {CANON.get(t, t) for t in _seen(b)[0]}
    return any(CANON.get(t, t) not in have for t in _seen(a)[0] if t not in GENERIC and t not in OWNER_WORDS
               and without_negation([t]))


def _middles(a: str, b: str) -> tuple[tuple[str, ...], tuple[str, ...], int, int]:
    x, y = _seen(a)[0], _seen(b)[0]
    p, q = common_ends(x, y)
    return x[p:len(x) - q], y[p:len(y) - q], p, q


def _two_places(a: str, b: str, *, small: int | None = None) -> bool:
    """They differ in two places with shared words between ("The [production] Redis node is a
    [cache.r6g.large]" / "The [staging] Redis node is a [cache.t3.small]"): another subject
    with another value, not one slot with two values. ``small``: at most that many differing
    words a side (two short swaps, not a paraphrase that shares a few words)."""
    mx, my, _, _ = _middles(a, b)
    if special_values(a)[0] == special_values(b)[0]:  # one date, time or frequency both say ("[every nightly]" /
        agreed = _in_values(a) | _in_values(b)       # "[nightly]") is no place where they differ
        mx, my = (tuple(t for t in seq if t not in agreed) for seq in (mx, my))
    # synonyms are one word between ("The user's [dog] is called [Biscuit]" / "… [manager] is named [Karen]")
    if cjk(a) == cjk(b):  # in one language, and words only: a Chinese character alone is no synonym (用 ≠ use)
        mx, my = (tuple(t if _CJK_CHAR.match(t) else CANON.get(t, t) for t in seq) for seq in (mx, my))
    # a shared Chinese character ("云" in 阿里云 / 腾讯云) is part of the values, not a word between
    # them; two in a row ("负责" in 李娜负责后端 / 张伟负责前端) are a word
    pairs = set(zip(mx, mx[1:])) & set(zip(my, my[1:]))
    shared = {t for t in (set(mx) & set(my)) - _ADVERBS - OWNER_WORDS if len(t) > 1}
    shared |= {t for pair in pairs for t in pair if _CJK_CHAR.match(t)}
    # a number or month both name ("July" in "July 14" / "July 4") is part of the value, not a word
    # between; a name both say is ("报表 [DAG 的 SLA] 是 4 小时" / "采集 …")
    common = set(words(" ".join(_seen(a)[1] & _seen(b)[1])))
    shared -= {t for t in common if t.isdigit() or _MONTH.fullmatch(t.capitalize())} | (_in_values(a) & _in_values(b))

    def between(seq: tuple[str, ...]) -> bool:
        inside = [k for k, t in enumerate(seq) if t in shared]
        return bool(inside) and any(t not in shared for t in seq[:inside[0]]) and \
            any(t not in shared for t in seq[inside[-1] + 1:]) and \
            (small is None or sum(t not in shared for t in seq) <= small)
    return between(mx) and between(my)


_ADVERBS = GENERIC - frozenset(words("use make get go set put keep take give do done"))  # verbs separate


def _in_values(text: str) -> set[str]:
    """The words inside a date, time or quantity ("July" in "July 14")."""
    return set(words(text)) - set(words(special_values(text)[1]))


def shared_content(a: str, b: str) -> bool:
    """They share a word that says what they are about (not just whom: "user", "用户")."""
    return bool((set(_seen(a)[0]) & set(_seen(b)[0])) - OWNER_WORDS - GENERIC)


_POSSESSIVE = re.compile(r"^(?:the\s+|our\s+|my\s+)?((?:[\w-]+(?:\s+[\w-]+)?['’]s\s+)+)", re.IGNORECASE)
_ZH_POSSESSIVE = re.compile(r"^((?:[^的，。\s]{1,4}的)+)")


def _owner_chains(text: str) -> tuple[str, ...]:
    """Whose thing a memory is about: "The user's mother's birthday" → (user, mother),
    "用户的妈妈的生日" → (用户, 妈妈)."""
    m = _POSSESSIVE.match(text.strip())
    if m:
        return tuple(p.strip().casefold() for p in re.split(r"['’]s\s+", m.group(1)) if p.strip())
    m = _ZH_POSSESSIVE.match(text.strip())
    return tuple(p for p in m.group(1).split("的") if p) if m else ()


def other_subjects(a: str, b: str) -> bool:
    """The same frame around different subjects: "用户的[表姐陈静]住在南京" / "用户的[同事老周]住在南京",
    "[iOS] release builds are uploaded by fastlane" / "[Android] …": the parts that differ come
    before a shared ending that says something (not only a value) and have no word in common."""
    mx, my, p, q = _middles(a, b)
    mid_x = {CANON.get(t, t) for t in mx} - GENERIC - OWNER_WORDS
    mid_y = {CANON.get(t, t) for t in my} - GENERIC - OWNER_WORDS
    if mid_x & mid_y and all(_CJK_CHAR.match(t) for t in mid_x & mid_y) and \
            not _bigrams(mx) & _bigrams(my):
        mid_y = mid_y - mid_x  # one Chinese character in common ("发小阿杰" / "同事小林") is not a shared word
    seq = _seen(a)[0]
    # an ending that is only a value ("works at [Acme Corp]" / "'s employer is [Acme Corp]") is
    # what both say, not a frame around two subjects
    frame = set(seq[len(seq) - q:]) - set(words(" ".join(_seen(a)[1]))) - GENERIC
    # what precedes the swap is a shared subject ("用户的[…]住在南京"), whose ("The user's [son]
    # takes chess lessons …"), or nothing ("The [refunds] service publishes …")
    vals = set(words(" ".join(_seen(a)[1] | _seen(b)[1]))) | _in_values(a) | _in_values(b)
    if all(t in vals or t.isdigit() for t in mid_x | mid_y):
        return False  # what differs is a value ("生日是[3]月3日" / "[5]月3日"), not whom it is about
    quantities = _in_values(a) | _in_values(b)
    if any(mid and all(t.isdigit() or t in quantities for t in mid) for mid in (mid_x, mid_y)):
        return False  # one side differs only in a number ("目标是[300]毫秒" / "目标[收紧到了150]毫秒"): no subject
    return (q >= 2 or _verb_in_ending(a, b)) and bool(mid_x) and bool(mid_y) and not mid_x & mid_y and bool(frame)


def _bigrams(seq: tuple[str, ...]) -> set[tuple[str, str]]:
    return set(zip(seq, seq[1:]))


_RAW_WORD = re.compile(r"[\w'’.-]+")
_COPULAS = frozenset("is are was were has have had 是".split())


def _verb_in_ending(a: str, b: str) -> bool:
    """The wording both end in has a verb ("… Ilse [is a sommelier]" / "… Ravi [is a sommelier]"):
    what differs is the subject, not a value ("in [YAML] files" / "in [TOML] files")."""
    x, y = _RAW_WORD.findall(a.casefold()), _RAW_WORD.findall(b.casefold())
    _, q = common_ends(x, y)
    return any(w in _COPULAS or (words(w)[:1] or [""])[0] in _PREDICATE for w in x[len(x) - q:])


def different_predicates(left: list[str], right: list[str]) -> bool:
    """Two statements about one thing, not two values of one attribute: "Mei lives in
    Denver" / "Mei is a pilot" differ from their predicate on (synonyms as one; a
    predicate the other side has further on is the same statement reordered)."""
    if not (left and right):
        return False
    lc, rc = [CANON.get(t, t) for t in left], [CANON.get(t, t) for t in right]
    return (left[0] in _PREDICATE and lc[0] not in rc) or (right[0] in _PREDICATE and rc[0] not in lc)

