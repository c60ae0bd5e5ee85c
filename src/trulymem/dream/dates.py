"""Dates written many ways, one key each: a day of a month (``d:03-05``, with ``y:2024`` where a
year is given) with its day and month kept apart (``March 5`` = ``5 March`` = ``3月5日`` =
``三月五日`` = ``the fifth of March`` = ``2024.03.05``, never ``May 3`` / ``5月3日``; an ambiguous
``03/04`` stays unread), a day of every month (``dm:25``: "on the 25th", 每月25号), a month
(``m:05``: "in May", 5月, 五月份), a year after "in" or 年, a quarter (``qtr:3``), a decade; a lunar
date (农历八月十五, ``ld:08-15``) is never a calendar date. Month names only capitalised ("may",
"march" are words too). ``DATES`` and ``MONTHS`` are the readers in the order they run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from trulymem.dream.decades import AGE_DECADE_EN, DECADE_EN, DECADE_ZH, YEAR_ZH, age_decade, decade_en, decade_zh
from trulymem.dream.numerals import ZH_NUM, num

Reader = Callable[[re.Match[str]], str | None]

_MONTHS = {m: k + 1 for k, names in enumerate((
    "january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul", "august aug",
    "september sep sept", "october oct", "november nov", "december dec")) for m in names.split()}
# capitalised only: "may", "march" and "sat" are words too ("We may deploy", "march 5 miles")
_MONTH_RE = "(?-i:" + "|".join(sorted((m.capitalize() for m in _MONTHS), key=len, reverse=True)) + ")"
_ORD = r"(?:st|nd|rd|th)?"


_ISO_DATE = re.compile(r"(?<!\d)(?<!\d\.)(\d{4})([-./])(\d{1,2})\2(\d{1,2})(?!\d|\.\d)")  # 2024-03-05, 2024.03.05, 2024/3/5
# a year after "in", "since" … ("joined in 2015" is 2015年, not the number 2015)
_EN_YEAR = re.compile(r"\b(?:in|since|from|until|till|by|of|before|after|around|circa|during|through|early|late|mid)"
                      r"[\s-]+((?:19|20)\d\d)\b(?![,.]\d|\s*%|s\b)", re.IGNORECASE)
_DMY_DOTS = re.compile(r"(?<!\d)(?<!\d\.)(\d{1,2})\.(\d{1,2})\.(\d{4})(?!\d|\.\d)")  # 05.03.2024: day first, as written in Europe
# "the fifth of March", "March twenty-first": an ordinal in words beside a month name
_ORDINALS = {w: k + 1 for k, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth "
    "sixteenth seventeenth eighteenth nineteenth twentieth".split())} | {"thirtieth": 30}
_ORD_WORD = r"((?:twenty|thirty)[- ])?(" + "|".join(_ORDINALS) + ")"
_EN_ORD_DATE = re.compile(rf"\b(?:the\s+)?{_ORD_WORD}\s+of\s+({_MONTH_RE})\b|\b({_MONTH_RE})\s+(?:the\s+)?{_ORD_WORD}\b",
                          re.IGNORECASE)
_EN_MD = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}}){_ORD}\b(?:,?\s+(\d{{4}}))?", re.IGNORECASE)
_EN_DM = re.compile(rf"\b(\d{{1,2}}){_ORD}(?:\s+of)?\s+({_MONTH_RE})\b\.?(?:,?\s+(\d{{4}}))?", re.IGNORECASE)
_ZH_MD = re.compile(rf"(?:([0-9]{{4}})\s*年\s*)?([0-9]{{1,2}}|[{ZH_NUM}]{{1,3}})\s*月\s*"
                    rf"([0-9]{{1,2}}|[{ZH_NUM}]{{1,3}})\s*[日号]")
# 14/03 or 03/14: read only where one side cannot be a month (an ambiguous 03/04 is left as numbers)
_SLASH_DATE = re.compile(r"(?<![\d/.])(\d{1,2})/(\d{1,2})(?:/(\d{4}))?(?![\d/])")
_ZH_YM = re.compile(r"([0-9]{4})\s*年\s*([0-9]{1,2})\s*月(?!\s*[0-9一二三四五六七八九十]+\s*[日号])")
_DAY_OF_MONTH_EN = re.compile(
    r"\b(?:(?:on|by|before|until|till|after|around|from)\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b"
    r"(?=\s*(?:$|[,.;:!?)]|(?:of\s+(?:each|every|the)\s+month|each\s+month|every\s+month|and|or|at|for|so|but|because|"
    r"when|if|instead|now|this|next|each|every)\b))"
    r"|\b(?:the|(?<=and )(?:the\s+)?)\s*(\d{1,2})(?:st|nd|rd|th)"  # "… and (the) 15th of each month"
    r"(?=\s+(?:of\s+(?:each|every|the)\s+month|each\s+month|every\s+month)))",
    re.IGNORECASE)
_DAY_OF_MONTH_ZH = re.compile(rf"(?:(?<=月)|(?<=月 )|(?<=日是)|(?<=日是 )|(?<=[号日]和)|(?<=[号日]、))"
                              rf"([0-9]{{1,2}}|[{ZH_NUM}]{{1,3}})\s*[号日](?![元天期])")
_EN_MONTH = re.compile(rf"\b(?:in|during|since|until|by|from|before|after|through|early|mid|late|(?:the\s+)?(?:end|start|"
                       rf"beginning|middle)\s+of)[\s-]+({_MONTH_RE})\b", re.IGNORECASE)
_EN_MONTH_YEAR = re.compile(rf"\b({_MONTH_RE})\.?,?\s+((?:19|20)\d\d)\b", re.IGNORECASE)  # "March 2025" = 2025年3月
# a month alone: 5月, 五月份, 十二月初 (not 三个月, a duration, nor 5月3日, a date)
_ZH_MONTH = re.compile(r"(?<![\d月个每])(1[0-2]|[1-9]|十[一二]?|[一二三四五六七八九])\s*月"
                       r"(?!\s*[0-9一二三四五六七八九十]+\s*[日号])")
# a lunar date is no date of the calendar: 农历八月十五 is not 8月15日
_LUNAR = re.compile(r"(?:农历|阴历)\s*(正|十[一二]?|[一二三四五六七八九]|\d{1,2})月\s*(初[一二三四五六七八九十]|"
                    r"[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九]|\d{1,2})[日号]?")
# Q3 = 第三季度, where it is a quarter: after "in", "by" … or before a year ("Keychron Q1 Pro" is a keyboard)
_QUARTER = re.compile(r"(?:(?<=\bin )|(?<=\bby )|(?<=\bof )|(?<=\bthe )|(?<=\bfor )|(?<=\bnext )|(?<=\blast )|(?<=\bthis )|"
                      r"(?<=\bduring )|(?<=\buntil )|(?<=\bbefore )|(?<=\bafter )|(?<=\bend of ))Q([1-4])\b|"
                      r"\bQ([1-4])(?=\s*'?(?:19|20)?\d\d\b)|第([一二三四1-4])季度")


def _lunar(m: re.Match[str]) -> str | None:
    month = 1 if m.group(1) == "正" else num(m.group(1))
    day = num(m.group(2).removeprefix("初"))
    return None if month is None or day is None else f"ld:{month:02d}-{day:02d}"


def _ordinal(m: re.Match[str]) -> int:
    tens, word = (m.group(1), m.group(2)) if m.group(2) else (m.group(5), m.group(6))
    return _ORDINALS[word.casefold()] + (0 if not tens else 20 if tens.casefold().startswith("tw") else 30)


def _day_of_month(n: str) -> str | None:
    """A day of every month ("on the 20th", 每月25号), apart from a date (one day of one month)."""
    day = num(n)
    return f"dm:{day}" if day is not None and 1 <= day <= 31 else None


@lru_cache(maxsize=65_536)
def maybe_dates(text: str) -> frozenset[str]:
    """The dates an ambiguous 03/04 may be (March 4 or 3 April): equal to neither for sure."""
    out: set[str] = set()
    for m in _SLASH_DATE.finditer(text):
        x, y = int(m.group(1)), int(m.group(2))
        if 1 <= x <= 12 and 1 <= y <= 12 and x != y:
            out |= {f"d:{x:02d}-{y:02d}", f"d:{y:02d}-{x:02d}"}
    return frozenset(out)


def _slash_date(m: re.Match[str]) -> str | None:
    """14/03 is 14 March, 03/14 is March 14; 03/04 could be either and stays unread."""
    x, y = int(m.group(1)), int(m.group(2))
    month, day = (y, x) if x > 12 >= y else (x, y) if y > 12 >= x else (None, None)
    return _date(month, day, m.group(3))


def _date(month: int | None, day: int | None, year: str | None) -> str | None:
    if month is None or day is None or not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return f"d:{month:02d}-{day:02d}" + (f" y:{year}" if year else "")


DATES: list[tuple[re.Pattern[str], Reader]] = [
    (DECADE_ZH, decade_zh),
    (AGE_DECADE_EN, age_decade),
    (DECADE_EN, decade_en),
    (_ISO_DATE, lambda m: _date(int(m.group(3)), int(m.group(4)), m.group(1))),
    (_DMY_DOTS, lambda m: _date(int(m.group(2)), int(m.group(1)), m.group(3))),
    (_EN_ORD_DATE, lambda m: _date(_MONTHS[(m.group(3) or m.group(4)).casefold()], _ordinal(m), None)),
    (_EN_MD, lambda m: _date(_MONTHS[m.group(1).casefold()], int(m.group(2)), m.group(3))),
    (_EN_DM, lambda m: _date(_MONTHS[m.group(2).casefold()], int(m.group(1)), m.group(3))),
    (_LUNAR, _lunar),
    (_ZH_MD, lambda m: _date(num(m.group(2)), num(m.group(3)), m.group(1))),
    (_DAY_OF_MONTH_EN, lambda m: _day_of_month(m.group(1) or m.group(2))),
    (_DAY_OF_MONTH_ZH, lambda m: _day_of_month(m.group(1))),
    (_ZH_YM, lambda m: f"m:{int(m.group(2)):02d} y:{m.group(1)}" if 1 <= int(m.group(2)) <= 12 else None),
    (_EN_MONTH_YEAR, lambda m: f"m:{_MONTHS[m.group(1).casefold()]:02d} y:{m.group(2)}"),
    (_QUARTER, lambda m: f"qtr:{num(m.group(1) or m.group(2) or m.group(3))}"),
    (_SLASH_DATE, _slash_date),
    (YEAR_ZH, lambda m: f"y:{m.group(1)}"),
    (_EN_YEAR, lambda m: f"y:{m.group(1)}"),
]
# a month alone, read after how-often ("一个月一次" is monthly, not January)
MONTHS: list[tuple[re.Pattern[str], Reader]] = [
    (_EN_MONTH, lambda m: f"m:{_MONTHS[m.group(1).casefold()]:02d}"),
    (_ZH_MONTH, lambda m: f"m:{num(m.group(1)):02d}"),
]
