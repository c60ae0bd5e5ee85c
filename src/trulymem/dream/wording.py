"""The wording around a memory's values: where two memories differ (one slot, two places,
another subject, another predicate), whose thing each is about, what they share. Read by the
judge, the gate and the contradiction rules."""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from functools import lru_cache

from trulymem.dream.similarity import cjk, common_ends, without_negation, words
from trulymem.dream.stated import CJK_CHAR, MONTH, PREDICATE, VALUE_WORDS, ZH_DIGITS, seen
from trulymem.dream.values import special_values
from trulymem.dream.vocab import CANON, GENERIC, OWNER_WORDS


def _counted(token: str, alone: frozenset[str] | None = None) -> bool:
    """A count written as a word, or a number (with ``alone``: a small one standing on its
    own there, not "svc-36", "#66560")."""
    if token.isdigit():
        return alone is None or token in alone
    return token in VALUE_WORDS or token in ZH_DIGITS


def other_owner(a: str, b: str) -> bool:
    """One is about the user's thing, the other about someone else's of the same kind."""
    ca, cb = _owner_chains(a), _owner_chains(b)
    return bool(ca and cb) and ca != cb and (ca[:len(cb)] == cb or cb[:len(ca)] == ca or ca[0] == cb[0])


def _span(tokens: list[str]) -> int:
    """Words in a differing part; a run of up to three Chinese characters is one word."""
    return 1 if tokens and len(tokens) <= 3 and all(CJK_CHAR.match(t) for t in tokens) else len(tokens)


def _one_slot(a: str, b: str) -> bool:
    """The same wording with one short part swapped for another that shares nothing with it
    (synonyms as one), around something said ("Our office is in [the suburbs]")."""
    mx, my, p, q = _middles(a, b)
    left, right = [t for t in mx if t not in GENERIC], [t for t in my if t not in GENERIC]
    if not left or not right or max(_span(left), _span(right)) > 2:
        return False
    if {CANON.get(t, t) for t in left} & {CANON.get(t, t) for t in right}:
        return False
    seq = seen(a)[0]
    around = [t for t in (*seq[:p], *seq[len(seq) - q:]) if t not in GENERIC and t not in OWNER_WORDS]
    return bool(around)


def _diverge(a: str, b: str) -> bool:
    """A long shared beginning, then each goes its own way from a word the other never says
    ("Pull requests land on main via [squash], so …" / "… via [rebase], keeping …")."""
    x = [CANON.get(t, t) for t in seen(a)[0] if t not in GENERIC]
    y = [CANON.get(t, t) for t in seen(b)[0] if t not in GENERIC]
    p, _ = common_ends(x, y)
    if len([t for t in x[:p] if t not in OWNER_WORDS]) < 3 or p >= min(len(x), len(y)):
        return False
    return x[p] not in y[p:] and y[p] not in x[p:] and x[p] not in PREDICATE and y[p] not in PREDICATE


def _end_swap(a: str, b: str) -> bool:
    """All but the last word of one is said by the other (synonyms as one), and the last
    words differ and appear nowhere else: one slot, at the end, with two values written
    as plain words ("called master" / "named main"). A negation is no word of the frame."""
    x = [CANON.get(t, t) for t in without_negation(seen(a)[0]) if t not in GENERIC]
    y = [CANON.get(t, t) for t in without_negation(seen(b)[0]) if t not in GENERIC]
    if len(x) < 3 or len(y) < 3 or x[-1] == y[-1] or x[-1] in y or y[-1] in x:
        return False
    short, long_ = (x, y) if len(x) <= len(y) else (y, x)
    return set(short[:-1]) <= set(long_[:-1]) and bool(set(short[:-1]) - OWNER_WORDS)


def _own_content(a: str, b: str) -> bool:
    """``a`` says something ``b`` does not: a content word (synonyms as one) missing from ``b``."""
    have = {CANON.get(t, t) for t in seen(b)[0]}
    return any(CANON.get(t, t) not in have for t in seen(a)[0] if t not in GENERIC and t not in OWNER_WORDS
               and without_negation([t]))


def _middles(a: str, b: str) -> tuple[tuple[str, ...], tuple[str, ...], int, int]:
    x, y = seen(a)[0], seen(b)[0]
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
        mx, my = (tuple(t if CJK_CHAR.match(t) else CANON.get(t, t) for t in seq) for seq in (mx, my))
    # a shared Chinese character ("云" in 阿里云 / 腾讯云) is part of the values, not a word between
    # them; two in a row ("负责" in 李娜负责后端 / 张伟负责前端) are a word
    pairs = set(zip(mx, mx[1:])) & set(zip(my, my[1:]))
    shared = {t for t in (set(mx) & set(my)) - _ADVERBS - OWNER_WORDS if len(t) > 1}
    shared |= {t for pair in pairs for t in pair if CJK_CHAR.match(t)}
    # a character right before each side's number ends a label, not a value ("更衣柜[号]208" / "工[号]20417")
    shared |= {t for t in set(mx) & set(my) if CJK_CHAR.match(t) and _before_number(mx, t) and _before_number(my, t)}
    # a number or month both name ("July" in "July 14" / "July 4") is part of the value, not a word
    # between; a name both say is ("报表 [DAG 的 SLA] 是 4 小时" / "采集 …")
    common = set(words(" ".join(seen(a)[1] & seen(b)[1])))
    in_both = _in_values(a) & _in_values(b)  # "nightly" both say: neither a word between nor a place
    # in Chinese a value both say is a word between ("[宽带费]每月[15]号" / "[房租]每月[1]号"): no other words part them
    shared -= {t for t in common if t.isdigit() or MONTH.fullmatch(t.capitalize())} | \
        (in_both - {t for pair in pairs for t in pair} if cjk(a) and cjk(b) else in_both)

    def place(t: str) -> bool:  # a word that differs and says what the memory is about
        return t not in shared and t not in in_both and t not in _CHANGE_WORDS and t not in OWNER_WORDS \
            and t not in _ADVERBS

    def between(seq: tuple[str, ...]) -> bool:
        inside = [k for k, t in enumerate(seq) if t in shared]
        return bool(inside) and any(place(t) for t in seq[:inside[0]]) and \
            any(place(t) for t in seq[inside[-1] + 1:]) and \
            (small is None or sum(t not in shared for t in seq) <= small)
    return between(mx) and between(my)


def _before_number(seq: tuple[str, ...], token: str) -> bool:
    return any(t == token and nxt.isdigit() for t, nxt in zip(seq, seq[1:]))


# how a change or a correction is told, around the value it changes: no second place where two memories differ
# ("[Correction:] user's birthday is April [21]", "[User raised] the grocery budget to [$550]")
_CHANGE_WORDS = frozenset(words(
    "correction corrected actually now currently current new newly raised lowered increased decreased reduced cut "
    "bumped rescheduled moved changed updated switched pushed extended shortened since as of after at renewal "
    "got was were been has have had is are went up down to from then these days anymore any more migrated migrate "
    "upgraded upgrade 到 减 降 升 提 改 调 换 级 迁 移 切 成 约 安 排 定 预"))  # 安排在 / 约在 / 定在: when, not what


_ADVERBS = GENERIC - frozenset(words("use make get go set put keep take give do done"))  # verbs separate


def _in_values(text: str) -> set[str]:
    """The words inside a date, time or quantity ("July" in "July 14")."""
    return set(words(text)) - set(words(special_values(text)[1]))


def shared_content(a: str, b: str) -> bool:
    """They share a word that says what they are about (not just whom: "user", "用户")."""
    return bool((set(seen(a)[0]) & set(seen(b)[0])) - OWNER_WORDS - GENERIC)


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
    seq = seen(a)[0]
    if seq and q <= 2 and CJK_CHAR.match(seq[-1]) and len([t for t in seq[:p] if t not in OWNER_WORDS and t not in GENERIC]) >= 3:
        return False  # whom it is about comes first in Chinese: "网店的对公账户开在[招商]银行" / "…[杭州]银行" is one bank's name
    mid_x = {CANON.get(t, t) for t in mx} - GENERIC - OWNER_WORDS
    mid_y = {CANON.get(t, t) for t in my} - GENERIC - OWNER_WORDS
    if mid_x & mid_y and all(CJK_CHAR.match(t) for t in mid_x & mid_y) and \
            not _bigrams(mx) & _bigrams(my):
        mid_y = mid_y - mid_x  # one Chinese character in common ("发小阿杰" / "同事小林") is not a shared word
    # an ending that is only a value ("works at [Acme Corp]" / "'s employer is [Acme Corp]") is
    # what both say, not a frame around two subjects
    frame = set(seq[len(seq) - q:]) - set(words(" ".join(seen(a)[1]))) - GENERIC
    # what precedes the swap is a shared subject ("用户的[…]住在南京"), whose ("The user's [son]
    # takes chess lessons …"), or nothing ("The [refunds] service publishes …")
    vals = set(words(" ".join(seen(a)[1] | seen(b)[1]))) | _in_values(a) | _in_values(b)
    if all(t in vals or _counted(t) for t in mid_x | mid_y):
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
    return any(w in _COPULAS or (words(w)[:1] or [""])[0] in PREDICATE for w in x[len(x) - q:])


def different_predicates(left: list[str], right: list[str]) -> bool:
    """Two statements about one thing, not two values of one attribute: "Mei lives in
    Denver" / "Mei is a pilot" differ from their predicate on (synonyms as one; a
    predicate the other side has further on is the same statement reordered)."""
    if not (left and right):
        return False
    lc, rc = [CANON.get(t, t) for t in left], [CANON.get(t, t) for t in right]
    return (left[0] in PREDICATE and lc[0] not in rc) or (right[0] in PREDICATE and rc[0] not in lc)


# a person or thing named at the start: two capitalised words ("Lin Hao", "Kari Haugland"), or one
# before a possessive or an auxiliary ("Ingrid is", "Emil's"); never an imperative ("Indent with …")
_LEAD_NAME = re.compile(r"^\s*((?:[A-Z][\w’'.-]*\s+){2,3}|[A-Z][\w.-]*(?:['’]s\s+|\s+(?=(?:is|was|has|had|does|doesn't|"
                        r"did|didn't|can|can't|cannot|will|won't|never|always|still|no longer)\b)))")
_NOT_A_LEAD = frozenset("the this that these those our my her his their user users we i you it there always never "
                        "please only every each all no not do don't use keep make avoid prefer".split())


@lru_cache(maxsize=131_072)  # per text, asked of both sides of every judged pair
def lead_name(text: str) -> str | None:
    """The name an English memory opens with ("Lin Hao can …", "Ingrid's …"), or ``None``."""
    if cjk(text):
        return None
    m = _LEAD_NAME.match(text)
    return None if m is None or m.group(1).split()[0].casefold() in _NOT_A_LEAD else m.group(1)


@lru_cache(maxsize=131_072)  # per pair, asked by the judge and the veto
def only_the_subject_shared(a: str, b: str) -> bool:
    """Two English statements whose only shared words are the name they open with ("Lin Hao can
    ski" / "Lin Hao can't swim", "Kari Haugland has a border collie named Birk" / "… works at
    NVE"): two facts about one person, whatever each names. Not where the attribute is shared
    ("Ana lives in Porto" / "Ana lives in Lisbon") or said in synonyms (works at / employed by)."""
    la, lb = lead_name(a), lead_name(b)
    if la is None or lb is None:
        return False
    lead = set(words(la)) & set(words(lb))
    if not lead:
        return False
    rest_a, rest_b = ({CANON.get(t, t) for t in without_negation(words(t))} - lead - GENERIC - OWNER_WORDS
                      for t in (a[len(la):], b[len(lb):]))
    return bool(rest_a) and bool(rest_b) and not shared_words(rest_a, rest_b)


def shared_words(x: AbstractSet[str], y: AbstractSet[str]) -> set[str]:
    """The words of ``x`` that ``y`` says too, one word with another ending as one ("smoked" / "a smoker")."""
    return {a for a in x if a in y or any(min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)) for b in y)}
