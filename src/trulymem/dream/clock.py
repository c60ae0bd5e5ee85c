"""Times of day written many ways, one key each (``t:HH:MM``): ``02:00 UTC`` = ``2am UTC``,
``14:30`` = ``2:30 pm`` = ``下午两点半`` = ``half past two in the afternoon``, ``6.30pm`` =
``18:30``, ``quarter to eight`` = ``7:45``, ``seven-thirty`` = ``7:30``. A number that may
be something else ("ten to twelve people", 三点五公里, "30 pm") is not read, rather than
read wrong. ``TIMES`` are the readers in the order they run (the longer forms first).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from trulymem.dream.numerals import EN_NUMBER, ZH_NUM, num

_MERIDIEM = r"(a\.?m\.?|p\.?m\.?)(?![a-z])"
_CLOCK = re.compile(rf"(?<![\d.:])(\d{{1,2}}):(\d{{2}})(?::\d{{2}})?\s*(?:{_MERIDIEM})?(?![\d:])", re.IGNORECASE)
# "6.30pm": a dot between hour and minutes only with am / pm (else "6.30" is a number)
_DOT_CLOCK = re.compile(rf"(?<![\d.:])(\d{{1,2}})\.(\d{{2}})\s*{_MERIDIEM}", re.IGNORECASE)
_AMPM = re.compile(rf"(?<![\d.:])(\d{{1,2}})\s*{_MERIDIEM}", re.IGNORECASE)
_HOURS_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
# "quarter to eight" (07:45), "half past seven", "ten past nine"; bare minutes before "to" only with am / pm
# or o'clock ("ten to twelve people" is a count)
_PAST_TO = re.compile(rf"\b(?:(a\s+quarter|quarter|half)\s+(past|after|to)|"
                      rf"(five|ten|\d{{1,2}})(?:\s+minutes)?\s+(past|after|to))\s+"
                      rf"({_HOURS_WORDS}|\d{{1,2}})\b(?:\s*(a\.?m\.?|p\.?m\.?|o'?clock)(?![a-z]))?", re.IGNORECASE)
# "seven-thirty", "at seven 45", "seven 30 pm" (the minutes are digits once spelled numbers are read)
_WORD_CLOCK = re.compile(rf"\b({_HOURS_WORDS})(-|\s)([1-5]\d)(?![\d-])(?:\s*{_MERIDIEM})?", re.IGNORECASE)
_AT = re.compile(r"\b(?:at|by|until|till|from|around|about|before|after|since)\s+$", re.IGNORECASE)
# "7 in the morning", "seven thirty in the evening", "11 at night"
_PART_OF_DAY = re.compile(rf"(?<![\d.:])(\d{{1,2}}|{_HOURS_WORDS})(?:(?::|\.|-|\s)([0-5]\d))?(?:\s*o'?clock)?\s+"
                          r"(in\s+the\s+morning|in\s+the\s+afternoon|in\s+the\s+evening|at\s+night)\b", re.IGNORECASE)
_EN_HOUR_WORD = re.compile(rf"\b({_HOURS_WORDS})\s*(?:{_MERIDIEM}|o'?clock(?![a-z]))|(?<![\d.:])(\d{{1,2}})\s*o'?clock\b",
                           re.IGNORECASE)
# noon; 中午 after a date ("5月14日中午"), read before the date blanks it; not before its hour (中午12点)
NOON = re.compile(r"\b(noon|midday|midnight)\b|(?<=[日号])\s*中午(?!\s*[0-9一二两三四五六七八九十])", re.IGNORECASE)
# 点 is o'clock after a part of the day, or before 半 / 钟 / minutes / 开 / 前 …: not in 一点点,
# 两点建议 (two points) or 三点五 (3.5); a weekday's numeral is no hour (周一三点 is Monday at 3)
_PARTS_ZH = rf"凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜间|晚(?=\s*[0-9{ZH_NUM}])|早(?=\s*[0-9{ZH_NUM}])"
_ZH_TIME = re.compile(rf"({_PARTS_ZH})?\s*(?<![周期拜])([0-9]{{1,2}}|[{ZH_NUM}]{{1,3}})\s*[点點时]"
                      rf"(半|一刻|三刻|整|钟|过?([0-9]{{1,2}}|[{ZH_NUM}]{{1,3}})(分)?)?")
# after bare minutes, a unit: "3点5公里" is 3.5 km, not a time
_ZH_UNIT_NEXT = re.compile(r"[公千米个元块斤岁倍万亿%度克秒]|分钟|小时")
_ZH_TIME_AFTER = re.compile(r"[开到前后以之左起，。,.;；、\s]|$")
_ZH_HOUR_NEXT = re.compile(r"[开到前后以之左起]")
_PM_ZH = {"下午", "傍晚", "晚上", "中午", "晚", "夜间"}
# "2:30 to 3:50 pm": the one am/pm is both times' ("11 to 1 pm": the first is before noon)
_RANGE_MERIDIEM = re.compile(r"(?<![\d.:])(\d{1,2})(:\d{2})?(\s*(?:to|-|–|—|until|till|and)\s*)(\d{1,2})(:\d{2})?\s*"
                             r"(a\.?m\.?|p\.?m\.?)(?![a-z])", re.IGNORECASE)


def _both_halves(m: re.Match[str]) -> str:
    if m.group(3).strip().casefold() == "and" and not m.string[:m.start()].casefold().endswith("between "):
        return m.group(0)  # "between 2 and 4 pm" is a range; "at 10 and 2 pm" is left as written
    h1, h2, half = int(m.group(1)), int(m.group(4)), m.group(6)
    first = half if h1 <= h2 or h1 == 12 else ("am" if half.casefold().startswith("p") else "pm")
    return f"{m.group(1)}{m.group(2) or ''}{first}{m.group(3)}{m.group(4)}{m.group(5) or ''}{half}"


# 下午两点到四点: the part of the day is both times' (14:00 to 16:00, not 04:00)
_ZH_RANGE = re.compile(rf"({_PARTS_ZH})(\s*[0-9{ZH_NUM}]{{1,3}}\s*[点點时]"
                       rf"[^到至~～—\-，。,;；]{{0,4}}\s*(?:到|至|~|～|—|-)\s*)(?=[0-9{ZH_NUM}]{{1,3}}\s*[点點时])")


def one_meridiem_each(text: str) -> str:
    """A range's one am / pm (or Chinese part of the day) written on both its ends ("2:30 to
    3:50 pm" -> "2:30pm to 3:50pm", 下午两点到四点 -> 下午两点到下午四点)."""
    return _ZH_RANGE.sub(lambda m: m.group(1) + m.group(2) + m.group(1), _RANGE_MERIDIEM.sub(_both_halves, text))


def hhmm(h: int, m: int, half: str | None) -> str | None:
    """The key of a time; ``half``: am / pm, or a Chinese part of the day."""
    if half in ("凌晨", "夜里", "晚上", "晚", "夜间") and h == 12:  # 晚上12点 is midnight
        h = 0
    elif half in _PM_ZH:
        h = h + 12 if h < 12 else h  # 下午3点 = 15:00; 中午12点 = 12:00
    elif half and half[:1] in "ap":  # 12am = 00:00, 12pm = 12:00; "13:00 pm" is 13:00; "30 pm" no time
        if h > 23:
            return None
        h = h if h > 12 else h % 12 + (12 if half.startswith("p") else 0)
    if not (0 <= h <= 24 and 0 <= m < 60):
        return None
    return f"t:{h % 24:02d}:{m:02d}"


def _half(written: str | None) -> str | None:
    return (written or "").casefold().replace(".", "") or None


def noon(m: re.Match[str]) -> str:
    return "t:00:00" if (m.group(1) or "").casefold() == "midnight" else "t:12:00"


def _zh_time(m: re.Match[str]) -> str | None:
    after = m.string[m.end():m.end() + 1]
    if after == "差" or re.search(r"差[^点點时]{1,4}$", m.string[:m.start()]):
        return None  # 差一刻三点, 三点差五分: minutes before the hour, not read rather than read wrong
    if m.group(4) is not None and m.group(5) is None:  # minutes without 分: "下午2点45", "两点四十五"
        two = len(m.group(4)) == 2 and m.group(4).isdigit() or "十" in m.group(4)
        if not two or _ZH_UNIT_NEXT.match(m.string, m.end()):
            return None  # "三点五" is 3.5, "3点5公里" a distance: no time read, rather than a wrong one
    if m.group(3) is None and (after in "点儿" and after or after in ZH_NUM and after):
        return None  # 一点点, 一点儿, 三点五 (3.5)
    if m.group(1) is None and m.group(3) is None and not _ZH_TIME_AFTER.match(after):
        return None  # 两点建议: a time only after a part of the day, or before 开 / 前 / 到 …
    if m.group(1) is None and m.group(2) == "一" and not m.group(3) and not _ZH_HOUR_NEXT.match(after):
        return None  # 只能听懂一点, 多一点: "a little"; 一点开会, 一点前 are times
    h = num(m.group(2))
    rest = m.group(3) or ""
    minute = 30 if rest == "半" else 15 if rest == "一刻" else 45 if rest == "三刻" else (num(m.group(4)) or 0) \
        if m.group(4) else 0
    if h is None or minute is None:
        return None
    return hhmm(h, minute, m.group(1))


def _past_to(m: re.Match[str]) -> str | None:
    """"quarter to eight" is 07:45; bare minutes before "to" need am / pm or o'clock to be a time."""
    minutes = {"quarter": 15, "a quarter": 15, "half": 30}.get(" ".join((m.group(1) or "").casefold().split()))
    if minutes is None:
        minutes = num(m.group(3)) or 0
        if m.group(4).casefold() == "to" and not m.group(6) or not 0 < minutes < 60:
            return None
    if m.group(1) and m.group(1).casefold() == "half" and m.group(2).casefold() == "to":
        return None
    hour = num(m.group(5))
    before = (m.group(2) or m.group(4)).casefold() == "to"
    if hour is None or not 1 <= hour <= 12:
        return None
    h, minute = (hour - 1, 60 - minutes) if before else (hour, minutes)
    half = _half(m.group(6))
    return hhmm(h, minute, half if half and half[:1] in "ap" else None)


def _word_clock(m: re.Match[str]) -> str | None:
    """"seven-thirty" is 07:30; "seven 30" only after "at", "by" … or with am / pm ("seven 30-minute
    sessions" is a count)."""
    if m.group(2) != "-" and not m.group(4) and not _AT.search(m.string[:m.start()]):
        return None
    return hhmm(EN_NUMBER[m.group(1).casefold()], int(m.group(3)), _half(m.group(4)))


def _part_of_day(m: re.Match[str]) -> str | None:
    h, minute, part = num(m.group(1)), int(m.group(2) or 0), " ".join(m.group(3).casefold().split())
    if h is None or not 1 <= h <= 12:
        return None
    if part == "at night":  # "11 at night" is 23:00, "2 at night" 02:00, "12 at night" midnight
        return hhmm(h, minute, "pm" if 6 <= h < 12 else "am")
    return hhmm(h, minute, "am" if part.endswith("morning") else "pm")


def _hour_word(m: re.Match[str]) -> str | None:
    if m.group(3):  # "5 o'clock"
        return hhmm(int(m.group(3)), 0, None)
    return hhmm(EN_NUMBER[m.group(1).casefold()], 0, _half(m.group(2)))


TIMES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str | None]]] = [
    (_PAST_TO, _past_to),
    (_PART_OF_DAY, _part_of_day),
    (_WORD_CLOCK, _word_clock),
    (_DOT_CLOCK, lambda m: hhmm(int(m.group(1)), int(m.group(2)), _half(m.group(3)))),
    (_CLOCK, lambda m: hhmm(int(m.group(1)), int(m.group(2)), _half(m.group(3)))),
    (_AMPM, lambda m: hhmm(int(m.group(1)), 0, _half(m.group(2)))),
    (_EN_HOUR_WORD, _hour_word),
    (_ZH_TIME, _zh_time),
]
