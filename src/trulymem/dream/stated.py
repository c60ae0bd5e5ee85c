"""What a memory states: the values it pins down (numbers, dates, times, quantities,
month and day names, Latin-letter names, languages and counts written as words, one key
each however written), its words and whether it is negated — read once per text, for
the judge and the gate to compare."""

from __future__ import annotations

import re
from functools import lru_cache

from trulymem.dream.amounts import CURRENCY_CODES, value_sequence, without_numbers
from trulymem.dream.numerals import zh_number
from trulymem.dream.similarity import ABBREVIATIONS, cjk, negated, words
from trulymem.dream.values import rates_to_compare, special_values
from trulymem.dream.vocab import CANON, LIMIT, MULTI_VALUED, MULTI_VALUED_PHRASES, TRAVEL_PHRASES

CJK_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

# a number may stand right after or before a Chinese character ("满69元", "柜号是208"): only Latin letters and
# digits around it make it part of a name ("XP-420B", "M03")
NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:[.,:]\d+)*(?:%|k|m|gb|mb|ms|s|h|d)?(?![A-Za-z0-9_])|\d+(?=[天月日年岁号点个次%])",
                     re.IGNORECASE)
# a Chinese number with its measure word (两只, 三本, 五天)
# (一 alone before a cup, a box, a family … is the article "a": 一盒卖39元 is "a box sells for 39")
_ZH_DIGITS = "[零一二两三四五六七八九十][零一二两三四五六七八九十百千万]*"
_ARTICLE_MEASURES = "杯瓶碗份支双把包盒袋颗粒片顿趟圈场节门家间所座篇首盆棵头口名人"
ZH_NUMBER = re.compile(rf"{_ZH_DIGITS}(?=[天月日年岁号点个次周只条本辆台部张件套位块元])|"
                       rf"(?!一[{_ARTICLE_MEASURES}]){_ZH_DIGITS}(?=[{_ARTICLE_MEASURES}])")
_MONTHS = ("january february march april may june july august september october november december "
           "jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday "
           "sunday").split()
# capitalised only: "may" and "march" are words too ("Interns may use the staging cluster")
MONTH = re.compile(r"\b(?:" + "|".join(m.capitalize() for m in _MONTHS) + r")\b")
# Names written in Latin letters: capitalised words after the first, ALL-CAPS, identifiers with digits or dots.
# A word with a capital inside ("MariaDB", "CockroachDB") is a name even where a sentence starts.
_L = r"[^\W\u3400-\u9fff]"  # a letter or digit of a Latin-letter name: "Commons工作" is "Commons" and a Chinese word
NAME = re.compile(rf"(?<=[\w,;:'’)] )[A-ZÀ-ÖØ-Þ](?:{_L}|[.+#-])*|\b[A-Z]{{2,}}(?:{_L}|[.+-])*|\b[A-Za-z]+\d(?:{_L}|\.)*|"
                   r"(?<![A-Za-z0-9_.])[A-Za-z0-9_]+\.[A-Za-z0-9_]+(?![A-Za-z0-9_])|(?<![\w.])\.[A-Za-z][\w-]*(?:\.[\w-]+)*|"
                   rf"\b[A-Z][a-z]+[A-Z](?:{_L}|[.+#-])*|\b[a-z]{{1,4}}[A-Z](?:{_L}|[.+#-])*|"  # iPhone, macOS, eBay
                   rf"\b[a-z]{{2,}}-[a-z]+-\d{{1,2}}[a-z]?\b")  # and regions: eu-north-1
# Values written as words: number words, languages, weekdays (English and Chinese), one canonical key each.
VALUE_WORDS = {w: k for k, ws in {
    "n1": "one 一个", "n2": "two 两个 二", "n3": "three 三个", "n4": "four 四个", "n5": "five 五个", "n6": "six 六个",
    "n7": "seven 七个", "n8": "eight 八个", "n9": "nine 九个", "n10": "ten 十个",
    "lang-en": "english 英文 英语", "lang-zh": "chinese 中文 汉语 普通话", "lang-ja": "japanese 日文 日语",
    "lang-fr": "french 法语 法文", "lang-de": "german 德语 德文", "lang-es": "spanish 西班牙语", "lang-ko": "korean 韩语",
    "lang-ru": "russian 俄语", "lang-pt": "portuguese 葡萄牙语", "lang-it": "italian 意大利语",
    "d1": "星期一 周一", "d2": "星期二 周二", "d3": "星期三 周三", "d4": "星期四 周四", "d5": "星期五 周五",
    "d6": "星期六 周六", "d7": "星期日 星期天 周日",
}.items() for w in ws.split()}
_VALUE_WORD = re.compile(r"\b(?:" + "|".join(w for w in VALUE_WORDS if w.isascii()) + r")\b|"
                         + "|".join(sorted((w for w in VALUE_WORDS if not w.isascii()), key=len, reverse=True)),
                         re.IGNORECASE)
PREDICATE = frozenset(words("is are was were be been has have had lives works likes loves plays owns speaks "
                             "uses prefers moved studies teaches runs drives goes wants needs knows")) | \
    frozenset("住养喜爱读学做当有")  # Chinese verbs that start a fact about someone (住在成都 / 是一名律师)


@lru_cache(maxsize=131_072)
def seen(text: str) -> tuple[tuple[str, ...], frozenset[str], bool]:
    """A memory's words, values and negation, read once however many pairs it is in."""
    return tuple(words(text)), frozenset(values(text)), negated(text)


ZH_DIGITS = {ch: k for k, ch in enumerate("零一二三四五六七八九十")} | {"两": 2}
_LATIN = "A-Za-zÀ-ÖØ-öø-ɏ"  # with diacritics: "Grünerløkka" is one name, not "Gr", "nerl", "kka"
LATIN_IN_CJK = re.compile(rf"(?<![{_LATIN}0-9.])[{_LATIN}][{_LATIN}0-9.+#-]*")


def _small_number(token: str) -> str:
    """One key for a small count however written ("2", "two", "两", "二"), so they never clash;
    a time on the hour is its hour ("10:00" is "10 am" is "10点")."""
    if re.fullmatch(r"\d{1,2}:00", token):
        token = token.split(":")[0]
    if token.isdigit() and 0 < int(token) <= 10:
        return f"n{int(token)}"
    if token in ZH_DIGITS and ZH_DIGITS[token] > 0:
        return f"n{ZH_DIGITS[token]}"
    return token if token[:1].isdigit() else f"zh:{token}"


@lru_cache(maxsize=131_072)  # per text, read in every pair it is in (templated memories: thousands)
def values(text: str) -> frozenset[str]:
    """What a memory pins down: numbers (with units), month and day names, Latin-letter
    names (in Chinese text, every Latin-letter word: "订单存在PostgreSQL里"). Dates, times and
    quantities are read first, one key each however written (``dream.values``)."""
    special, text = special_values(text)
    found = {_small_number(m.group(0).casefold()) for m in NUMBER.finditer(text)}
    found |= {_small_number(m.group(0) if (n := zh_number(m.group(0))) is None else str(n))
              for m in ZH_NUMBER.finditer(text)}  # 二十一本 = 21本
    if cjk(text):
        found |= {m.group(0).casefold().rstrip(".") for m in LATIN_IN_CJK.finditer(text)}
    found |= {m.group(0).casefold() for m in MONTH.finditer(text)}
    found |= {ABBREVIATIONS.get(n, n) for n in (m.group(0).casefold().strip(".") for m in NAME.finditer(text))}
    words_found = {VALUE_WORDS[m.group(0).casefold()] for m in _VALUE_WORD.finditer(text)}
    # a language or number named in words stands for itself, not as a Latin-letter name too; a
    # currency code is the amount's ("USD 4,500" is "$4,500"), compared in value_sequence
    found -= {m.group(0).casefold() for m in _VALUE_WORD.finditer(text)} | CURRENCY_CODES
    return frozenset(found | words_found | special)


@lru_cache(maxsize=131_072)  # asked of both sides of every judged pair
def bounded(text: str) -> bool:
    """The memory states a bound on an amount ("limits coffee to 2 cups", "maximum upload size")."""
    return LIMIT.search(text) is not None


@lru_cache(maxsize=131_072)  # per pair, asked by the judge, the gate and the review list
def value_clash(a: str, b: str) -> Clash | None:
    """The values only one side has, when both sides have some the other lacks ("30天" vs
    "14天", "OSS" vs "COS", "March 3" vs "May 3"); ``None`` when they do not clash.
    A memory that only adds a value to the other ("Use pnpm" / "Use pnpm 9") does not clash."""
    va, vb = seen(a)[1], seen(b)[1]
    if va <= vb or vb <= va:
        return None  # one side adds values, or none differ: no clash, whatever is said alike
    only_a = {v for v in va - vb if not _also_said(v, b)}
    only_b = {v for v in vb - va if not _also_said(v, a)} if only_a else set()
    if not (only_a and only_b):
        return None
    only_a, only_b = rates_to_compare(only_a, vb), rates_to_compare(only_b, va)
    only_a, only_b = only_a - _abbreviations(a, only_a, only_b), only_b - _abbreviations(b, only_b, only_a)
    if _day_without_year(vb):
        only_a -= _year_of(only_a)
    if _day_without_year(va):
        only_b -= _year_of(only_b)
    if only_a and only_b and same_numbers(a, b, currency=False):  # "twelve" / "12", "50k" / "50,000": one number
        only_a, only_b = {v for v in only_a if not NUMERIC.fullmatch(v)}, {v for v in only_b if not NUMERIC.fullmatch(v)}
    return (frozenset(only_a), frozenset(only_b)) if only_a and only_b else None


Clash = tuple[frozenset[str], frozenset[str]]  # the values only each side has

_YEAR = re.compile(r"(?:y:)?(1[89]\d\d|20\d\d)")


@lru_cache(maxsize=131_072)  # per memory's values, asked of both sides of every judged pair
def _day_without_year(vals: frozenset[str]) -> bool:
    return any(v.startswith("d:") for v in vals) and not any(v.startswith("y:") for v in vals)


def _year_of(own: set[str]) -> set[str]:
    """A year alone on one side where the other gives a day and month but no year ("adopted in
    2022" / "adoption day is 9 March"): parts of one date, not two values."""
    return {v for v in own if _YEAR.fullmatch(v)}


def _abbreviations(text: str, own: set[str], other: set[str]) -> set[str]:
    """The values written in capitals that shorten a word the other side has instead
    ("Austin, TX" / "Austin, Texas"): its letters, in order, from its first."""
    return {v for v in own if 2 <= len(v) <= 3 and v.isalpha() and other and re.search(rf"\b{v.upper()}\b", text)
            and any(w[:1] == v[0] and len(w) > len(v) and w.isalpha() and _in_order(v, w) for w in other)}


def _in_order(short: str, long: str) -> bool:
    rest = iter(long)
    return all(ch in rest for ch in short)


def numbers_spelled_apart(a: str, b: str) -> bool:
    """The same words around the same numbers in the same order, only written otherwise."""
    return a != b and same_numbers(a, b) and value_sequence(a) == value_sequence(b) and \
        words(without_numbers(a)) == words(without_numbers(b))


NUMERIC = re.compile(r"n?\d[\d.,:]*(?:%|k|m|gb|mb|ms|s|h|d)?", re.IGNORECASE)


def same_numbers(a: str, b: str, *, currency: bool = True) -> bool:
    """The same numbers, however written. ``currency=False``: a currency only one side names
    is the other's too ("月供12800" / "每月还 12,800 元"), never a clash (but not proof of one
    fact either)."""
    na, nb = (sorted(v for v in value_sequence(t) if v.startswith("n:")) for t in (a, b))
    if not currency and na != nb and not (any(map(_CURRENCY_MARK.match, na)) and any(map(_CURRENCY_MARK.match, nb))):
        na, nb = sorted(_CURRENCY_MARK.sub("n:", v) for v in na), sorted(_CURRENCY_MARK.sub("n:", v) for v in nb)
    return bool(na) and na == nb


_CURRENCY_MARK = re.compile(r"^n:-?(?:[A-Z]{1,3}\$|[$€£¥₹₩]|kr|CHF)")


_JOINED = re.compile(r"[\s-]+")


@lru_cache(maxsize=131_072)
def _joined(text: str) -> str:
    return _JOINED.sub("", text.casefold())
_WORDLIKE = re.compile(r"[^\W\d_][\w.+#-]*")
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
    if "-" in value and len(value) >= 5 and value.replace("-", "") in _joined(other):
        return True  # "BSD-3-Clause" / "BSD 3-Clause": one name, hyphenated otherwise
    initials = "".join(m.group(0)[0] for m in _CAPITALISED.finditer(other)).casefold()
    return 2 <= len(value) <= 5 and value.isalpha() and value in initials


# a synonym group whose one term is many-valued itself ("certified" / "certificate"); not a group that
# only shares a word with one ("own" is many-valued, "runs the ledger service" names one holder)
_MULTI_CANON = frozenset(CANON[t] for t in MULTI_VALUED if CANON.get(t) in MULTI_VALUED)


def many_valued(a: str, b: str) -> bool:
    """The frame takes many values at once ("speaks French" and "speaks Japanese")."""
    shared = set(seen(a)[0]) & set(seen(b)[0])
    if shared & MULTI_VALUED or _canon_words(a) & _canon_words(b) & _MULTI_CANON:  # synonyms as one
        return True
    la, lb = a.casefold(), b.casefold()
    return any(w in la and w in lb for w in MULTI_VALUED_PHRASES) or \
        (any(w in la for w in TRAVEL_PHRASES) and any(w in lb for w in TRAVEL_PHRASES))


@lru_cache(maxsize=131_072)
def _canon_words(text: str) -> frozenset[str]:
    return frozenset(CANON.get(t, t) for t in seen(text)[0])
