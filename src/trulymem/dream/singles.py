"""Statements of a value a person has one of at a time, however worded: where someone
lives ("The user lives in Lisbon", "Maya 现在住在布拉加", a move of home) and their
favourite of a kind ("The user's favourite dish is …", 用户最爱吃的菜是锅包肉). Two such
statements about one person, in one language, naming two places or two favourites,
cannot both be current."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import combinations

from trulymem.dream.findings import block_of
from trulymem.dream.kinship import kin, named_people, relatives_named
from trulymem.dream.romanize import same_place
from trulymem.dream.similarity import cjk, mentions, words
from trulymem.dream.vocab import CANON, GENERIC, OWNER_WORDS
from trulymem.memories import MemoryItem
from trulymem.text import name_key

# Where someone lives, and a move of home ("The user moved to Porto", 用户搬到了杭州): a person
# moves without an object, a thing is moved ("moved the API to …") — only the first is a home.
_PLACE_EN = r"(?P<place>(?-i:[A-Z])[\w'’.-]*(?:\s+(?-i:[A-Z])[\w'’.-]*)*)"
_HOME_MOVE_EN = re.compile(r"^(?P<who>.*?)\b(?:has\s+|have\s+|just\s+)?(?:moved|relocated)\s+(?:back\s+)?"
                           r"(?:from\s+(?-i:[A-Z])[\w'’.-]*(?:\s+(?-i:[A-Z])[\w'’.-]*)*\s+)?to\s+" + _PLACE_EN, re.IGNORECASE)
# what a subject did before its move ("He [packed up and] moved …") is no part of who it is
_BEFORE_MOVE = re.compile(r"\s+\w+(?:\s+(?:up|out|off))?\s+and\s*$", re.IGNORECASE)
_LIVES_EN = re.compile(r"^(?P<who>.*?)\b(?:lives|live|living|(?:is|are)\s+(?:now\s+|currently\s+)?based|resides|reside|"
                       r"settled)\s+in\s+"
                       + _PLACE_EN, re.IGNORECASE)
_HOME_MOVE_ZH = re.compile(r"^(?P<who>[^，。；,;]*?)(?:搬到|搬去|搬家到|迁居到?)了?(?P<place>[^，。；,;了的]{1,8})")
_LIVES_ZH = re.compile(r"^(?P<who>[^，。；,;]*?)(?:住在|定居在|居住在|生活在|家在)(?P<place>[^，。；,;了的]{1,8})")


# Where someone works, in Chinese ("林浩在杭州大地设计院上班"): an organisation or a unit of one, never a
# city alone ("在杭州上班" and "在设计院上班" both hold)
_WORKS_ZH = re.compile(r"^(?P<who>[^，。；,;在]*?)(?:现在|目前|如今)?在(?P<place>[^，。；,;了在]{2,16})(?:上班|工作|任职)")
_WORKPLACE = re.compile(r"(?:院|公司|集团|室|所|店|馆|部|科|中心|厂|行|局|学校|大学|中学|小学|园|站|药房|诊所|医院|银行)$")


def workplace(text: str) -> tuple[str, str] | None:
    """``(who, place)`` of where someone works, said in Chinese, or ``None``."""
    m = _WORKS_ZH.search(text)
    if m is None:
        return None
    place = re.sub(r"[(（][^)）]*[)）]$", "", m.group("place").strip())  # "静配中心(PIVAS)"
    return (m.group("who"), place) if _WORKPLACE.search(place) else None


# Whom someone reports to, however said: "Tomás's manager is Henrik Dahl", "Tomás reports to Priya
# Raman", "Henrik is his line manager", 用户的上司是王磊, 用户向王磊汇报
_BOSS_EN = r"(?:manager|line manager|boss|supervisor|team lead|direct manager|reporting manager)"
_NAMED = r"(?P<boss>(?:Dr\.\s+)?(?-i:[A-Z])[\w'’.-]*(?:\s+(?-i:[A-Z])[\w'’.-]*){0,2})"
_MANAGER = [re.compile(p, re.IGNORECASE) for p in (
    rf"^(?P<who>.*?)(?:['’]s)?\s+(?:new\s+|current\s+)?{_BOSS_EN}\s+(?:is|is now|has been|became)\s+(?:now\s+)?{_NAMED}",
    rf"^(?P<who>.*?)\s+(?:now\s+|currently\s+)?reports?\s+(?:directly\s+)?to\s+{_NAMED}",
    rf"^{_NAMED}\s+is\s+(?:now\s+)?(?P<who>.*?)(?:['’]s)?\s+(?:new\s+|current\s+)?{_BOSS_EN}\b",
    r"^(?P<who>[^，。；,;]*?)的(?:直属)?(?:上司|领导|主管|经理|组长)(?:现在)?(?:是|换成了?|变成了?)(?P<boss>[^，。；,;的]{2,12})",
    r"^(?P<who>[^，。；,;]*?)(?:现在)?(?:直接)?向(?P<boss>[^，。；,;的]{2,12}?)汇报")]


def manager(text: str) -> tuple[str, str] | None:
    """``(who, boss)`` of a statement of whom someone reports to, or ``None``."""
    for pattern in _MANAGER:
        m = pattern.search(text)
        if m:
            who = re.split(r"[,;，；]", m.group("who"))[-1]  # "Since the reorg, [Tomás] reports to …"
            return _WHEN.sub(" ", who), m.group("boss").strip().rstrip(".。")
    return None


# How someone gets to work, one way at a time: "commutes by e-bike", "now takes the metro to work",
# 用户骑电动车上班, 她改坐地铁去医院了 (not "on rainy days", "sometimes", a denial)
_MODES = [(re.compile(p, re.IGNORECASE), mode) for p, mode in (
    (r"\b(?:e-?bikes?|bikes?|biking|bicycles?|cycles|cycling)\b|骑车|自行车|单车|电动车|电瓶车|骑行", "bike"),
    (r"\b(?:drives|driving|by car)\b|开车|自驾", "car"), (r"\b(?:metro|subway|underground|tube)\b|地铁", "metro"),
    (r"\b(?:bus|buses)\b|公交|巴士", "bus"), (r"\b(?:walks|walking|on foot)\b|走路|步行", "walk"),
    (r"\b(?:train|commuter rail)\b|火车|高铁|城铁", "train"), (r"\b(?:tram|streetcar)\b|有轨电车", "tram"),
    (r"\b(?:taxi|cab)\b|打车|出租车", "taxi"))]
_TO_WORK = re.compile(r"\bcommut\w*|\bto (?:work|the office|school|campus|the lab|the clinic|the hospital)\b|"
                      r"\b(?:drives|bikes|cycles|walks) to (?-i:[A-Z])|上班|通勤|去公司|去单位|去医院|去学校|到公司",
                      re.IGNORECASE)
_HEDGE = re.compile(r"\b(?:sometimes|occasionally|when it rains|on rainy days|if|unless|in winter|in summer|"
                    r"not|never|no longer|isn't|doesn't|can't)\b|偶尔|有时|下雨|不再|不|没", re.IGNORECASE)


def commute(text: str) -> tuple[str, str] | None:
    """``(who, mode)`` of how someone gets to work, said in one clause with one way, or ``None``."""
    clause = re.split(r"[;；。]", text)[0]
    if not _TO_WORK.search(clause) or _HEDGE.search(clause):
        return None
    found = [(m.start(), mode) for pattern, mode in _MODES for m in pattern.finditer(clause)]
    if len({mode for _, mode in found}) != 1:
        return None
    verb = _COMMUTE_VERB.search(clause)
    at = min([spot for spot, _ in found] + ([verb.start()] if verb else []))
    who = _ZH_WHEN.sub("", _EN_WHEN.sub("", re.split(r"[,，]", clause[:at])[-1]))  # "[Since the move] she", "[搬家以后]她"
    return who, found[0][1]


_COMMUTE_VERB = re.compile(r"\b(?:now\s+|usually\s+|currently\s+)?(?:commutes|takes|rides|bikes|cycles|drives|walks|"
                           r"gets)\b|(?:现在|改|每天)?(?:骑|坐|开|乘|搭|打|走)", re.IGNORECASE)
_ZH_WHEN = re.compile(r"^.*?(?:以后|之后|以来)")
_EN_WHEN = re.compile(r"^\s*(?:ever\s+)?(?:since|after|before|now that)\s+(?:the\s+|her\s+|his\s+|their\s+)?\w+\s*",
                      re.IGNORECASE)


def home(text: str, *, moved: bool) -> tuple[str, str] | None:
    """``(who, place)`` of a move of home (``moved``) or of where someone lives, or ``None``."""
    for pattern in (_HOME_MOVE_EN, _HOME_MOVE_ZH) if moved else (_LIVES_EN, _LIVES_ZH):
        m = pattern.search(text)
        if m:
            return _BEFORE_MOVE.sub(" ", m.group("who")), m.group("place").strip()
    return None


_FAVOURITE_EN = re.compile(r"^(?P<who>.*?)\b(?:all-time\s+)?favou?rite\s+(?P<kind>[a-z][\w -]{0,30}?)\s+"
                           r"(?:is|was|has become|became|is now|now is|these days is)\s+(?:now\s+)?"
                           r"(?P<value>[^,;.!?]+)", re.IGNORECASE)
_FAVOURITE_ZH = re.compile(r"^(?P<who>[^，。；,;]*?)最(?:喜欢|爱|喜爱)(?:吃|喝|看|听|玩|用|读|去)?的"
                           r"(?P<kind>[^，。；,;是]{1,8}?)(?:就)?是(?P<value>[^，。；,;！？!?]{1,20})")
# Not the present: "used to live in", 以前住在, "grew up in" are where someone was.
PAST = re.compile(r"\bused to\b|\bformerly\b|\bonce lived\b|\bgrew up\b|\bas a (?:child|kid)\b|"
                   r"以前|之前|曾经|曾|小时候|原来|从前|过去")
# Whom it is about, apart from the user ("his", "他" in a note about the user are the user)
_PRONOUNS = frozenset(words("he she his her they their him 他 她 他们"))
# when, not who: "As of January the user lives in …", "Since 2023, Maya …"
_WHEN = re.compile(r"\b(?:as of|since|from|in|after|before)\s+\S+(?:\s+\d{4})?,?|\b\d{4}\b", re.IGNORECASE)
_NOW_ZH = re.compile(r"现在|目前|如今|最近|已经|这几年|今年|一直|仍然|依然|仍旧|还是|还|也|都")
# A team, a project or a system moves too ("The team moved to Slack", 团队搬到了钉钉上): not a home.
_NOT_PERSON = re.compile(r"\b(?:we|our|us|team|teams|project|company|service|services|app|apps|api|server|servers|"
                         r"cluster|database|repo|repository|build|builds|pipeline|ci|data|docs|code)\b|"
                         r"团队|项目|我们|公司|服务|系统|应用|仓库|代码|数据|接口|流水线|文档", re.IGNORECASE)

Single = tuple[str, frozenset[str], str]  # (attribute, person, value)


@lru_cache(maxsize=131_072)
def single(text: str) -> Single | None:
    """``(attribute, person, value)`` of a statement of a one-at-a-time value, or ``None``:
    ``("home", …)`` for where someone lives or moved to, ``("work", …)`` where they work (said in
    Chinese), ``("manager", …)`` whom they report to, ``("commute", …)`` how they get to work,
    ``("favourite:<kind>", …)``."""
    if PAST.search(text):
        return None
    text = text.replace("_", " ")  # a triplet's relation: "user lives_in Qingdao"
    found = home(text, moved=True) or home(text, moved=False)
    if found is not None:
        return None if _NOT_PERSON.search(found[0]) else ("home", _person(found[0]), found[1])
    boss = manager(text)
    if boss is not None:
        return None if _NOT_PERSON.search(boss[0]) else ("manager", _person(boss[0]), boss[1])
    way = commute(text)
    if way is not None:
        return None if _NOT_PERSON.search(way[0]) else ("commute", _person(way[0]), way[1])
    works = workplace(text)
    if works is not None:
        return None if _NOT_PERSON.search(works[0]) else ("work", _person(works[0]), works[1])
    m = _FAVOURITE_EN.search(text) or _FAVOURITE_ZH.search(text)
    if m is None:
        return None
    kind = [CANON.get(t, t) for t in words(m.group("kind")) if t not in GENERIC]
    value = m.group("value").strip(" '\"“”「」《》")
    if not kind or not words(value):
        return None
    return "favourite:" + " ".join(kind), _person(m.group("who")), value


def _person(who: str) -> frozenset[str]:
    """Whom a statement is about, as words ("The user", "用户", "his" are the owner: empty)."""
    named = relatives_named(who)  # "Tomás's sister Linnea" is Linnea
    return named or frozenset(words(_NOW_ZH.sub("", _WHEN.sub(" ", who)))) - OWNER_WORDS - GENERIC - _PRONOUNS


def differ(a: str, b: str, mine: frozenset[str] = frozenset()) -> bool:
    """Both state one person's one-at-a-time value (where they live, their favourite of
    one kind), in one language, and name two values neither of which the other mentions;
    across languages, two homes whose names are provably two places (苏州 / Xiamen), two ways
    to work. ``mine``: the user's name as words ("Marcus …" and "He …" are one person)."""
    sa, sb = single(a), single(b)
    if sa is None or sb is None or sa[0] != sb[0] or sa[1] - mine != sb[1] - mine:
        return False
    if cjk(a) != cjk(b):  # a way to work is one key in either language
        return (sa[0] == "home" and same_place(sa[2], sb[2]) is False or sa[0] == "commute" and sa[2] != sb[2]) \
            and kin(a) == kin(b)
    if name_key(sa[2]) == name_key(sb[2]) or mentions(a, sb[2]) or mentions(b, sa[2]):
        return False
    if sa[0] == "work" and (sa[2][-2:] in sb[2] or sb[2][-2:] in sa[2]):
        return False  # one inside the other: "明湖医院[药剂科]" / "[药剂科]的门诊药房"
    kin_a, kin_b = (kin(a), kin(b)) if sa[0] != "manager" else (kin(a) - {"boss"}, kin(b) - {"boss"})  # 上司 is the slot
    return (kin_a == kin_b and named_people(a) == named_people(b)) or bool(sa[1] & (relatives_named(a) |
                                                                                 relatives_named(b)))


def same_value(a: str, b: str) -> bool:
    """Both state one person's one-at-a-time value and name the same one ("Lives in Austin,
    Texas" / "Is based in Austin, TX"; 苏州 / Suzhou)."""
    sa, sb = single(a), single(b)
    if sa is None or sb is None or sa[:2] != sb[:2] or kin(a) != kin(b):
        return False
    return name_key(sa[2]) == name_key(sb[2]) or (cjk(a) != cjk(b) and same_place(sa[2], sb[2]) is True)


def other_attribute(a: str, b: str) -> bool:
    """Both state a one-at-a-time value, of two attributes ("favourite band" / "favourite colour")."""
    sa, sb = single(a), single(b)  # across languages the kinds are not comparable words
    return sa is not None and sb is not None and sa[0] != sb[0] and cjk(a) == cjk(b)


def single_conflicts(live: Sequence[MemoryItem], add: Callable[[MemoryItem, MemoryItem, str], None],
                     owner: str | None = None) -> None:
    """Every two statements of one person's one-at-a-time value that name two values
    (``differ``), whatever else their wording shares: compared only within their own
    user, block, attribute and person."""
    groups: dict[tuple[str, str, str, frozenset[str]], list[int]] = defaultdict(list)
    mine = frozenset(words(owner)) if owner else frozenset()
    for i, m in enumerate(live):
        s = single(m.memory)
        if s is not None:
            groups[(m.user_id, block_of(m), s[0], s[1] - mine)].append(i)  # "Marcus …" / "He …": the user
    for idx in groups.values():
        if len(idx) > 50:
            continue  # dozens of values of one attribute: a list (places visited), not one value
        for x, y in combinations(idx, 2):
            if differ(live[x].memory, live[y].memory, mine):
                add(live[x], live[y], "")
