"""Decades as written: "the 1920s", "the '90s", 1920年代, 上世纪90年代, 二十世纪二十年代 are one
key each ("dec:1920"), never a duration of 1,920 years or 90 seconds."""

from __future__ import annotations

import re

_ZH_DIGIT = {"零": 0, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}

# "the 1920s", "the 90s", "'90s"; not "her 20s" (an age) or "20s" alone (seconds)
DECADE_EN = re.compile(r"(?:\b[Tt]he\s+|['’])(\d{2}|\d{3}0)['’]?s\b|\b(\d{3}0)['’]?s\b")
# 1920年代, 90年代, 上世纪90年代, 二十世纪二十年代, 21世纪20年代
DECADE_ZH = re.compile(r"(上个?世纪|二十世纪|20世纪|十九世纪|19世纪|二十一世纪|21世纪)?"
                       r"\s*(\d{4}|\d{2}|[一二三四五六七八九]?十)\s*年代")
_CENTURY = {"上世纪": 1900, "上个世纪": 1900, "二十世纪": 1900, "20世纪": 1900, "十九世纪": 1800, "19世纪": 1800,
            "二十一世纪": 2000, "21世纪": 2000}


def _tens(written: str) -> int:
    if written.isdigit():
        return int(written)
    head = written[:-1]  # "二十" -> 20, "十" -> 10
    return (_ZH_DIGIT.get(head, 0) if head else 1) * 10


def decade_en(m: re.Match[str]) -> str | None:
    written = m.group(1) or m.group(2)
    n = int(written)
    if n >= 1000:
        return f"dec:{n}"
    return f"dec:{1900 + n}" if n % 10 == 0 else None  # "the 90s"; two digits are the last century's


def decade_zh(m: re.Match[str]) -> str | None:
    n = _tens(m.group(2))
    if n % 10:
        return None
    if n >= 1000:
        return f"dec:{n}"
    century = _CENTURY.get(m.group(1) or "")
    # no century said: 90年代 is the 1990s; 20年代 may be the 1920s or the 2020s, and is kept as written
    return f"dec:{century + n}" if century is not None else f"dec:{1900 + n}" if n >= 30 else f"dec:x{n}"


# "in her 20s", "his early 30s": an age, not twenty seconds
AGE_DECADE_EN = re.compile(r"\b(?:her|his|their|my|your|our|early|mid|late)[- ](\d)0['’]?s\b", re.IGNORECASE)
# a year said alone in Chinese: 1920年, 2023年 (not 2023年3月, which is a month, nor 20年, a duration)
YEAR_ZH = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)\s*年(?!\s*代|\s*[0-9一二三四五六七八九十]{1,2}\s*月)")


def age_decade(m: re.Match[str]) -> str:
    return f"age:{m.group(1)}0s"
