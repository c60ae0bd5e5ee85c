"""Time named in a query ("yesterday", "last May", "in 2023", "上周") as a date range.

Recall boosts memories whose event time falls in the range; it does not drop the
others (a guess from wording should never hide a memory)."""

from __future__ import annotations

import calendar
import re
from datetime import datetime, timedelta

_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS |= {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))


def _day(t: datetime) -> datetime:
    return t.replace(hour=0, minute=0, second=0, microsecond=0)


def _month(year: int, month: int) -> tuple[datetime, datetime, int]:
    return datetime(year, month, 1), datetime(year, month, calendar.monthrange(year, month)[1], 23, 59, 59), month


_ORD = r"(?:st|nd|rd|th)?"
_DAY_PATTERNS = (
    # 7 July, 2023 · 8th of December 2023 · 25 may 2022
    (re.compile(rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?({_MONTH_RE})\b(?:,?\s*(\d{{4}}))?"), (3, 2, 1)),
    # July 7, 2023 · on august 3rd  ("may 5 people" is not a date: a bare month-day needs "on")
    (re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}}){_ORD}\b(?:,?\s*(\d{{4}}))"), (3, 1, 2)),
    (re.compile(rf"\bon\s+({_MONTH_RE})\.?\s+(\d{{1,2}}){_ORD}\b()"), (3, 1, 2)),
    (re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"), (1, 2, 3)),
    (re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]"), (1, 2, 3)),
)
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a few": 3, "few": 3,
           "a couple of": 2, "couple of": 2}
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
# "the week before 3 Aug", "last weekend before April 10", "two weeks before August 11", "the Sunday before …"
_SHIFT = re.compile(rf"\b(?:(?:the|last)\s+)?(?:(\d+|{'|'.join(sorted(_COUNTS, key=len, reverse=True))})\s+)?"
                    rf"(day|week|weekend|month|year|{_WEEKDAYS})s?\s+(before|after)\s+(?:on\s+)?$")
_SPAN_DAYS = {"day": 1, "week": 7, "weekend": 7, "month": 31, "year": 366}


def _named_day(q: str, now: datetime) -> tuple[datetime, str] | None:
    """The first calendar day written out in ``q`` (midnight, naive) and its words. Without
    a year it is the latest such day not after ``now``."""
    for pattern, (yi, mi, di) in _DAY_PATTERNS:
        for m in pattern.finditer(q):
            month_word, day_no = m.group(mi), int(m.group(di))
            month = _MONTHS[month_word] if month_word in _MONTHS else int(month_word)
            year = int(m.group(yi)) if m.group(yi) else now.year
            try:
                date = datetime(year, month, day_no)
                if not m.group(yi) and date.date() > now.date():
                    date = date.replace(year=year - 1)
            except ValueError:  # 31 February, 2023-13-40: not a day
                continue
            return date, m.group(0).strip()
    return None


def time_range_in(query: str, now: datetime) -> tuple[datetime, datetime, str] | None:
    """``(start, end, the words that named it)`` in ``now``'s timezone, or ``None``."""
    q = query.casefold()
    today = _day(now)

    def span(start: datetime, days: float, words: str) -> tuple[datetime, datetime, str]:
        start = start.replace(tzinfo=now.tzinfo)
        return start, start + timedelta(days=days) - timedelta(microseconds=1), words

    # A calendar day written out wins over relative words: "last weekend before April 10, 2023"
    # is about April, not about the week before the question is asked.
    day = _named_day(q, now)
    if day is not None:
        date, words = day
        shift = _SHIFT.search(q[: q.find(words)])
        if shift:
            # "the week before 3 August" includes the 3rd: that is when "last week" was talked about.
            count, unit, way = shift.groups()
            n = int(count) if count and count.isdigit() else _COUNTS.get(count or "", 1)
            days = _SPAN_DAYS.get(unit, 7) * max(1, min(n, 12))  # a weekday: within the week before
            start = date - timedelta(days=days) if way == "before" else date
            return span(start, days + 1, shift.group(0) + words)
        return span(date, 1, words)
    for words, offset, days in (("day before yesterday", -2, 1), ("前天", -2, 1), ("yesterday", -1, 1),
                                ("昨天", -1, 1), ("today", 0, 1), ("今天", 0, 1)):
        if words in q:
            return span(today + timedelta(days=offset), days, words)
    monday = today - timedelta(days=today.weekday())
    for words, offset in (("last week", -7), ("上周", -7), ("上个星期", -7), ("this week", 0), ("这周", 0), ("本周", 0)):
        if words in q:
            return span(monday + timedelta(days=offset), 7, words)
    first = today.replace(day=1)
    for words, back in (("last month", 1), ("上个月", 1), ("this month", 0), ("这个月", 0), ("本月", 0)):
        if words in q:
            y, mo = (first.year, first.month - back) if first.month > back else (first.year - 1, first.month + 12 - back)
            start, end, _ = _month(y, mo)
            return start.replace(tzinfo=now.tzinfo), end.replace(tzinfo=now.tzinfo), words
    for words, year in (("last year", now.year - 1), ("去年", now.year - 1), ("this year", now.year),
                        ("今年", now.year)):
        if words in q:
            return (datetime(year, 1, 1, tzinfo=now.tzinfo), datetime(year, 12, 31, 23, 59, 59, tzinfo=now.tzinfo),
                    words)
    m = re.search(rf"\b(last\s+|in\s+)?({_MONTH_RE})\b(?:,?\s+(\d{{4}}))?", q)
    if m:
        month = _MONTHS[m.group(2)]
        year = int(m.group(3)) if m.group(3) else now.year
        if not m.group(3) and (m.group(1) or "").strip() == "last" and month >= now.month:
            year -= 1  # "last May" said in March means May of last year
        if m.group(3) or m.group(1):
            start, end, _ = _month(year, month)
            return start.replace(tzinfo=now.tzinfo), end.replace(tzinfo=now.tzinfo), m.group(0).strip()
    m = re.search(r"(\d{4})\s*年\s*(\d{1,2})\s*月", q)
    if m and 1 <= int(m.group(2)) <= 12:
        start, end, _ = _month(int(m.group(1)), int(m.group(2)))
        return start.replace(tzinfo=now.tzinfo), end.replace(tzinfo=now.tzinfo), m.group(0)
    m = re.search(r"\b(?:in|during)\s+((?:19|20)\d{2})\b", q)
    if m:
        y = int(m.group(1))
        return datetime(y, 1, 1, tzinfo=now.tzinfo), datetime(y, 12, 31, 23, 59, 59, tzinfo=now.tzinfo), m.group(0)
    return None
