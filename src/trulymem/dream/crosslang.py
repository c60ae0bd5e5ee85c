"""One attribute, two values, two languages: "Her hospital locker number is 112" and
"用户在医院的更衣柜号是208", "The user's preferred airline is SAS" and "用户现在首选芬兰航空（Finnair）".

Across languages the words around the values cannot be compared; the attribute can, by its
name in either language (``glossary``). A conflict needs the same attributes named on both
sides and nothing else that could part them, and values that can be compared as written: two
measures of one kind, or two names in Latin letters. A Chinese value against a Latin one may be
one name in two scripts (招商银行 / China Merchants Bank): never a conflict here."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from itertools import product

from trulymem.dream.attributes import possessors
from trulymem.dream.findings import block_of
from trulymem.dream.glossary import PERSONAL, attributes
from trulymem.dream.judge import FrameSimilarity, _one_kind, masked
from trulymem.dream.kinship import kin
from trulymem.dream.polarity import opposite
from trulymem.dream.similarity import cjk, negated
from trulymem.dream.stated import NUMERIC, many_valued, value_clash
from trulymem.memories import MemoryItem

_MAX_GROUP = 40  # an attribute dozens of memories name is a topic, not one value
# the sentence encoder's cosine of the two frames, values masked, below which two statements that
# name one attribute say different things of it ("Unit tests use SQLite" / "同意在集成测试里mock数据库")
CROSS_FRAME = 0.5


def cross_language_pairs(live: Sequence[MemoryItem], owner: str | None,
                         frames: FrameSimilarity | None) -> list[tuple[MemoryItem, MemoryItem]]:
    """Pairs across languages that name the same attributes with two comparable values, in
    frames alike; none without a sentence encoder (nothing else can read both languages)."""
    if frames is None:
        return []
    groups: dict[tuple[str, frozenset[str]], tuple[list[MemoryItem], list[MemoryItem]]] = defaultdict(
        lambda: ([], []))
    for m in live:
        keys = attributes(m.memory)
        if keys:
            groups[(block_of(m), keys)][1 if cjk(m.memory) else 0].append(m)
    found = []
    for (_, keys), (english, chinese) in groups.items():
        if len(english) + len(chinese) > _MAX_GROUP:
            continue
        for a, b in product(english, chinese):
            if one_attribute_two_values(a.memory, b.memory, owner, personal=bool(keys & PERSONAL)) \
                    and frames(masked(a.memory, b.memory), masked(b.memory, a.memory)) >= CROSS_FRAME:
                found.append((a, b))
    return found


def one_attribute_two_values(en: str, zh: str, owner: str | None, *, personal: bool = False) -> bool:
    """``en`` (English) and ``zh`` (Chinese) give one attribute of one thing two values;
    ``personal``: an attribute of a person (a birthday, a weight), which both must say is the user's."""
    if negated(en) != negated(zh) or opposite(en, zh) or opposite(zh, en) or kin(en) != kin(zh):
        return False
    if many_valued(en, zh) or _MANY.search(en) or _MANY.search(zh):
        return False
    mine = {n.casefold() for n in (owner, "user") if n}
    if personal and not (_users(en, _EN_USER, mine) and _users(zh, _ZH_USER, mine)):
        return False  # "Her birthday is March 5th" / "黄晓冬的生日是3月6日": two people
    clash = value_clash(en, zh)
    if clash is None:
        return False
    relation = set(re.findall(r"[a-z]+", " ".join(_RELATION.findall(en + " " + zh))))  # "user primary_bank 招商银行"
    side_en, side_zh = (frozenset(v for v in side if v not in mine and v not in relation and v not in _NOT_NAMES)
                        for side in clash)
    if not side_en or not side_zh:
        return False
    return (_measures_of_one_kind(side_en, side_zh) or _one_name_each(en, side_en, zh, side_zh)) \
        and _owned_alike(en, zh, mine)


def _measures_of_one_kind(x: frozenset[str], y: frozenset[str]) -> bool:
    """Measures of one kind (masses, dates, times …), or bare numbers on both sides (a locker, a
    race number)."""
    return _one_kind((x, y)) or all(NUMERIC.fullmatch(v) for v in x | y)


def _one_name_each(en: str, side_en: frozenset[str], zh: str, side_zh: frozenset[str]) -> bool:
    """Each side's differing values are one name in Latin letters, said in one place (not a
    subject and a value: "[iOS] image caching uses [Kingfisher]")."""
    return _names(side_en) and _names(side_zh) and _one_span(en, side_en) and _one_span(zh, side_zh)


def _names(side: frozenset[str]) -> bool:
    """A name, and no measure; a number beside the name is the name's ("Pixel [8]")."""
    named = [v for v in side if ":" not in v and not NUMERIC.fullmatch(v) and not re.fullmatch(r"n\d+", v)]
    return bool(named) and all(":" not in v for v in side)


def _one_span(text: str, values: frozenset[str]) -> bool:
    low = text.casefold()
    spots = sorted((low.find(v), low.find(v) + len(v)) for v in values if v in low)
    if not spots:
        return False
    return all(start - end <= 3 for (_, end), (start, _) in zip(spots, spots[1:]))


_RELATION = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")
# formats and parts of a system, never the name of a value ("mock", "JSON", "SDK")
_NOT_NAMES = frozenset("mock json yaml toml xml csv sdk api url http https ui id pdf html sql".split())
_EN_USER = re.compile(r"\b(?:user|her|his|their|she|he|they)\b", re.IGNORECASE)
_ZH_USER = re.compile(r"用户|她|他")


def _users(text: str, marker: re.Pattern[str], mine: set[str]) -> bool:
    """The text names the user: "the user", a pronoun, 用户, or the user's name."""
    return bool(marker.search(text)) or any(n in text.casefold() for n in mine if n != "user")


# a frame that takes many values at once: allergies, languages spoken, places visited
_MANY = re.compile(r"\b(?:also|too|allergic|speaks?|visited|owns?|has (?:a|two|three))\b|也|还|过敏|会说|去过|养了",
                   re.IGNORECASE)


def _owned_alike(en: str, zh: str, mine: set[str]) -> bool:
    """No one but the user is named as the owner on either side: a possessive that is not the
    user's ("Emil's phone", "her sister's bank") is someone else's; kin() tells 她女儿的… apart."""
    others = possessors(en) - mine - {"the"}
    return not others and not any(n.casefold() not in mine for n in re.findall(r"([A-Za-z][\w-]+)\s*的", zh))
