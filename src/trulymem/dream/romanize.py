"""A Chinese place name against one written in Latin letters: "用户住在苏州" and "The user
moved to Xiamen" name two cities, "大连市" and "Dalian" one. Only where the Latin name is
itself pinyin (a Chinese place) can the two be told apart for sure: a foreign place has a
Chinese name made by sound or by meaning (波尔图 / Porto, 旧金山 / San Francisco), which no
rule reads, so there the answer is "cannot tell"."""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher
from functools import lru_cache

_NOT_LETTER = re.compile(r"[^a-z]")
_HAN = re.compile(r"^[\u3400-\u9fff\uf900-\ufaff]+$")
# what a place name may carry after its name: city, province, district, county
_ZH_SUFFIX = re.compile(r"(?:市|省|区|县|自治区)$")
_LATIN_SUFFIX = re.compile(r"(?:shi|sheng|qu|xian|city)$")


@lru_cache(maxsize=1)
def _syllables() -> frozenset[str]:
    """Every toneless pinyin syllable (ü as v), from pypinyin's character table."""
    from pypinyin.pinyin_dict import pinyin_dict

    out: set[str] = set()
    for readings in pinyin_dict.values():
        for reading in readings.split(","):
            plain = "".join(c for c in unicodedata.normalize("NFD", reading) if not unicodedata.combining(c))
            out.add(plain.replace("ü", "v").lower())
    return frozenset(s for s in out if s.isalpha() and s.isascii())


@lru_cache(maxsize=65_536)
def pinyin_like(latin: str) -> bool:
    """The name is a run of pinyin syllables ("Xiamen", "Hefei", "Xi'an"), so a Chinese place."""
    letters = _NOT_LETTER.sub("", latin.casefold())
    if not letters or len(letters) > 30:
        return False
    syllables = _syllables()
    ok = [True] + [False] * len(letters)  # ok[k]: letters[:k] splits into syllables
    for end in range(1, len(letters) + 1):
        ok[end] = any(ok[start] and letters[start:end] in syllables for start in range(max(0, end - 6), end))
    return ok[-1]


@lru_cache(maxsize=65_536)
def _pinyin(han: str) -> str:
    from pypinyin import lazy_pinyin  # ~50 MB of phrase tables: loaded only when a pair needs them

    return "".join(lazy_pinyin(_ZH_SUFFIX.sub("", han))).replace("ü", "v").casefold()


def same_place(a: str, b: str) -> bool | None:
    """One place name in Chinese characters, the other in Latin letters: ``True`` when the
    pinyin is the Latin name (a district of it included: 苏州工业园区 / Suzhou), ``False``
    when the Latin name is pinyin of another place, ``None`` when it cannot tell (a
    foreign place, or not one name in each script)."""
    han, latin = (a, b) if _HAN.match(a.strip("。. ")) else (b, a)
    han = han.strip("。. ")
    if not _HAN.match(han) or not latin.isascii() or not pinyin_like(latin):
        return None
    spoken, letters = _pinyin(han), _NOT_LETTER.sub("", latin.casefold())
    name = _LATIN_SUFFIX.sub("", letters) or letters
    if spoken.startswith(name) or name.startswith(spoken):
        return True
    # a foreign name that happens to spell pinyin sounds like its Chinese name (Nice / 尼斯 nisi)
    return None if SequenceMatcher(None, _sounds(spoken), _sounds(name)).ratio() >= _SOUNDS_ALIKE else False


_SOUND_CLASSES = [(re.compile(p), c) for p, c in (
    (r"zh|ch|sh|[jqxzcs]", "s"), (r"[bp]", "p"), (r"[dt]", "t"), (r"[gk]", "k"), (r"[lr]", "l"), (r"[fvw]", "f"),
    (r"[mn]", "n"))]
_SOUNDS_ALIKE = 0.6


def _sounds(letters: str) -> str:
    """Letters by the sound class a transliteration keeps (b/p, d/t, l/r … alike)."""
    for pattern, cls in _SOUND_CLASSES:
        letters = pattern.sub(cls, letters)
    return letters
