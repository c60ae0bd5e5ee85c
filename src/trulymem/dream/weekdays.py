"""Days of the week, one key each (``w:1`` is Monday; plural, a habit: "on Tuesdays" is
``w:2 f:1w``), however written: "Tue", 周二, 星期二, 礼拜二. Ranges and lists are each day
("Monday to Friday", 周一至周五, 周二、四), the five working days together are "on weekdays";
"the third Monday" (``wo:3``) is one day of a month; "except Wednesday" (``wx:3``) no Wednesday.
``WEEKDAYS`` are the readers in the order they run.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_DAYS = {w: k + 1 for k, w in enumerate("monday tuesday wednesday thursday friday saturday sunday".split())}
_ZH_DAY = {ch: k + 1 for k, ch in enumerate("一二三四五六日")} | {"天": 7}
# "Tue/Thu": capitalised only ("sat", "sun", "wed" are words too)
_ABBR = {"Mon": 1, "Tue": 2, "Tues": 2, "Wed": 3, "Thu": 4, "Thur": 4, "Thurs": 4, "Fri": 5, "Sat": 6, "Sun": 7}
_DAYS_EN = "|".join(sorted(_DAYS, key=len, reverse=True))
_EN_DAY_ABBR = re.compile(r"\b(" + "|".join(sorted(_ABBR, key=len, reverse=True)) + r")\b\.?")
_EN_WEEKDAY = re.compile(rf"\b(every\s+)?({_DAYS_EN})(s)?\b\.?", re.IGNORECASE)
_ZH_WEEK = "(?:周|星期|礼拜)"
_ZH_WEEKDAY = re.compile(rf"(每个?)?{_ZH_WEEK}([一二三四五六日天])")
_DAY_OR_ABBR = rf"(?:{_DAYS_EN}|(?-i:{'|'.join(sorted(_ABBR, key=len, reverse=True))}))"
_EN_RANGE = re.compile(rf"\b(?:from\s+)?({_DAY_OR_ABBR})s?\.?\s*(?:to|through|thru|until|till|-|–|—)\s*({_DAY_OR_ABBR})s?\b",
                       re.IGNORECASE)
_ZH_RANGE = re.compile(rf"(?:每个?)?{_ZH_WEEK}([一二三四五六日天])\s*(?:到|至|-|~|～|—)\s*{_ZH_WEEK}?([一二三四五六日天])"
                       r"(?![点點时号])")
# 周二、四 / 周一三五 / 周二和四: the days after the first share its 周 (not 周一三点, Monday at three)
_ZH_LIST = re.compile(rf"(每个?)?{_ZH_WEEK}([一二三四五六日天])((?:[、，,和及与]?[一二三四五六日天](?![点點时号月个次年岁]))+)")
# "every other Tuesday" = "every second Tuesday" = 隔周二: that day every two weeks (not the second Tuesday)
_ALTERNATE = re.compile(rf"\bevery\s+(?:other|second|2nd)\s+({_DAYS_EN})\b|隔周([一二三四五六日天])", re.IGNORECASE)
# "the third Monday" / 第三个周一 is one day of the month, not every Monday; "except Wednesday" is no Wednesday
_NTH_WEEKDAY = re.compile(rf"\b(first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)\s+({_DAYS_EN})\b"
                          rf"|(?:第([一二三四五\d])|(最后一))个?{_ZH_WEEK}([一二三四五六日天])", re.IGNORECASE)
_NTH = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5,
        "5th": 5, "last": -1, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "最后一": -1}
_EXCEPT_DAY = re.compile(rf"\b(?:except|but not|other than|apart from|excluding)\s+(?:on\s+)?({_DAYS_EN})s?\b"
                         rf"|除了?{_ZH_WEEK}([一二三四五六日天])", re.IGNORECASE)


def _nth_weekday(m: re.Match[str]) -> str:
    if m.group(2):
        return f"w:{_DAYS[m.group(2).casefold()]} wo:{_NTH[m.group(1).casefold()]}"
    nth = m.group(3) or m.group(4)
    return f"w:{_ZH_DAY[m.group(5)]} wo:{_NTH.get(nth, int(nth) if nth.isdigit() else 0)}"


def _except_day(m: re.Match[str]) -> str:
    return f"wx:{_DAYS[m.group(1).casefold()] if m.group(1) else _ZH_DAY[m.group(2)]}"


def _days(first: int, last: int) -> str | None:
    """Each day from the first to the last (Friday to Monday goes over the weekend)."""
    if first == last:
        return None
    span = [(first - 1 + k) % 7 + 1 for k in range((last - first) % 7 + 1)]
    return " ".join(f"w:{d}" for d in span)


def _day(written: str) -> int:
    return _DAYS.get(written.casefold()) or _ABBR[written]


def _zh_list(m: re.Match[str]) -> str:
    days = [_ZH_DAY[m.group(2)], *(_ZH_DAY[ch] for ch in m.group(3) if ch in _ZH_DAY)]
    return " ".join(f"w:{d}" for d in days) + (" f:1w" if m.group(1) else "")


WEEKDAYS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str | None]]] = [
    (_EXCEPT_DAY, _except_day),
    (_ALTERNATE, lambda m: f"w:{_DAYS[m.group(1).casefold()] if m.group(1) else _ZH_DAY[m.group(2)]} f:2w"),
    (_NTH_WEEKDAY, _nth_weekday),
    (_EN_RANGE, lambda m: _days(_day(m.group(1)), _day(m.group(2)))),
    (_ZH_RANGE, lambda m: _days(_ZH_DAY[m.group(1)], _ZH_DAY[m.group(2)])),
    (_ZH_LIST, _zh_list),
    (_EN_WEEKDAY, lambda m: f"w:{_DAYS[m.group(2).casefold()]}" + (" f:1w" if m.group(1) or m.group(3) else "")),
    (_EN_DAY_ABBR, lambda m: f"w:{_ABBR[m.group(1)]}"),
    (_ZH_WEEKDAY, lambda m: f"w:{_ZH_DAY[m.group(2)]}" + (" f:1w" if m.group(1) else "")),
]

_WEEKEND, _WORKWEEK = frozenset({"w:6", "w:7"}), frozenset(f"w:{d}" for d in range(1, 6))


def whole_weeks(keys: frozenset[str]) -> frozenset[str]:
    """"On Saturdays and Sundays" is "on weekends", Monday to Friday is "on weekdays"; a day of
    every month (``dm:``) says "monthly" already."""
    for days, key in ((_WEEKEND, "f:we"), (_WORKWEEK, "f:wd")):
        if days <= keys:
            keys = keys - days - {"f:1w"} | {key}
    return keys - {"f:1m"} if any(k.startswith("dm:") for k in keys) else keys
