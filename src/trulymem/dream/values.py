"""Values written many ways, read as one: quantities in one unit (``2 GB`` = ``2048 MB``,
``two weeks`` = ``14 days``, ``an hour and 15 minutes`` = ``75 minutes``), how often (``weekly``
= ``every week`` = ``每周``), ages, heights, ports, rates and paths; with dates
(``dream.dates``), times of day (``dream.clock``), weekdays (``dream.weekdays``) and numbers in
words (``dream.numerals``) read by their own modules, in one pass.

``special_values(text)`` returns the canonical keys it found and the text with those
spans blanked, so the judge's other value readers do not count their digits again.
"""

from __future__ import annotations

import re
from functools import lru_cache

from trulymem.dream.clock import NOON, TIMES, noon, one_meridiem_each
from trulymem.dream.dates import DATES, MONTHS, maybe_dates
from trulymem.dream.numerals import EN_NUMBER, ZH_NUM, num, spelled_as_digits, zh_number
from trulymem.dream.weekdays import WEEKDAYS, whole_weeks

# right after an amount, or after its currency ("100 kroner a week", "40 dollars an hour"): the currency stays
# outside the match, for value_sequence to read with the amount
_AFTER_AMOUNT = "(?:(?<=[\\dkK%])|" + "|".join(
    rf"(?<=\d{space}{word})" for space in ("", " ") for word in (
        "[$€£¥]", "(?-i:[A-Z]{3})", "dollar", "dollars", "euro", "euros", "kroner", "kronor", "krone", "yuan", "kuai",
        "franc", "francs", "pound", "pounds", "bucks")) + ")"
# how often: one key per period ("daily" = "every day" = "每天"); "every other week" = "biweekly" = "每两周"
_FREQUENCY = [(re.compile(p, re.IGNORECASE), key) for p, key in (
    (r"\b(?:every other week|every second week|every two weeks|bi-?weekly|fortnightly)\b|每两周|隔周|双周|每隔一周", "f:2w"),
    (r"\b(?:every other day|every second day|every two days)\b|隔天|每两天|每隔一天", "f:2d"),
    (r"\b(?:every|each) morning\b|每天早上|每天早晨|每天上午|每个早上", "f:1d pd:am"),
    (r"\b(?:every|each) afternoon\b|每天下午", "f:1d pd:pm"),
    (r"\b(?:every evening|every night|each evening|each night|nightly)\b|每天晚上|每晚", "f:1d pd:eve"),
    (r"\b(?:hourly|every hour)\b|每小时|每个小时", "f:1h"),
    (r"\b(?:daily|every day|each day)\b|每天|每日", "f:1d"),
    (r"\b(?:weekly|every week|each week|once a week|once per week)\b"
     r"|(?:每周|每星期|每个星期|每礼拜)(?![一二三四五六日天末])", "f:1w"),
    (r"\b(?:on\s+|every\s+)?weekdays?\b|每个?工作日", "f:wd"),
    (r"\b(?:on\s+|every\s+|at\s+|over\s+)?(?:the\s+)?weekends?\b|每个?周末", "f:we"),
    # 月供, 月薪, "房租一个月4800": an amount per month
    (r"\b(?:monthly|every month|each month|once a month)\b|每月|每个月|月供|月薪|月租|一个月(?=\s*\d)", "f:1m"),
    (r"年薪|一年(?=\s*\d)", "f:1y"),
    (r"\b(?:semi-?annually|bi-?annually|half-?yearly|twice yearly)\b|每半年", "f:6m"),
    (r"\b(?:yearly|annually|annual|every year|each year|once a year|per year)\b|每年", "f:1y"),
    (r"\b(?:quarterly|every quarter)\b|每季度|每个季度", "f:3m"),
    # an amount per period ("USD 4,500 a month", "$20/month"): how often, not how long
    *((rf"{_AFTER_AMOUNT}\s*(?:an?|per|each|/)\s*{unit}\b", f"f:1{unit[0]}")
      for unit in ("day", "week", "month", "year")),
    # money by the hour ("SGD 180 an hour", "$40/hr"), not a duration of one hour
    (rf"{_AFTER_AMOUNT}\s*(?:an|per|/)\s*(?:hour|hr|h)\b", "f:1h"))]

# a number's scale word: "50k", "1.5 million", "3万"
_SCALE = {"": 1, "k": 1e3, "thousand": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9, "万": 1e4,
          "千": 1e3, "亿": 1e8, "m": 1e6}  # "m": "1.2M" as written, right after the digits ("Flat 3B" is no billion)
# counted: "twice a week" = "每周两次" = "一周两次" (f:2/w); "两周一次" = "every two weeks" (f:2w), not Monday (周一)
_PERIOD = {"day": "d", "week": "w", "month": "m", "year": "y", "hour": "h", "天": "d", "日": "d", "周": "w",
           "星期": "w", "礼拜": "w", "月": "m", "年": "y", "小时": "h"}
# "twice weekly", "three times daily": how often, not weekly
_TIMES_ADVERB = re.compile(r"\b(once|twice|thrice|(\d+|two|three|four|five|six)\s*(?:times|x|×))\s+"
                           r"(daily|weekly|monthly|yearly|annually|hourly)\b", re.IGNORECASE)
_ADVERB_PERIOD = {"daily": "day", "weekly": "week", "monthly": "month", "yearly": "year", "annually": "year",
                  "hourly": "hour"}
_TIMES_EN = re.compile(r"\b(once|twice|thrice|one time|(\d+|two|three|four|five|six|seven|eight|nine|ten)\s*(?:times|x|×))\s+"
                       r"(?:a|an|per|every|each)\s+(day|week|month|year|hour)\b", re.IGNORECASE)
# "two cups of coffee a day", "8 hours per week": how often; "takes a day", "for a week" are how long
_PER_PERIOD = re.compile(r"(?<=[A-Za-z])\s+(?:a|per|each)\s+(day|week|month|year)\b", re.IGNORECASE)
_HOW_LONG = frozenset("for in within take takes took taking spend spends spent than about only just half a "
                      "over after before".split())


def _per_period(m: re.Match[str]) -> str | None:
    before = m.string[:m.start()].split()
    return None if before and before[-1].casefold() in _HOW_LONG else f"f:1{_PERIOD[m.group(1).casefold()]}"


# "every 3 days" = 每三天 = 每隔三天 = "三天一次" (f:3d); minutes stay a quantity ("every 90 minutes")
_EVERY_N = re.compile(rf"\bevery\s+(\d+|{'|'.join(list(EN_NUMBER)[1:12])})\s+(hour|day|week|month|year)s\b|"
                      rf"每隔?([{ZH_NUM}\d]+)个?(小时|天|日|周|星期|礼拜|月|年)(?![一1]次)", re.IGNORECASE)
_EVERY_ZH = re.compile(rf"(?:每)?(?:([{ZH_NUM}\d]+|半)个?)?(天|日|周|星期|礼拜|月|年|小时)(?:一|1)次")
_TIMES_ZH = re.compile(rf"(?:每|一)个?(天|日|周|星期|礼拜|月|年|小时)([{ZH_NUM}\d]+)次")


_ONCE = {"once": 1, "one time": 1, "twice": 2, "thrice": 3}


def _times(n: float | None, period: str) -> str | None:
    """n times per period: once is the plain frequency ("f:1w"), more is counted ("f:2/w");
    twice a year is every six months (f:6m), as 半年一次 and "semi-annually" say."""
    if n is None or n <= 0:
        return None
    if period == "y" and n > 1 and 12 % n == 0:
        return f"f:{12 // int(n)}m"
    return f"f:1{period}" if n == 1 else f"f:{n:g}/{period}"


def _every_n(m: re.Match[str]) -> str | None:
    n = num(m.group(1) or m.group(3))
    period = _PERIOD[(m.group(2) or m.group(4)).casefold()]
    return None if n is None or n < 2 else _interval(n, period)


# an interval in its largest whole unit: every 60 days is every 2 months, 14 days 2 weeks, 24 months 2 years
_LARGER = {"h": (24, "d"), "d": (30, "m"), "m": (12, "y")}


def _interval(n: int, period: str) -> str:
    while period in _LARGER and n % _LARGER[period][0] == 0:
        n, period = n // _LARGER[period][0], _LARGER[period][1]
    if period == "d" and n % 7 == 0:
        n, period = n // 7, "w"
    return f"f:{n:g}{period}"


def _every_zh(m: re.Match[str]) -> str | None:
    """"两周一次" (every two weeks), "一个月一次" (monthly), "半个月一次" (twice a month)."""
    period = _PERIOD[m.group(2)]
    if m.group(1) == "半":
        return _times(2, period)
    n = num(m.group(1)) if m.group(1) else 1
    return None if n is None or n <= 0 else _interval(n, period)


# a port is one number of one service ("listens on port 8443", "service port is 9443", 监听 8080 端口)
_PORT = re.compile(r"\bports?(?:\s+(?:is|was|of|=|:|number|no\.?))*\s*[:=]?\s*(\d{2,5})\b|(?<!\d)(\d{2,5})\s*端口|"
                   r"端口(?:号)?(?:是|为|改成|改为)?\s*(\d{2,5})(?!\d)|(?<![\w.:/]):(\d{2,5})(?![\d:])", re.IGNORECASE)


# --- quantities -------------------------------------------------------------------------
# unit -> (dimension, size in the dimension's base unit)
_UNITS: dict[str, tuple[str, float]] = {}
_TABLES: dict[str, dict[str, float]] = {
    "time": {"ms": 0.001, "millisecond": 0.001, "milliseconds": 0.001, "毫秒": 0.001, "s": 1, "sec": 1, "secs": 1,
             "second": 1, "seconds": 1, "秒": 1, "秒钟": 1, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
             "分钟": 60, "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600, "小时": 3600,
             "个小时": 3600, "d": 86400, "day": 86400, "days": 86400, "天": 86400, "日": 86400, "week": 604800,
             "weeks": 604800, "fortnight": 1209600, "fortnights": 1209600, "周": 604800, "星期": 604800,
             "个星期": 604800, "礼拜": 604800, "个礼拜": 604800, "钟头": 3600, "个钟头": 3600,
             "个月": 2592000, "month": 2592000, "months": 2592000, "year": 31104000,
             "years": 31104000, "年": 31104000},  # a year is 12 months (of 30 days): "1.5 years" = "18 months"
    "bytes": {"kb": 1, "kib": 1, "千字节": 1, "mb": 1024, "mib": 1024, "兆字节": 1024, "gb": 1024 ** 2, "gib": 1024 ** 2,
              "tb": 1024 ** 3, "tib": 1024 ** 3},
    "length": {"mm": 0.001, "毫米": 0.001, "cm": 0.01, "厘米": 0.01, "公分": 0.01,
               "meter": 1, "meters": 1, "metre": 1, "metres": 1, "米": 1,
               "km": 1000, "kilometer": 1000, "kilometers": 1000, "kilometres": 1000, "公里": 1000, "千米": 1000,
               "mile": 1609.344, "miles": 1609.344, "ft": 0.3048, "feet": 0.3048, "foot": 0.3048, "英尺": 0.3048,
               "inch": 0.0254, "inches": 0.0254, "英寸": 0.0254},
    "pressure": {"bar": 1e5, "psi": 6894.757, "kpa": 1e3, "mpa": 1e6, "巴": 1e5},
    "mass": {"mg": 0.001, "毫克": 0.001, "mcg": 1e-6, "µg": 1e-6, "μg": 1e-6, "微克": 1e-6, "gram": 1, "grams": 1, "克": 1,
             "kg": 1000, "kilo": 1000, "kilos": 1000, "kilogram": 1000,
             "kilograms": 1000, "公斤": 1000, "千克": 1000, "斤": 500, "lb": 453.592, "lbs": 453.592,
             "pound": 453.592, "pounds": 453.592},
    "area": {"hectare": 10000, "hectares": 10000, "ha": 10000, "公顷": 10000, "亩": 666.667, "acre": 4046.86,
             "acres": 4046.86, "平方米": 1, "平米": 1, "m²": 1, "sqm": 1, "square metres": 1,
             "square meters": 1, "square metre": 1, "square meter": 1, "平方公里": 1e6, "km²": 1e6},
    "volume": {"ml": 0.001, "毫升": 0.001, "liter": 1, "liters": 1, "litre": 1, "litres": 1, "升": 1},
    "charge": {"mah": 1, "毫安时": 1, "ah": 1000, "安时": 1000},
    "energy": {"wh": 1, "kwh": 1000, "千瓦时": 1000},
    "power": {"watt": 1, "watts": 1, "瓦": 1, "kw": 1000, "千瓦": 1000},
    "voltage": {"volt": 1, "volts": 1, "伏": 1},
    "current": {"amp": 1, "amps": 1, "ampere": 1, "amperes": 1, "安培": 1},
    "frequency": {"hz": 1, "hertz": 1, "赫兹": 1, "khz": 1e3, "mhz": 1e6, "ghz": 1e9},
    "rate": {"kbit/s": 1, "kbps": 1, "mbit/s": 1e3, "mbps": 1e3, "gbit/s": 1e6, "gbps": 1e6},  # not MB/s: bytes
    "celsius": {"°c": 1, "℃": 1, "摄氏度": 1, "degrees celsius": 1},
    "fahrenheit": {"°f": 1, "℉": 1, "华氏度": 1, "degrees fahrenheit": 1},
    "torque": {"nm": 1, "n·m": 1, "n.m": 1, "newton-metres": 1, "newton-meters": 1, "牛·米": 1, "牛米": 1},
}
for _dim, _table in _TABLES.items():
    for _u, _size in _table.items():
        _UNITS[_u] = (_dim, _size)
# symbols that are a unit only as written ("48 V", "750 W", "640 g"; "20 v 30" is no voltage, "5G" no mass)
_CASED: dict[str, tuple[str, float]] = {"V": ("voltage", 1), "W": ("power", 1), "g": ("mass", 1), "m": ("length", 1),
                                         "A": ("current", 1)}
# "A" is amperes only where the memory speaks of current ("limit is 40 A"), not "Room 12 A" or "Flat 3A"
_CURRENT = re.compile(r"\b(?:current|amps?|amperes?|fuse|breaker|charger|charging|phase)\b|电流|保险丝|充电", re.IGNORECASE)
_CASED_FOLDED = {u.casefold() for u in _CASED}
_UNITS.update(_CASED)
_UNIT_RE = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
_EN_WORDNUM = "|".join(w for w in EN_NUMBER if len(w) > 2)
_QUANTITY = re.compile(rf"(?<![A-Za-z0-9_.{ZH_NUM}点第])(?<!\d,)(\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?|"
                       rf"{_EN_WORDNUM}|[{ZH_NUM}]{{1,8}}个?|半个?|一个半)"
                       rf"(?:\s*|-)({_UNIT_RE})(?![a-z]|(?<=克)朗|(?<=年)级)", re.IGNORECASE)
# "half an hour", "a quarter of an hour", "a day": an article or fraction before a unit written out
_FRACTION = {"half a": 0.5, "half an": 0.5, "a quarter of a": 0.25, "a quarter of an": 0.25, "quarter of an": 0.25,
             "quarter of a": 0.25, "three quarters of an": 0.75, "three quarters of a": 0.75, "an": 1, "a": 1,
             "one and a half": 1.5, "半": 0.5, "一个半": 1.5, "半个": 0.5}
_ARTICLE_QUANTITY = re.compile(r"\b(half an?|(?:a )?quarter of an?|three quarters of an?|one and a half|an?)\s+"
                               r"(minute|hour|day|week|fortnight|month|year|kilometer|kilometre|mile|gigabyte|megabyte)s?\b",
                               re.IGNORECASE)
_UNITS.update({"gigabyte": ("bytes", 1024 ** 2), "megabyte": ("bytes", 1024)})
# "an hour and a half", "two hours and a half", 一刻钟 / 三刻钟 (a quarter / three quarters of an hour)
_AND_A_HALF = re.compile(rf"\b(an?|one|every|\d+|{_EN_WORDNUM})\s+(minute|hour|day|week|month|year)s?\s+and\s+a\s+half\b"
                         rf"|\b(\d+|{_EN_WORDNUM})\s+and\s+a\s+half\s+(minute|hour|day|week|month|year)s?\b", re.IGNORECASE)
_ZH_QUARTERS = re.compile(r"([一三])刻钟")
# "1h50m", "1 hr 50 min", "2h30"
_HOURS_MINUTES = re.compile(r"(?<![\w.])(\d{1,3})\s*h(?:rs?|ours?)?\s*(\d{1,2})\s*(?:m(?:in(?:ute)?s?)?)?(?![\w:])",
                            re.IGNORECASE)
# a URL or a path names one place exactly: "fernweh.app/privacy" is not "fernweh.app/legal/privacy"
_PATHLIKE = re.compile(r"(?:https?://)?(?:[\w-]+\.)+[a-z]{2,}(?:/[\w.~%-]+)+/?|(?<![\w/])(?:\.{0,2}/)?(?:[\w.-]+/)+[\w.-]+",
                       re.IGNORECASE)
# a rate, its unit spelled any way: "100 requests per minute" = "100 req/min" = "100 rpm"
_PER = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600, "hr": 3600, "hour": 3600,
        "d": 86400, "day": 86400}
_RATE_NOUN = {"request": "req", "requests": "req", "req": "req", "reqs": "req", "query": "query", "queries": "query",
              "call": "req", "calls": "req"}  # an API call is a request
_RATE_ABBR = {"rps": ("req", 1), "rpm": ("req", 60), "rph": ("req", 3600), "qps": ("query", 1), "qpm": ("query", 60)}
_RATE = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(k)?\s*(?:(" + "|".join(_RATE_NOUN)
                   + r")\s*(?:per\s+|/\s*|an?\s+|each\s+|every\s+)("
                   + "|".join(sorted(_PER, key=len, reverse=True)) + r")|(" + "|".join(_RATE_ABBR) + r"))\b",
                   re.IGNORECASE)
# --- the reader -------------------------------------------------------------------------
def _blank(text: str, span: tuple[int, int], mark: str) -> str:
    width = span[1] - span[0]
    return text[:span[0]] + (mark.ljust(width) if mark else " " * width) + text[span[1]:]


@lru_cache(maxsize=131_072)
def special_values(text: str, mark: str = "") -> tuple[frozenset[str], str]:
    """Dates, times, quantities and frequencies as canonical keys (``d:03-05``, ``t:14:30``,
    ``q:time:1209600``, ``f:1w``), and the text with their spans blanked (or, with
    ``mark``, each span's start marked: a frame with its values masked)."""
    found, out = _specials(text, mark)
    return whole_weeks(frozenset(k for _, key in found for k in key.split())), out


# "一天半" is 1.5 days, "两个小时半" 2.5 hours
_ZH_AND_HALF = re.compile(rf"([{ZH_NUM}]+|\d+)(?:(天|个?小时|周|个月|年)半|个半(月|小时|星期))")  # 一个半月: 1.5个月


def _and_half(m: re.Match[str]) -> str:
    n = int(m.group(1)) if m.group(1).isdigit() else zh_number(m.group(1))
    return m.group(0) if n is None else f"{n}.5{m.group(2) or '个' + m.group(3)}"


# how much older or younger: "four years younger than her" = 比她小四岁 (no age, no duration)
_AGE_GAP = re.compile(rf"(?<![\d.])(\d{{1,2}}|one|two|three|four|five|six|seven|eight|nine|ten)\s*years?\s+(?:younger|older)\b|"
                      rf"比[^，。,.;；]{{0,8}}?[小大]\s*(\d{{1,2}}|[{ZH_NUM}]{{1,3}})\s*岁", re.IGNORECASE)
# "five days a week" is five times a week, not a duration of five days
_DAYS_A_WEEK = re.compile(r"(?<![\d.])(\d|two|three|four|five|six|seven)\s+days\s+(?:a|per|each)\s+week\b", re.IGNORECASE)
# an age: "35 years old", "a 20-year-old car", "aged 35", 35岁, 三十五周岁, 3岁半 (not a duration of 35 years)
_AGE = re.compile(rf"(?<![\d.])(\d{{1,3}}(?:\.5)?)(\s+and\s+a\s+half)?[\s-]*(?:years?|yrs?)[\s-]+old\b|\baged\s+(\d{{1,3}})\b|"
                  rf"(?<![\d.{ZH_NUM}])(\d{{1,3}}|[零一二两三四五六七八九十]{{1,4}})\s*周?岁(半)?", re.IGNORECASE)
_BELOW_ZERO = re.compile(rf"零下\s*(\d+(?:\.\d+)?|[{ZH_NUM}]+)\s*(?:摄氏度|度|℃|°C)")  # 零下5度: -5 °C
# a height: 5'10", "5 ft 10 in", "6 foot 2"; 一米七五, 1米75, 一米八 (1.8 m)
_FEET_INCHES = re.compile(r"(?<![\d.])(\d)\s*(?:ft|feet|foot|['’′])\s*(\d{1,2})(?:\s*(?:inch(?:es)?\b|in\b|[\"”″]))?")
_ZH_METRES = re.compile(r"(?<![\d.零一二两三四五六七八九十])([12一两])米([0-9]{1,2}|[零一二三四五六七八九]{1,2})"
                        r"(?![\d零一二三四五六七八九十百千万厘公米])")


def _age(m: re.Match[str]) -> str | None:
    years = num(m.group(1) or m.group(3) or m.group(4)) if "." not in (m.group(1) or "") else float(m.group(1))
    if years is None:
        return None
    years += 0.5 if m.group(2) or m.group(5) else 0
    return f"age:{years:g}"


def _height(m: re.Match[str]) -> str | None:
    if m.re is _FEET_INCHES:
        return f"q:length:{round(int(m.group(1)) * 0.3048 + int(m.group(2)) * 0.0254, 6):g}"
    metres, rest = num(m.group(1)), m.group(2)
    tenths = rest if rest.isdigit() else "".join(str(num(ch)) for ch in rest)
    return None if metres is None else f"q:length:{metres + int(tenths) / 10 ** len(tenths):g}"


@lru_cache(maxsize=131_072)
def _specials(text: str, mark: str) -> tuple[tuple[tuple[int, str], ...], str]:
    """``special_values``' keys, each with where its span starts, and the text blanked."""
    found: list[tuple[int, str]] = []
    out = _ZH_AND_HALF.sub(_and_half, one_meridiem_each(spelled_as_digits(text)))

    spans: list[tuple[int, int, str, str]] = []

    def take(pattern: re.Pattern[str], key: object) -> None:
        nonlocal out
        for m in list(pattern.finditer(out)):
            k = key(m)  # type: ignore[operator]
            if k:
                found.append((m.start(), k))
                spans.append((*m.span(), k, m.group(0)))
                out = _blank(out, m.span(), mark)

    take(_PATHLIKE, _path)
    take(_PORT, lambda m: f"port:{int(m.group(1) or m.group(2) or m.group(3) or m.group(4))}")
    take(_RATE, _rate)
    take(NOON, noon)
    for pattern, reader in DATES:
        take(pattern, reader)
    take(_TIMES_ADVERB, lambda m: _times(_ONCE.get(m.group(1).casefold()) or num(m.group(2)),
                                         _PERIOD[_ADVERB_PERIOD[m.group(3).casefold()]]))
    take(_TIMES_EN, lambda m: _times(_ONCE.get(m.group(1).casefold()) or num(m.group(2)), _PERIOD[m.group(3).casefold()]))
    take(_TIMES_ZH, lambda m: _times(num(m.group(2)), _PERIOD[m.group(1)]))
    take(_EVERY_ZH, _every_zh)
    for pattern, reader in MONTHS:
        take(pattern, reader)
    for pattern, reader in TIMES:
        take(pattern, reader)
    for pattern, reader in WEEKDAYS:
        take(pattern, reader)
    take(_BELOW_ZERO, lambda m: f"q:temperature:{-float(m.group(1)) if '.' in m.group(1) else -(num(m.group(1)) or 0):g}")
    take(_AGE_GAP, lambda m: f"agegap:{num(m.group(1) or m.group(2))}")
    take(_DAYS_A_WEEK, lambda m: _times(num(m.group(1)), "w"))
    take(_AGE, _age)
    take(_FEET_INCHES, _height)
    take(_ZH_METRES, _height)
    take(_AND_A_HALF, _and_a_half)  # "every hour and a half" is every 90 minutes, not hourly
    for pattern, key in _FREQUENCY:
        take(pattern, lambda m, key=key: key)
    take(_EVERY_N, _every_n)
    take(_PER_PERIOD, _per_period)
    take(_HOURS_MINUTES, lambda m: f"q:time:{int(m.group(1)) * 3600 + int(m.group(2)) * 60}")
    take(_ZH_QUARTERS, lambda m: f"q:time:{900 if m.group(1) == '一' else 2700}")
    take(_ARTICLE_QUANTITY, _quantity)
    take(_QUANTITY, _quantity)
    return tuple(_compounds(found, spans, out)), out


_BETWEEN = re.compile(r"\s*(?:and|,|又|零)?\s*", re.IGNORECASE)
_SUMMED = ("q:time:", "q:mass:", "q:length:")
_UNIT_WORD = re.compile(rf"^[\d.,\s]*|[{ZH_NUM}]+|^an?\s+|s$", re.IGNORECASE)  # "15 minutes" -> "minute"


def _plain(amount: float) -> str:
    """An amount as a key writes it: whole numbers without a decimal point, the rest to six places."""
    return str(int(amount)) if float(amount).is_integer() else str(round(amount, 6))


def _compounds(found: list[tuple[int, str]], spans: list[tuple[int, int, str, str]], text: str) -> list[tuple[int, str]]:
    """One amount said in two units, the larger first ("an hour and 15 minutes", 1小时15分钟,
    "2 weeks and 3 days", "1 kg 200 g"): their sum, as "75 minutes" says it."""
    parts = sorted((start, end, key, _UNIT_WORD.sub("", said)) for start, end, key, said in spans if key.startswith(_SUMMED))
    joined: dict[int, str] = {}
    dropped: set[int] = set()
    for (s1, e1, k1, u1), (s2, _, k2, u2) in zip(parts, parts[1:]):
        dim = k1.rsplit(":", 1)[0]
        if s1 in dropped or not k2.startswith(dim + ":") or u1 == u2 or not _BETWEEN.fullmatch(text, e1, s2):
            continue  # "10 km and 5 km" are two distances
        first, second = float(joined.get(s1, k1).rsplit(":", 1)[1]), float(k2.rsplit(":", 1)[1])
        if first > second:
            total = first + second
            joined[s1] = f"{dim}:{_plain(total)}"
            dropped.add(s2)
    return [(start, joined.get(start, key)) for start, key in found if start not in dropped]


def _rate(m: re.Match[str]) -> str:
    what, per = _RATE_ABBR[m.group(5).casefold()] if m.group(5) else \
        (_RATE_NOUN[m.group(3).casefold()], _PER[m.group(4).casefold()])
    per_hour = float(m.group(1).replace(",", "")) * _SCALE[(m.group(2) or "").casefold()] * 3600 / per
    return f"r:{what}:{_plain(per_hour)}/h"


def maybe_same_date(a: str, b: str) -> bool:
    """One says 03/04, the other a date it may be ("April 3"): only a person can tell."""
    return bool(maybe_dates(a) & special_values(b)[0] or maybe_dates(b) & special_values(a)[0])


def rates_to_compare(own: set[str], other: frozenset[str]) -> set[str]:
    """``own`` without its rates where ``other`` states none: a rate clashes only with a
    rate ("100 rpm" / "200 requests per minute"), never with a count said otherwise
    ("4 calls per hour" / "polls 4 times per hour")."""
    if not any(v.startswith("r:") for v in own) or any(v.startswith("r:") for v in other):
        return own
    return {v for v in own if not v.startswith("r:")}


def _path(m: re.Match[str]) -> str | None:
    """A URL or a file path (with a dot or two slashes: not "CI/CD", "and/or", "3/5")."""
    text = m.group(0).rstrip(".")
    if "." not in text and text.count("/") < 2 or text.replace("/", "").isdigit():
        return None
    return "p:" + re.sub(r"^https?://", "", text.casefold()).rstrip("/")


def _and_a_half(m: re.Match[str]) -> str | None:
    n = (m.group(1) or m.group(3)).casefold()
    amount = 1 if n in ("a", "an", "every") else float(n) if n.isdigit() else num(n)
    dim, size = _UNITS[(m.group(2) or m.group(4)).casefold()]
    return None if amount is None else f"q:{dim}:{int((amount + 0.5) * size)}"


def _quantity(m: re.Match[str]) -> str | None:
    n = m.group(1).casefold().replace(",", "")  # "20,000 m²"
    amount = float(n) if n[:1].isdigit() else _FRACTION.get(n, num(n.rstrip("个")))
    written = m.group(2)
    if amount is not None and len(written) == 2 and written[0].isupper() and written[1].islower() \
            and written not in ("Wh", "Hz", "Nm", "Ah"):  # watt-hours, hertz, newton-metres, amp-hours
        return f"u:{amount:g}{written}"  # Mb, Gb are bits, Ms mega-seconds: only the same symbol is the same
    unit = _CASED.get(written) if written.casefold() in _CASED_FOLDED else \
        _UNITS.get(written.casefold()) or _UNITS.get(written)
    if amount is None or unit is None or (written == "m" and m.start(1) > 0 and m.string[m.start(1) - 1] in "$€£¥"):
        return None  # "$10m" is money
    if written == "A" and not _CURRENT.search(m.string):
        return None
    dim, size = unit
    if m.group(2).casefold() in ("s", "d", "h") and amount >= 1000:
        return None  # "1990s" is a decade, not seconds
    if dim in ("celsius", "fahrenheit"):  # one scale: 140 °F is 60 °C; "-18 °C" is below zero
        at = m.start(1)
        below = at > 0 and m.string[at - 1] in "-−" and not (at > 1 and m.string[at - 2].isdigit()) or \
            m.string[max(0, at - 3):at].strip().endswith("零下")  # not "3-5 °C"; 零下5摄氏度 is -5 °C
        amount = -amount if below else amount
        dim, amount = "temperature", round(amount if dim == "celsius" else (amount - 32) * 5 / 9, 1)
    total = amount * size
    if dim == "time" and total in (365 * 86400, 366 * 86400):
        total = _UNITS["year"][1]  # "365 days" is a year, not 12 months and 5 days
    return f"q:{dim}:{_plain(total)}"
