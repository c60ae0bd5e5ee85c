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
from trulymem.dream.amounts import CURRENCY_WORDS, value_sequence
from trulymem.dream.changes import retires
from trulymem.dream.polarity import (
    denies,
    denies_plainly,
    negates_shared,
    opposite,
    permission_denied,
    polarity_only,
)
from trulymem.dream.roles import other_holder
from trulymem.dream.similarity import cjk, common_ends, without_negation, words
from trulymem.dream.stated import (
    LATIN_IN_CJK,
    MONTH,
    NAME,
    NUMBER,
    NUMERIC,
    PREDICATE,
    Clash,
    bounded,
    many_valued,
    numbers_spelled_apart,
    seen,
    value_clash,
)
from trulymem.dream.values import maybe_same_date, special_values
from trulymem.dream.vocab import CANON, GENERIC, OWNER_WORDS, WHEN_VERBS
from trulymem.dream.wording import (
    _counted,
    _diverge,
    _end_swap,
    _in_values,
    _middles,
    _one_slot,
    _own_content,
    _two_places,
    different_predicates,
    lead_name,
    only_the_subject_shared,
    other_owner,
    other_subjects,
    shared_content,
)

Verdict = Literal["duplicate", "contradiction", "distinct"]
Judged = Literal["duplicate", "contradiction", "distinct", "ambiguous"]
_SMALL_NUMBER = re.compile(r"(?<![\w#-])(\d{1,2})(?![\w-])")


@lru_cache(maxsize=131_072)
def _small_numbers(text: str) -> frozenset[str]:
    """The numbers up to 20 that stand on their own in a text (counts, not parts of names)."""
    return frozenset(n for n in _SMALL_NUMBER.findall(text) if int(n) <= 20)


def _same_ending(a: str, b: str) -> bool:
    """Both end in the same statement ("svc-3 uses Redis" / "svc-7 uses Redis"): what
    differs comes before it, so they are about different things, not different values.
    A shared unit, noun or character ("30天" / "14天", "in YAML files" / "in TOML files") is
    not a statement: it takes two words, or a verb."""
    x, y = seen(a)[0], seen(b)[0]
    p, q = common_ends(x, y)
    tail = x[len(x) - q:]
    # "has [one] sister", 有[两]个妹妹; not a number that names something ("svc-[36]", "Ticket #[66560]")
    alone = _small_numbers(a) | _small_numbers(b)
    counts = all(_counted(t, alone) for t in (*x[p:len(x) - q], *y[p:len(y) - q]))
    if "".join(tail) in CURRENCY_WORDS or all(t in CURRENCY_WORDS for t in tail):
        return False  # "55000挪威[克朗]" / "52000[克朗]": the amount's currency, not a statement
    return 0 < q < min(len(x), len(y)) and (q >= 2 or any(t in PREDICATE for t in tail)) and not counts


# How alike two memories' frames are with their values masked ("The orders service stores its
# data in X" / "订单服务的数据存在X里"): a sentence encoder's cosine, the one way to tell across
# languages that two values fill one slot.
FrameSimilarity = Callable[[str, str], float]
FRAME_MATCH = 0.7         # across languages
FRAME_MATCH_WORDS = 0.65  # in one language, where the words around the values already line up
FRAME_MATCH_CHANGE = 0.45  # … where one says its value changed, and both values are dates (or times, or amounts)
FRAME_MATCH_CHANGE_CROSS = 0.6  # across languages, where one says its measure changed ("已经改成 1 Mbit/s")
FRAME_MATCH_NAMES = 0.6  # … where one says its value changed, and the values are names
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
        _by_subject(a, b) or _by_values(a, b, one_language, frames) or _by_frame(a, b, one_language)
    return verdict or _by_language(a, b, one_language, similarity)


@lru_cache(maxsize=131_072)
def masked(text: str, other: str | None = None) -> str:
    """The memory with its values (dates, times, quantities, numbers, names, Latin words in
    Chinese text) as "X"; with ``other``, a name both say stays (the subject of both:
    "iOS 4.0 版本定在X发布" / "The iOS 4.0 release is scheduled for X")."""
    keep = other.casefold() if other is not None else ""

    def mask(m: re.Match[str]) -> str:
        return m.group(0) if keep and m.group(0).casefold().strip(".") in keep else "X"
    out = " ".join(NUMBER.sub("X", special_values(text, "X")[1]).split()) if other is None else \
        " ".join(special_values(text, "X")[1].split())
    out = LATIN_IN_CJK.sub(mask, out) if cjk(text) else NAME.sub(mask, MONTH.sub("X", out))
    return out if other is None else NUMBER.sub(mask, out)


def _by_change(a: str, b: str, one_language: bool) -> Judged | None:
    """A change statement retires what the other says ("We ripped out webpack; …" / "The
    frontend is bundled with webpack")."""
    return "contradiction" if retires(a, b) or retires(b, a) else None


def _by_subject(a: str, b: str) -> Judged | None:
    """Two statements that share nothing but the name and name no values that clash are never
    a conflict by their words alone ("Lin Hao can ski" / "Lin Hao can't swim"), and may be one
    fact said twice ("Maya plays the cello" / "Maya is a cellist"): a person decides. Where
    names or measures clash, the frames decide ("Benchy's CI runs on GitHub Actions" / "Benchy
    CI was moved to GitLab")."""
    if lead_name(a) is None or lead_name(b) is None or value_clash(a, b) is not None or \
            not only_the_subject_shared(a, b):
        return None
    return "distinct" if seen(a)[2] != seen(b)[2] else "ambiguous"  # a "no" about something else is no restatement


def _by_single(a: str, b: str) -> Judged | None:
    """One place of home, one favourite of a kind: "用户住在大连" / "用户目前定居在烟台"."""
    if singles.same_value(a, b):
        return "duplicate"  # "Lives in Austin, Texas" / "Is based in Austin, TX": whether to merge is the gate's
    return "contradiction" if singles.differ(a, b) else "distinct" if singles.other_attribute(a, b) else None


def _by_role(a: str, b: str) -> Judged | None:
    """One holder at a time: "Dev owns the ledger service" / "Hana owns the ledger service"."""
    return "contradiction" if other_holder(a, b) else None


def _by_negation(a: str, b: str, one_language: bool) -> Judged | None:
    if seen(a)[2] != seen(b)[2] and _leads_apart(a, b):
        return "distinct"  # "Ada no longer naps" / "Kofi naps after lunch": two people, one habit each
    # in English only: a Chinese character is too small a word to tell what a negation governs
    if one_language and not cjk(a) and seen(a)[2] and seen(b)[2] and (denies_plainly(a, b) or denies_plainly(b, a)):
        return "contradiction"  # "has no offline mode" / "has an offline mode … without signal"
    if seen(a)[2] != seen(b)[2]:
        if denies(a, b) or (one_language and permission_denied(a, b)):
            return "contradiction"  # "likes jazz" / "doesn't like jazz": a many-valued frame, one value denied
        if not opposite(a, b) and (not one_language or negates_shared(a, b)):
            # the negation may well govern what they share ("不允许mock数据库" / "同意mock数据库"),
            # or cannot be read across languages: never one memory
            return "ambiguous"
    if opposite(a, b) and one_language and _allowed_elsewhere(a, b):
        return "distinct"  # "is allowed out on the balcony" / "is not allowed on the sofa": two places
    if opposite(a, b) and (not one_language or shared_content(a, b)):
        return "contradiction"  # "deploys happen automatically" / "需要手动触发部署"
    return None


def _allowed_elsewhere(a: str, b: str) -> bool:
    """A permission and a prohibition in English, each of something the other does not name."""
    if cjk(a) or not (_PERMITTED.search(a) and _PERMITTED.search(b)):
        return False
    wa, wb = _frame_words(a), _frame_words(b)
    own_a, own_b = (set(without_negation(list(w - other))) - _PERMISSION_WORDS for w, other in ((wa, wb), (wb, wa)))
    return bool(own_a) and bool(own_b)


_PERMITTED = re.compile(r"\b(?:allowed|permitted)\b", re.IGNORECASE)
_PERMISSION_WORDS = frozenset(words("allowed permitted out"))


# a name at the start: before a possessive or an auxiliary ("Ada no longer …", "Kofi's …"), or in Chinese text
_LEAD = re.compile(r"^\s*([A-Z][\w'’-]*)(?:['’]s\s|\s+(?:is|was|has|had|does|doesn't|did|didn't|never|no longer|always|"
                   r"still|now|also|usually|can|can't|cannot|will|won't|would|should|must)\b)"
                   r"|^\s*([A-Za-z][\w'’-]*)(?=\s*[\u3400-\u9fff])")
_NOT_A_NAME = frozenset(words(
    "the a an this that these those there it he she they his her their its our we i you my user always never "
    "usually often sometimes rarely every each all any no not don't do does please only avoid prefer use keep "
    "make run set add let try ask tell call send put before after when while if since until during on in at "
    "for from to by with without new old current next last first"))


def _leads_apart(a: str, b: str) -> bool:
    """Each begins with a name the other never says ("[Ada] 午饭后已经不睡午觉了" / "[Kofi] 午饭后还要睡…"):
    two people or things, not one said yes and no."""
    la, lb = _lead(a), _lead(b)
    return la is not None and lb is not None and la != lb and la not in b.casefold() and lb not in a.casefold()


@lru_cache(maxsize=131_072)
def _lead(text: str) -> str | None:
    m = _LEAD.match(text)
    if m is None:
        return None
    name = (m.group(1) or m.group(2)).casefold()
    return None if set(words(name)) & _NOT_A_NAME or not words(name) else name


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
        if one_language and cjk(a) and _zh_topic_apart(a, b) and not many_valued(a, b):
            return "contradiction"  # "她买的商业医疗险是平安e生保" / "她的商业医疗险是国寿惠民保"
        if not one_language or not (_one_slot(a, b) or (not cjk(a) and (_end_swap(a, b) or _diverge(a, b)))):
            return None
        # one slot, two values written as plain words ("prefers dark mode" / "light mode",
        # "called master" / "named main"): a disagreement, unless the frame takes many values
        mx, my, p, q = _middles(a, b)
        if p == 0 and q >= 2:  # whom it is about differs, not a value: the user may be the one named
            return "ambiguous" if set(mx) & OWNER_WORDS or set(my) & OWNER_WORDS else "distinct"
        many = many_valued(a, b) or (p > 0 and different_predicates(list(mx), list(my))) or other_subjects(a, b)
        return "distinct" if many else "contradiction"
    if other_dimensions(clash) or _money_and_count(clash, a, b):
        return "distinct"  # "outputs 65 W" / "outputs 65 V": two measures, not two values of one
    told_change = _told_change(a) or _told_change(b)
    if not one_language:  # the words around the values cannot be compared: the frames' meaning can
        if all(NUMERIC.fullmatch(v) for side in clash for v in side) and not _names_in_both(a, b):
            return "ambiguous"  # "分机号是4417" / "takes the number 15 tram": a bare number, nothing named to anchor it
        floor = FRAME_MATCH_CHANGE_CROSS if told_change and _one_kind(clash) else FRAME_MATCH
        if many_valued(a, b) or frames is None or frames(masked(a, b), masked(b, a)) < floor:
            return "ambiguous"
        return "contradiction"
    # a change told, or both a bound on one amount ("maximum upload size is 10 MB" / "uploads are limited to 25 MB")
    loose = _one_kind(clash) and (told_change or (bounded(a) and bounded(b)))
    if frames is not None and not (_one_kind(clash) and _frame_within(a, b)) and \
            frames(masked(a), masked(b)) < (FRAME_MATCH_CHANGE if loose else
                                             FRAME_MATCH_NAMES if told_change else FRAME_MATCH_WORDS):
        return "distinct"  # values in two different statements ("hand-off every Wednesday" / "Dependabot PRs")
    if other_owner(a, b) or _other_slots(clash, a, b) or _start_and_end(a, b) or days_apart(a, b):
        return "distinct"  # "The user's birthday …" / "The user's mother's birthday …"
    counts = all(v[:1].isdigit() or v.startswith("n") and v[1:].isdigit() for side in clash for v in side)
    # "has two bedrooms" / "has three bedrooms": a count is one value even where the verb takes many
    many = many_valued(a, b) and not counts
    # a date, time, quantity or frequency that differs is a value, whatever wording follows it
    keyed = all(_measure(v) for side in clash for v in side)
    ending = not keyed and _same_ending(a, b)
    return "distinct" if many or ending or _two_places(a, b) or other_subjects(a, b) else "contradiction"


def _names_in_both(a: str, b: str) -> bool:
    """A name (not a number, date or measure) both memories say."""
    return any(not NUMERIC.fullmatch(v) and not _measure(v) for v in seen(a)[1] & seen(b)[1])


# "topic 是 value": what comes before the last 是 names one attribute, what follows is its value
_ZH_COPULA = re.compile(r"^(?P<topic>[^，。；,;]{2,20})是(?P<value>[^，。；,;是]{2,20})[。.！!]?$")
_ZH_NOT_TOPIC = re.compile(r"用户|她|他|现在|目前|如今|最近|其实|已经|一直|所在|买的|用的|的")


def _zh_topic_apart(a: str, b: str) -> bool:
    """Both say "<one topic>是<a value>" with the same topic (whose and when aside) and values that
    share no two characters in a row: two values of one attribute."""
    ma, mb = _ZH_COPULA.match(a.strip()), _ZH_COPULA.match(b.strip())
    if ma is None or mb is None:
        return False
    ta, tb = (_ZH_NOT_TOPIC.sub("", m.group("topic")).strip() for m in (ma, mb))
    va, vb = (m.group("value").strip() for m in (ma, mb))
    pairs = {va[k:k + 2] for k in range(len(va) - 1)} & {vb[k:k + 2] for k in range(len(vb) - 1)}
    return len(ta) >= 2 and ta == tb and va != vb and not pairs and not _ZH_NOT_VALUE.search(va + vb)


_ZH_NOT_VALUE = re.compile(r"不|没|也|还|都|和|或|之一|[一二两三四五六七八九十\d]")  # a negation, an addition, a count


def days_apart(a: str, b: str) -> bool:
    """Other weekdays for two things that both hold: two prohibitions ("Don't deploy on
    Fridays without approval" / "… on Mondays"), or two activities sharing no word ("works
    from home on Mondays and Fridays" / "goes into the office Tuesday through Thursday")."""
    clash = value_clash(a, b)
    if clash is None or not all(v[:2] in ("w:", "f:") for side in clash for v in side) or \
            not all(any(v.startswith("w:") for v in side) for side in clash):
        return False
    if seen(a)[2] and seen(b)[2]:
        return True
    wa, wb = (set(words(special_values(t)[1])) - GENERIC - OWNER_WORDS for t in (a, b))
    return not wa & wb


# a value said to have changed: "was pushed to November 30", "went up to $2,050", 推迟到, 改到
_TOLD_CHANGE = re.compile(r"\b(?:pushed|moved|rescheduled|switched|changed|raised|lowered|increased|decreased|went up|"
                          r"went down|bumped|upgraded|downgraded|extended|postponed|delayed|brought forward|updated|"
                          r"correction|now|no longer|any ?more|upgrade)\b|改到|改成|改为|推迟|提前到|调整|调到|提高到|降到|现在|"
                          r"已经|升级|换成|换到|迁移|切换|转到|改用",
                          re.IGNORECASE)


@lru_cache(maxsize=131_072)
def _told_change(text: str) -> bool:
    return _TOLD_CHANGE.search(text) is not None


def _frame_within(a: str, b: str) -> bool:
    """Every word one says around its value the other says too (synonyms as one): one frame
    in words, whatever an encoder makes of the rest ("His birthday is on [3 November]" /
    "Leo's birthday falls on [November 13]")."""
    x, y = (_frame_words(t) for t in (a, b))
    short, long_ = (x, y) if len(x) <= len(y) else (y, x)
    return bool(short) and short <= long_


@lru_cache(maxsize=131_072)
def _frame_words(text: str) -> frozenset[str]:
    inside = _in_values(text) | set(words(" ".join(seen(text)[1])))
    return frozenset(CANON.get(t, t) for t in seen(text)[0] if t not in GENERIC and t not in OWNER_WORDS
                     and t not in inside and t not in WHEN_VERBS and not t.isdigit())


def _one_kind(clash: Clash) -> bool:
    """Both sides' differing values are dates, or times, or amounts of one dimension."""
    kinds = {v.rsplit(":", 1)[0] if v.startswith("q:") else v[:2] for side in clash for v in side}
    return len(kinds) == 1 and all(_measure(v) for side in clash for v in side)


def other_dimensions(clash: Clash) -> bool:
    """Every differing value is a measure, and the two sides measure different things ("65 W"
    / "65 V", "checked twice a day" / "between 0 and 4 °C", a final "on 11 June" / matches "on
    Sundays"): two attributes, not two values of one."""
    kinds = [{_family(v) for v in side if not v.isdigit()} for side in clash]  # "between [0] and 4 °C": the range's
    if all(k and None not in k for k in kinds) and not kinds[0] & kinds[1]:
        return True
    # how many against which weekday ("上新一次" / "第一个周一盘点", "2型" / "每周二"): a bare number may
    # be part of a date, never of a weekday
    for k in (0, 1):  # the cheap test first: one side only days or dates (most clashes are names / names)
        if kinds[k] and kinds[k] <= _DAYS and all(_COUNT.fullmatch(v) for v in clash[1 - k]):
            return True
        # names only against a date or time only ("adopted through Greyhound Rescue" / "adoption day is 9 March")
        if kinds[k] and kinds[k] <= _WHEN and all(_family(v) is None and not NUMERIC.fullmatch(v) for v in clash[1 - k]):
            return True
    return False


_COUNT = re.compile(r"n\d+")
_DAYS = frozenset({"weekday", "often"})
_WHEN = frozenset({"date", "time", "weekday"})


def _money_and_count(clash: Clash, a: str, b: str) -> bool:
    """An amount of money on one side, a plain count on the other ("每盒10袋" / "一盒卖39元")."""
    owned = _money_numbers(a), _money_numbers(b)
    if not (owned[0] or owned[1]):
        return False
    money = [_all_money(side, numbers) for side, numbers in zip(clash, owned)]
    # a number told as rent, a salary or a price is money without its currency ("房租一个月4800" / "房租4008元")
    money = [True if m is False and _MONEY_WORDS.search(t) else m for m, t in zip(money, (a, b))]
    return money[0] != money[1] and None not in money  # "250克，一共12袋" has no amount of money


_MONEY_WORDS = re.compile(r"\b(?:rent|salary|salaries|wages?|price|prices|priced|costs?|fees?|mortgage|budget|pays?|paid|"
                          r"earns?|income|revenue|spends?|spent|charges?|charged|tuition)\b|"
                          r"房租|租金|月租|月薪|年薪|工资|薪水|收入|价格|价钱|售价|月供|房贷|[学房电水会车油话网]费|费用|收费|"
                          r"预算|花了|花费|营收|营业额",
                          re.IGNORECASE)


_MONEY = re.compile(r"n:-?[^\d-]+(\d[\d.]*)%?")  # "n:¥69", "n:S$1500": a number said with a currency


@lru_cache(maxsize=131_072)
def _money_numbers(text: str) -> frozenset[str]:
    """The numbers a memory says as amounts of money, as written without the currency ("69")."""
    return frozenset(m.group(1) for k in value_sequence(text) if (m := _MONEY.fullmatch(k)))


def _all_money(side: frozenset[str], money: frozenset[str]) -> bool | None:
    """Whether every differing plain number of a side is an amount of money (``None``: some are,
    some not; ``False`` when it has none)."""
    kinds = {v.lstrip("n") in money for v in side if NUMERIC.fullmatch(v)}
    return (kinds.pop() if len(kinds) == 1 else None) if kinds else False


def _family(value: str) -> str | None:
    """What a measure measures: a quantity's dimension, a date, a time of day, a weekday, how
    often, a rate, a port; ``None`` for a name or a bare number."""
    head = value.split(":", 1)[0]
    if head == "q":
        return "q:" + value.split(":")[1]
    return _FAMILIES.get(head) if ":" in value else None


_FAMILIES = {"d": "date", "dm": "date", "m": "date", "y": "date", "t": "time", "pd": "time", "w": "weekday", "wo": "weekday",
             "wx": "weekday", "dec": "date", "age": "age", "f": "often",
             "r": "rate", "port": "port"}


def _measure(value: str) -> bool:
    """A date, time, quantity, frequency or share: a value whatever wording surrounds it."""
    return ":" in value or value.endswith("%")


@lru_cache(maxsize=131_072)  # templated memories: one side's values and text recur over thousands of pairs
def _kinds(values_: frozenset[str], text: str) -> frozenset[str]:
    """"name" and/or "measure"; a number that is part of a name on the same side ("2" in
    "us-east-2") or follows it ("Pixel [8]", "iPhone [13]") is the name's, and so is one
    counted with a Chinese measure word ("[一]部 Pixel 8")."""
    names = [v for v in values_ if not (_measure(v) or NUMERIC.fullmatch(v))]
    low = text.casefold()

    def the_names(v: str) -> bool:
        digits = re.sub(r"\D", "", v)
        return bool(digits) and any(digits in n or _follows(low, n, digits) for n in names)
    measures = [v for v in values_ if v not in names and not the_names(v)
                and not (v == "n1" and names and _ONE_OF.search(text))]
    return frozenset(({"name"} if names else set()) | ({"measure"} if measures else set()))


def _follows(text: str, name: str, digits: str) -> bool:
    """``digits`` come right after ``name`` in ``text`` ("pixel 8"), as a number of their own."""
    at = text.find(name)
    while at >= 0:
        rest = text[at + len(name):].lstrip()
        if rest.startswith(digits) and not rest[len(digits):len(digits) + 1].isdigit():
            return True
        at = text.find(name, at + 1)
    return False


_ONE_OF = re.compile(r"一[部台个只辆把款块张]")  # "一部" is "a", not a count


def _other_slots(clash: Clash, a: str, b: str) -> bool:
    """What differs is not one slot: a name on one side, a date or amount on the other ("[Piotr]"
    / "1:1 … on [Wednesdays]"), or a name and a date on both ("[v1.0] was released on [9 Jan]" /
    "[v2.0] shipped on [20 May]": two releases)."""
    ka, kb = _kinds(clash[0], a), _kinds(clash[1], b)
    return not ka & kb or len(ka) == len(kb) == 2


_START = re.compile(r"\b(?:begins?|began|begun|starts?|started|kicked off|kicks off|launch(?:ed|es)?|opened|issued|signed|"
                    r"departs?|departed|departure|outbound)\b|开始|启动|签订|签署|签发|出发|去程|"
                    r"上线|开工", re.IGNORECASE)
_END = re.compile(r"\b(?:complete[ds]?|finish(?:ed|es)?|ends?|ended|wrapped up|closed|was done|expires?|expired|expiry|"
                  r"return(?:s|ed)?)\b|完成|结束|收尾|完工|到期|过期|返程|回程",
                  re.IGNORECASE)


def _start_and_end(a: str, b: str) -> bool:
    """The start of something and its end are two dates ("The migration began on 3 February" /
    "… was completed on 20 March"), not one date said twice."""
    (sa, ea), (sb, eb) = _start_end(a), _start_end(b)
    return (sa and not ea and eb and not sb) or (ea and not sa and sb and not eb)


@lru_cache(maxsize=131_072)
def _start_end(text: str) -> tuple[bool, bool]:
    return bool(_START.search(text)), bool(_END.search(text))


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
        names = {v for v in seen(latin)[1] if not v[:1].isdigit()}
        if any(v not in other.casefold() and v not in seen(other)[1] for v in names):
            return "ambiguous"
        if not names and similarity is not None and similarity < CROSS_SURE:
            return "ambiguous"  # nothing to check but the encoder, and it is not sure
    return "duplicate"
