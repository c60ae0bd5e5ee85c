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


def time_range_in(query: str, now: datetime) -> tuple[datetime, datetime, str] | None:
    """``(start, end, the words that named it)`` in ``now``'s timezone, or ``None``."""
    q = query.casefold()
    today = _day(now)

    def span(start: datetime, days: float, words: str) -> tuple[datetime, datetime, str]:
        start = start.replace(tzinfo=now.tzinfo)
        return start, start + timedelta(days=days) - timedelta(microseconds=1), words

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
    m = re.search(rf"\b(last\s+|in\s+)?({_MONTH_RE})\b(?:\s+(\d{{4}}))?", q)
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
