"""Numbers written in words, read as the numbers they are: "twenty-nine" is 29 (not 9),
"one hundred and twenty" 120, "four thousand five hundred" 4500; 四千八 is 4800 (not
4008), 一万二千八 12800, 两百五 250, 1万5 15000, "2 万" 20000, 百分之五十 50%, 三块五 3.5 元,
3e-4 0.0003. ``spelled_as_digits`` rewrites them as digits before the dream's value
readers run, so "twenty-nine kilos" and "29 kg" are one value. The words one to ten stay
as written: the readers key them as the digits already.
"""

from __future__ import annotations

import re
from functools import lru_cache

ZH_NUM = "零〇一二两三四五六七八九十百千万"
ZH_DIGIT = {ch: k for k, ch in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}
_ONES = "one two three four five six seven eight nine".split()
_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
EN_NUMBER = {w: k + 1 for k, w in enumerate(_ONES)} | {w: k + 10 for k, w in enumerate(_TEENS)} | \
    {w: 20 + 10 * k for k, w in enumerate(_TENS)} | {"zero": 0, "hundred": 100, "a": 1, "an": 1}
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}

_O, _T, _X = "|".join(_ONES), "|".join(_TEENS), "|".join(_TENS)
_SMALL = rf"(?:(?:{_X})(?:[- ](?:{_O}))?|{_T}|{_O})"
_CHUNK = rf"(?:(?:{_SMALL}|a)\s+hundred(?:\s+(?:and\s+)?{_SMALL})?|{_SMALL})"  # "twelve hundred" is 1200
# not an ordinal ("twenty-first"), nor a word it begins ("tenth", "one-off")
_END = r"(?![\w'’]|-(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|th)\b)"
_EN_SPELLED = re.compile(rf"\b(?:(?:{_CHUNK}|a)\s+(?:thousand|million|billion)(?:,?\s+(?:and\s+)?{_CHUNK})?|{_CHUNK}){_END}",
                         re.IGNORECASE)
# a Chinese number with hundreds, thousands or ten thousands, written from a digit (not 千万 "by all means",
# 万一 "in case", 百度)
_ZH_BIG = re.compile(r"(?<![零〇一二两三四五六七八九十百千万\d])[一二两三四五六七八九十][零〇一二两三四五六七八九十百千]*"
                     r"[百千万][零〇一二两三四五六七八九十百千万]*")


def zh_number(s: str) -> int | None:
    """Chinese numerals up to the ten thousands (and plain digits): 十五 = 15, 两百五十 = 250,
    一万五千 = 15000, 三零五 = 305 (digit by digit); a last digit right after 百, 千 or 万
    counts the next lower unit, as said: 四千八 = 4800, 一万二 = 12000, 两千零八 = 2008."""
    if s.isdigit():
        return int(s)
    if not s or any(ch not in ZH_NUM for ch in s):
        return None
    if not any(ch in "十百千万" for ch in s):
        return int("".join(str(ZH_DIGIT[ch]) for ch in s))
    total, section, digit, unit = 0, 0, None, 1
    for ch in s:
        if ch in ZH_DIGIT:
            digit = ZH_DIGIT[ch]
            unit = 1 if ch in "零〇" else unit
        elif ch == "万":
            total, section, digit, unit = (section + (digit or 0)) * 10_000, 0, None, 10_000
        else:
            unit = {"十": 10, "百": 100, "千": 1000}[ch]
            section += (1 if digit is None else digit) * unit
            digit = None
    last = (digit or 0) * (unit // 10 if unit >= 100 and s[-2:-1] in "百千万" else 1)
    return total + section + last


def num(s: str) -> int | None:
    """A number as written: digits, an English word up to twenty, or Chinese numerals."""
    s = s.casefold()
    return int(s) if s.isdigit() else EN_NUMBER.get(s) if s in EN_NUMBER else zh_number(s)


def en_number(spoken: str) -> int:
    """A spelled English number ("twenty-nine", "a hundred and fifty", "two thousand five hundred")."""
    total, current = 0, 0
    for w in re.split(r"[-\s,]+", spoken.casefold()):
        if w in _SCALES:
            total, current = total + max(current, 1) * _SCALES[w], 0
        elif w == "hundred":
            current = max(current, 1) * 100
        elif w != "and":
            current += EN_NUMBER[w]
    return total + current


def _en_digits(m: re.Match[str]) -> str:
    spoken = m.group(0)
    if spoken.casefold() in _ONES or spoken.casefold() == "ten":
        return spoken  # "one" to "ten" alone: read as words already ("two cats" = "2 cats")
    return str(en_number(spoken))


def _zh_digits(m: re.Match[str]) -> str:
    n = zh_number(m.group(0))
    return m.group(0) if n is None else str(n)


@lru_cache(maxsize=131_072)
def spelled_as_digits(text: str) -> str:
    """The text with its spelled numbers above ten (English) and its Chinese numbers with
    百, 千 or 万 written as digits."""
    out = _EN_SPELLED.sub(_en_digits, text) if re.search(r"[A-Za-z]", text) else text
    if "e" in out or "E" in out:
        out = _SCIENTIFIC.sub(_decimal, out)
    if "块" in out or "毛" in out:
        out = _YUAN_JIAO.sub(_yuan_jiao, out)
    if not re.search("[百千万亿]", out):
        return out
    out = _PERCENT_ZH.sub(_percent, out)
    out = _DIGITS_ZH_UNIT.sub(_spoken_digits, _ZH_BIG.sub(_zh_digits, out))
    return _DIGITS_SCALED.sub(_scaled, out)


# 3e-4 is 0.0003
_SCIENTIFIC = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[eE]([-+]?\d{1,2})(?![\w.])")


def _decimal(m: re.Match[str]) -> str:
    value = float(m.group(0))
    return f"{value:.12f}".rstrip("0").rstrip(".") if not value.is_integer() else str(int(value))


# digits with 万, 千 or 亿 are one number (2 万台 is 20000 sets, 3.2万元 32000 yuan); not 3千米 (3 km), 5千克
_DIGITS_SCALED = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*([万千亿])(?![米克瓦卡\d])")
_SCALE_ZH = {"千": 1_000, "万": 10_000, "亿": 100_000_000}


def _scaled(m: re.Match[str]) -> str:
    value = round(float(m.group(1)) * _SCALE_ZH[m.group(2)], 4)
    return str(int(value)) if value.is_integer() else str(value)


# 百分之五十 is 50%, 百分之三点五 3.5%
_PERCENT_ZH = re.compile(rf"百分之([{ZH_NUM}\d]+)(?:[点.]([零〇一二两三四五六七八九\d]+))?")


def _percent(m: re.Match[str]) -> str:
    whole = zh_number(m.group(1))
    if whole is None:
        return m.group(0)
    tail = "".join(ch if ch.isdigit() else str(ZH_DIGIT[ch]) for ch in m.group(2) or "")
    return f"{whole}.{tail}%" if tail else f"{whole}%"


# digits with 万 or 千 as said: 1万5 (15000), 1万5千, 3千5 (3500), 1万2000 (12000); not 3千米 (3 km)
_DIGITS_ZH_UNIT = re.compile(r"(?<![\d.])(\d+)([万千])(\d+)([千百])?(?![\d.米克瓦])")


def _spoken_digits(m: re.Match[str]) -> str:
    n, unit, rest, next_unit = int(m.group(1)), m.group(2), m.group(3), m.group(4)
    big, lower = (10_000, 1_000) if unit == "万" else (1_000, 100)
    if next_unit is not None:
        return m.group(0) if next_unit != ("千" if unit == "万" else "百") else str(n * big + int(rest) * lower)
    if len(rest) == 1:
        return str(n * big + int(rest) * lower)
    return str(n * big + int(rest)) if len(rest) == len(str(big)) - 1 else m.group(0)


# 三块五 is 3.5 yuan, 五毛 0.5 (not three pieces and a five); 三块蛋糕 stays three pieces
_YUAN_JIAO = re.compile(rf"(?<![{ZH_NUM}\d.])(?:([{ZH_NUM}]+|\d+)块([一二两三四五六七八九\d])(?![{ZH_NUM}\d块元毛分角])|"
                        r"([一二两三四五六七八九\d])毛钱?)")


def _yuan_jiao(m: re.Match[str]) -> str:
    yuan = zh_number(m.group(1)) if m.group(1) else 0
    jiao = num(m.group(2) or m.group(3))
    return m.group(0) if yuan is None or jiao is None else f"{yuan}.{jiao}元"
