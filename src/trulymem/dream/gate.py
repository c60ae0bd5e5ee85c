"""What may change without a person or a model: a merge only of two memories that are
provably the same — the same values once normalised, the same people, the same
polarity, the same content words (synonyms as one) — and never a conflict between
two that are provably the same, about different people, or two values of a
many-valued thing. Everything else that looks alike goes to *review*.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Literal

from trulymem.dream.amounts import roughly_equal, value_sequence, without_numbers
from trulymem.dream.changes import moved_to, retires
from trulymem.dream.judge import Judged, _told_change, days_apart
from trulymem.dream.kinship import KIN, kin, kin_differs, people_differ
from trulymem.dream.numerals import EN_NUMBER
from trulymem.dream.polarity import denies, opposite, plain_denial
from trulymem.dream.similarity import cjk, negated, without_negation, words
from trulymem.dream.singles import PAST, differ, single
from trulymem.dream.stated import NUMERIC, bounded, same_numbers, seen, value_clash, values
from trulymem.dream.values import maybe_same_date, special_values
from trulymem.dream.vocab import CANON, CJK, GENERIC, MULTI_VALUED, OWNER_WORDS, WHEN_VERBS
from trulymem.dream.wording import _two_places, lead_name, only_the_subject_shared, shared_words

Gated = Literal["duplicate", "contradiction", "distinct", "review"]

# Synonyms that only identity needs (the judge's CANON covers the rest): one key each.
_SAME = {w: g.split()[0] for g in (
    "birthday born birth 生日 出生", "job work works worked profession occupation 工作", "employer company",
    "live lives living resides reside based 住", "home house", "prefer like likes love enjoy fond favor",
    "pet pets", "kid kids child children", "begin start starts started", "often frequently",
    "database db", "repository repo", "use uses using used rely relies", "via through", "every each 每",
) for w in words(g) + g.split()}
# Verbs and phrases whose objects add up: two objects are two facts, never a disagreement.
_MANY_EN = MULTI_VALUED | frozenset(words("listen listens listened speak speaks own owns visit visited collect play "
                                           "plays allergic allergy"))
_MANY_ZH = ("会说", "会讲", "养了", "养着", "养", "去过", "听", "过敏", "喜欢", "爱好", "会用", "有", "喝", "吃")
# words that turn a meaning around; stopword lists drop them, so they are compared apart
_TURN_WORD = re.compile(r"\b(?:before|after|on|off|up|down|over|under|above|below|into|out|from|to|onto|instead|"
                        r"only|will|would|should|must|might|may|can|could|used(?= to)|always|sometimes|often|rarely|"
                        r"usually|never|most|few|many|some|all|none|every|each|more|less|fewer|first|last|next|"
                        r"previous|earlier|later|than|with|without|except|unless|until|since|ago|yet|still|no longer|"
                        r"anymore|again|both|either|neither|same|different|min(?:imum)?|max(?:imum)?|at least|at most)\b")
_TURN_ZH = ("之前", "以前", "之后", "以后", "前", "后", "上", "下", "开", "关", "从", "到", "只", "会", "将", "曾", "已", "还",
            "都", "最", "多", "少", "至少", "至多", "不超过", "以上", "以下", "每", "再", "又", "先", "才")
_KEYED = re.compile(r"\w+:.*|[nd]\d+|lang-\w+|\d.*")  # normalised values: dates, times, counts, weekdays, languages
_NUMBER_WORDS = frozenset(EN_NUMBER) - {"a", "an"}


@lru_cache(maxsize=131_072)
def _reading(text: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """A memory's content words in order (one key per synonym group, without numbers,
    negation or filler) and the small words that turn a meaning around (before / after,
    on / off, from / to, will, used to, only …), which stopword lists drop."""
    keys, rest = special_values(text)
    rest = without_numbers(rest)  # numbers in any spelling are compared in order by value_sequence
    seq: list[str] = []
    for t in without_negation(words(rest)):
        if t in GENERIC or t in OWNER_WORDS or t.isdigit() or t in _NUMBER_WORDS:
            continue  # numbers are compared as values; a Chinese numeral outside one stays a word
        key = CANON.get(t, t)
        key = _SAME.get(key, _SAME.get(t, key))
        if not seq or seq[-1] != key:
            seq.append(key)
    low = rest.casefold()
    turns = {w for w in _TURN_WORD.findall(low)} | {w for w in _TURN_ZH if w in low}
    return tuple(seq), frozenset(turns)


def content(text: str) -> frozenset[str]:
    """What a memory says apart from its values and whom it is about: its content words,
    one key per synonym group."""
    return frozenset(_reading(text)[0])


def provably_same(a: str, b: str) -> bool:
    """Two memories that say one thing: one language, the same normalised values
    (``02:00 UTC`` = ``2am UTC``), the same people, the same polarity and markers, the
    same content words in the same order ("Alice reports to Bob" is not "Bob reports to
    Alice"), the same numbers in the same order with their signs and currencies ("3/4" is not
    "4/3", "$1500" not "€1500") and the same small words that turn a meaning (before / after, on / off)."""
    return a == b or (cjk(a) == cjk(b) and same_values(a, b) and value_sequence(a) == value_sequence(b)
                      and negated(a) == negated(b)
                      and not opposite(a, b) and not opposite(b, a) and not kin_differs(a, b)
                      and _reading(a) == _reading(b) and _order(a, b) == _order(b, a)
                      and bool(_PAST_TENSE.search(a)) == bool(_PAST_TENSE.search(b)))


# "Ana was the tech lead" is not "Ana is the tech lead": stems and stopword lists drop the tense
_PAST_TENSE = re.compile(PAST.pattern + r"|\b(?:was|were|had|previously|lived|worked|studied|owned|drove|led|"
                         r"managed|ran)\b", re.IGNORECASE)


def _order(text: str, other: str) -> tuple[str, ...]:
    """The names either memory gives, in the order this one says them ("from MySQL to
    PostgreSQL")."""
    low = text.casefold()
    names = {v for v in values(text) | values(other) if not _KEYED.fullmatch(v)}
    return tuple(v for _, v in sorted((low.find(v), v) for v in names if v in low))


def same_values(a: str, b: str) -> bool:
    """The same normalised values; a name read as a value on one side only (where it is
    capitalised mid-sentence: "Use PostgreSQL" / "PostgreSQL is used") counts when the
    other says it too."""
    la, lb = a.casefold(), b.casefold()
    differ = values(a) ^ values(b)
    if same_numbers(a, b):  # "twelve" / "12": the numbers themselves are compared in order (value_sequence)
        differ = frozenset(v for v in differ if not NUMERIC.fullmatch(v))
    return all(not _KEYED.fullmatch(v) and v in la and v in lb for v in differ)


def _own_both(a: str, b: str) -> bool:
    ca, cb = content(a), content(b)
    return bool(ca - cb) and bool(cb - ca)


_RAW = re.compile(r"[\w'’-]+|[\u3400-\u9fff]+")


def _frame_before_difference(a: str, b: str) -> bool:
    """A many-valued verb both say before the point where they part ("User [listens to] jazz" /
    "… lo-fi", "用户[会说]日语" / "…法语"), so what differs is its object, not its subject
    ("[Dev] owns the ledger service" / "[Hana] owns …")."""
    la, lb = a.casefold(), b.casefold()
    split = next((k for k, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))

    def verb_at(low: str) -> int | None:
        spots = [low.find(p) for p in _MANY_ZH if p in low]
        spots += [m.start() for m in _RAW.finditer(low) if (words(m.group(0))[:1] or [""])[0] in _MANY_EN]
        return min(spots) if spots else None
    va, vb = verb_at(la), verb_at(lb)
    return va is not None and vb is not None and va < split and vb < split


def _adds_up(a: str, b: str) -> bool:
    """A many-valued frame ("listens to …", "speaks …", "会说…") with another object on each side."""
    return cjk(a) == cjk(b) and negated(a) == negated(b) and _own_both(a, b) and _frame_before_difference(a, b) \
        and not differ(a, b)  # "最喜欢的颜色是蓝色" / "…绿色": a favourite is one, whatever verb frames it


def apart(a: str, b: str) -> str | None:
    """Why two memories that look alike are two facts, not one or a disagreement: about
    different people, or another value of a many-valued thing, or a prohibition and an
    unrelated rule that share a verb ("Never commit .env" / "Always commit the lockfile")."""
    if (kin_differs(a, b) or people_differ(a, b)) and not _whom_one_reports_to(a, b):
        return "about different people"
    if _adds_up(a, b):
        return "another value of a many-valued thing"
    if cjk(a) == cjk(b) and (negated(a) != negated(b) or opposite(a, b)) and _own_both(a, b) \
            and (len(content(a) & content(b)) <= 1 or _named_and_one_word(a, b)
                 or (opposite(a, b) and _names_apart(a, b))):
        return "a rule and another statement about something else"  # they share no more than a verb
    if _labels_apart(a, b):
        return "two labelled attributes"
    if _ordinals_apart(a, b):
        return "two places in an order"
    return None


_ORDINAL = re.compile(r"\b(first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th)\s+(?:[\w-]+\s+)?\w|"
                      r"第([一二三四五六七八九十\d]+)(?:个|位|把|名)?\w", re.IGNORECASE)
_ORDER = {"1st": "first", "2nd": "second", "3rd": "third", "4th": "fourth", "5th": "fifth"}


def _ordinals_apart(a: str, b: str) -> bool:
    """Two places in one order ("the quartet's [first] violinist" / "… [second] violinist",
    第一小提琴 / 第二小提琴): two roles, each with its own holder; not the same place said twice."""
    oa, ob = _ordinals(a), _ordinals(b)
    return bool(oa) and bool(ob) and not oa & ob and cjk(a) == cjk(b)


def _ordinals(text: str) -> frozenset[str]:
    """Places in an order, not in time: "the first Monday", 第三周 are when, not who."""
    return frozenset(_ORDER.get(m.group(1).casefold(), m.group(1).casefold()) if m.group(1) else m.group(2)
                     for m in _ORDINAL.finditer(text) if not _WHEN_NEXT.match(text, m.end(1) if m.group(1) else m.end(2)))


_WHEN_NEXT = re.compile(r"\s*(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|week|weekend|month|day|"
                        r"year|quarter|half|semester|term)s?\b|个?(?:周|星期|礼拜|月|天|日|年|季度|学期))", re.IGNORECASE)


def _named_and_one_word(a: str, b: str) -> bool:
    """Beside the name both open with, one word in common, and each says more of its own
    ("Marcus never takes sleeping pills" / "Marcus always sleeps with an eye mask"); not one
    thing said yes and no ("Lin Hao has never smoked" / "Lin Hao is a smoker")."""
    la, lb = lead_name(a), lead_name(b)
    if la is None or lb is None:
        return False
    ca, cb = (content(t) - set(words(la)) - set(words(lb)) for t in (a, b))
    one = shared_words(ca, cb)
    shared = one | shared_words(cb, ca)
    return len(one) <= 1 and bool(ca - shared) and bool(cb - shared)


def _whom_one_reports_to(a: str, b: str) -> bool:
    """Both say whom one person reports to ("用户的上司是周立" / "用户现在向陈蕾汇报"): the boss named
    is the value, not a second person the memory is about."""
    sa, sb = single(a), single(b)
    return sa is not None and sb is not None and sa[0] == sb[0] == "manager" and sa[1] == sb[1]


def _names_apart(a: str, b: str) -> bool:
    """Each names a thing the other does not, and no measure differs ("Always commit [pubspec.lock]" /
    "Never commit [the .env file]"): a rule about one thing and a rule about another."""
    clash = value_clash(a, b)
    return clash is not None and not any(_KEYED.fullmatch(v) for side in clash for v in side)


_LABEL = re.compile(r"^\s*([^:：,.;。，]{1,40}?)\s*(?<!\d)[:：](?!\d)\s*\S")  # not the colon of "1:1", "2:30"


def _labels_apart(a: str, b: str) -> bool:
    """Both written "label: value", and the labels share no word but what both are about ("S2
    accelerometer: ST LIS2DH12" / "S2 motor driver: TI DRV8837"): two attributes."""
    la, lb = _LABEL.match(a), _LABEL.match(b)
    if la is None or lb is None or cjk(a) != cjk(b):
        return False
    named = set(words(" ".join(seen(a)[1] & seen(b)[1])))
    # a letter left of a name's number ("[S]2") is no word of the label
    wa, wb = ({w for w in content(m.group(1)) - named if len(w) > 1 or cjk(w)} for m in (la, lb))
    return bool(wa) and bool(wb) and not wa & wb


CROSS_REVIEW = 0.5  # across languages nothing else can be checked: the encoder must be this sure to ask
CLOSE = 0.75  # told apart by their words, this close in meaning and naming the same values: a person decides


def close_but_told_apart(a: str, b: str, similarity: float | None) -> bool:
    """Judged two facts by the wording alone ("The main repo is hosted on GitLab" / "Our primary
    repository lives on GitLab"), while the encoder finds them very close and they name the same
    values with one polarity: the wording is no proof, so a person (or a model) decides."""
    return similarity is not None and similarity >= CLOSE and negated(a) == negated(b) and same_values(a, b)


def worth_review(a: str, b: str, similarity: float) -> bool:
    """A pair worth a person's time: in one language they share a content word; across
    languages the encoder is fairly sure (dev fixtures: half the pairs shown, 1 in 36
    duplicates lost)."""
    if cjk(a) != cjk(b):
        return similarity >= CROSS_REVIEW
    return bool(content(a) & content(b))


def gate(a: str, b: str, verdict: Judged, sure: bool = True) -> Gated:
    """The judge's verdict as far as it can be acted on without a model: merges only of
    memories provably the same; a pair judged alike but not provably so goes to review.
    ``sure``: found close enough to stand as a conflict (else a conflict is reviewed too)."""
    if provably_same(a, b):
        return "duplicate"
    if apart(a, b) is not None:
        return "distinct"
    if verdict == "contradiction":
        if not_a_conflict(a, b):
            return "distinct"
        if _values_agree(a, b) or roughly_equal(a, b):
            return "review"
        # from the wider net only a plain denial stands as a conflict: the rest goes to a person
        return "contradiction" if sure or plain_denial(a, b) else "review"
    return "distinct" if verdict == "distinct" else "review"


def veto_conflict(a: str, b: str) -> Gated | None:
    """A rule-found conflict that is not one: the same thing said twice (``duplicate``) or
    two facts (``distinct``); ``None`` keeps it."""
    if provably_same(a, b):
        return "duplicate"
    if apart(a, b) is not None or not_a_conflict(a, b):
        return "distinct"
    if value_clash(a, b) is None and only_the_subject_shared(a, b):
        return "distinct"  # "Lin Hao can ski" / "Lin Hao is a smoker": two facts about one person
    return "review" if _values_agree(a, b) or maybe_same_date(a, b) or roughly_equal(a, b) else None


_ADDITIVE = re.compile(r"\b(?:also|too|as well|in addition|besides)\b|也|还会|还有|另外|此外", re.IGNORECASE)


def not_a_conflict(a: str, b: str) -> bool:
    """Why two memories judged at odds are not, when both say yes (or both no): one adds
    to the other ("also", "也"), or they differ in two places with shared words between
    (another subject with another value: "Backfilling [sessions] takes [2] hours" /
    "… [events] … [6] hours"). Or a negation bounds what the other does not say (a limit
    beside a habit: "can't run more than 10 km" / "runs every morning")."""
    if retires(a, b) or retires(b, a) or any((new := moved_to(x)) is not None and moved_time(new, y)
                                             for x, y in ((a, b), (b, a))):
        return False  # one says the other's value was given up or moved on: a change, whatever else differs
    if bounded(a) != bounded(b):
        return True  # a limit beside a habit or an amount ("limits coffee to 2 cups" / "drinks 3 cups a day")
    if _two_events(a, b) or days_apart(a, b):
        return True
    if negated(a) == negated(b) and not opposite(a, b) and not opposite(b, a):
        return bool(_ADDITIVE.search(a) or _ADDITIVE.search(b)) or (cjk(a) == cjk(b) and _two_places(a, b))
    return _negation_elsewhere(a, b)


def moved_time(new: str, other: str) -> bool:
    """A move to a time, date or day ("moved the nightly reprocess to 04:00 UTC") and another of
    that kind in the older statement ("runs at 02:00 UTC")."""
    kinds = {v.split(":")[0] for v in values(new) if ":" in v}
    return bool(kinds) and any(v.split(":")[0] in kinds and v not in values(new) for v in values(other) if ":" in v)


_DATED = re.compile(r"[dmyt]:")  # dates and times of day


def _two_events(a: str, b: str) -> bool:
    """Two dates of two things that happened: each side names what happened in words the other
    lacks, and they share at most one word (whose: "Orchard's public beta began on 15 April" /
    "Orchard 1.0 hit the app stores on 27 June") — not one date said twice ("The user's birthday
    is July 14" / "The user was born on July 4")."""
    da, db = ({v for v in values(t) if _DATED.match(v)} for t in (a, b))
    if not da or not db or da == db or cjk(a) != cjk(b):
        return False
    return _events_zh(a, b) if cjk(a) else _events_en(a, b)


def _events_en(a: str, b: str) -> bool:
    ca, cb = content(a) - WHEN_VERBS, content(b) - WHEN_VERBS
    if len(ca & cb) <= 1 and bool(ca - cb) and bool(cb - ca):
        return True
    # the thing both name set aside ("[Dapeng Bay race] day" / "… registration closes"), one may name only
    # the thing ("The [Lisbon half marathon] is on March 22"), the other what of it happens
    whole = _reading(a)[0], _reading(b)[0]
    rest = _without_common_run(*whole)
    sa, sb = frozenset(rest[0]) - WHEN_VERBS, frozenset(rest[1]) - WHEN_VERBS
    return rest != whole and not sa & sb and bool(sa | sb) and not _told_change(a) and not _told_change(b)


def _events_zh(a: str, b: str) -> bool:
    """In Chinese a word is two characters ("[滑翔]体检" / "[滑翔]理论考试" share one word); once the thing
    both name is set aside ("数据分析课程的[期末考试]" / "数据分析课程[开课]"), no word of the event is shared."""
    # the relative both are about is the thing both name (妈妈 / 母亲), and being born is one event (出生 / 生于)
    shared = {w for w, k in KIN.items() if k in kin(a) & kin(b) and not w.isascii()}
    a, b = (_BORN_ZH.sub("出生", re.sub("|".join(sorted(shared, key=len, reverse=True)), "", t) if shared else t)
            for t in (a, b))
    whole = _characters(a), _characters(b)
    rest = _without_common_run(*whole)
    # a Latin name both say is the thing both name, wherever it stands ("[FRIPRO]截止日期" / "用户的[FRIPRO]申请截止日期")
    named = {t for t in set(whole[0]) & set(whole[1]) if not CJK.match(t)}
    rest = tuple(t for t in rest[0] if t not in named), tuple(t for t in rest[1] if t not in named)
    ca, cb = _bigrams(rest[0]) - _ZH_WHEN, _bigrams(rest[1]) - _ZH_WHEN
    return len(ca & cb) <= (0 if rest != whole else 1) and bool(ca - cb) and bool(cb - ca)


@lru_cache(maxsize=131_072)
def _characters(text: str) -> tuple[str, ...]:
    """A Chinese memory's content characters in order, without its values."""
    return tuple(words(without_numbers(special_values(text)[1])))


_BORN_ZH = re.compile(r"出生于|生于|出生")
_ZH_WHEN = frozenset("日期 时间 时候 定在 安排 预定 计划".split())  # words for when, not for what happened


@lru_cache(maxsize=131_072)
def _without_common_run(x: tuple[str, ...], y: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Both sequences less their longest common run of three words or more (what both are about:
    "数据分析课程的[期末考试]" / "数据分析课[开课]"); unchanged when there is none."""
    run = SequenceMatcher(None, x, y, autojunk=False).find_longest_match(0, len(x), 0, len(y))
    if run.size < 3:
        return x, y
    return x[:run.a] + x[run.a + run.size:], y[:run.b] + y[run.b + run.size:]


def _bigrams(seq: tuple[str, ...]) -> frozenset[str]:
    return frozenset(x + y for x, y in zip(seq, seq[1:])) or frozenset(s for s in seq if s)


def _values_agree(a: str, b: str) -> bool:
    """Both pin down the same dates, times, quantities or frequencies, said with one
    polarity: what differs is wording ("starts at 02:00" / "kicks off at 2am"), for a
    person to read, never a conflict."""
    if negated(a) != negated(b) or opposite(a, b) or opposite(b, a):
        return False
    keyed = {v for v in values(a) if _KEYED.fullmatch(v) and ":" in v}
    return bool(keyed) and same_values(a, b)


_BOUND = re.compile(r"\b(?:more|less|longer|shorter|further|fewer)\s+than\b|\bat (?:most|least)\b|超过|以上|以下|多于|少于",
                    re.IGNORECASE)


def _negation_elsewhere(a: str, b: str) -> bool:
    """One is negated and bounds an amount ("can't run more than 10 km"), and the negation
    governs what the other does not say ("runs every morning"): a limit beside a habit."""
    neg = a if negated(a) else b
    return cjk(a) == cjk(b) and negated(a) != negated(b) and bool(_BOUND.search(neg)) and not denies(a, b)
