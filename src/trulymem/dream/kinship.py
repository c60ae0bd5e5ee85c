"""Whom a memory is about: kin and roles ("用户的哥哥" / "用户的弟弟", "my sister" / "my mother"),
and the people it names by a relative's or role's name ("cousin Tom", "女儿 Ada")."""

from __future__ import annotations

import re
from functools import lru_cache

_KIN_GROUPS = {
    "brother": "brother brothers bro", "brother:elder": "哥哥 大哥 兄长 elder-brother older-brother big-brother",
    "brother:younger": "弟弟 younger-brother little-brother", "sister": "sister sisters sis",
    "sister:elder": "姐姐 大姐 elder-sister older-sister big-sister",
    "sister:younger": "妹妹 younger-sister little-sister",
    "mother": "mother mom mum mommy mama 妈妈 母亲 老妈", "father": "father dad daddy papa 爸爸 父亲 老爸",
    "son": "son sons 儿子", "daughter": "daughter daughters 女儿", "wife": "wife 妻子 老婆 太太",
    "husband": "husband 丈夫 老公", "spouse": "spouse", "grandmother": "grandmother grandma granny 奶奶 外婆 姥姥",
    "grandfather": "grandfather grandpa 爷爷 外公 姥爷", "uncle": "uncle 叔叔 舅舅 伯伯 姑父 姨父",
    "aunt": "aunt auntie 阿姨 姑姑 姨妈 舅妈 婶婶", "cousin": "cousin 表哥 表姐 表弟 表妹 堂哥 堂姐 堂弟 堂妹",
    "nephew": "nephew 侄子 外甥", "niece": "niece 侄女 外甥女", "girlfriend": "girlfriend 女朋友 女友",
    "boyfriend": "boyfriend 男朋友 男友", "roommate": "roommate flatmate 室友", "neighbor": "neighbor neighbour 邻居",
    "colleague": "colleague coworker co-worker 同事", "boss": "boss 老板 上司 领导",
    "friend": "friend friends 朋友 好友", "child": "kid kids child children 孩子", "partner": "partner 伴侣",
    "teacher": "teacher 老师",
    "godfather": "godfather 教父", "godmother": "godmother 教母", "doctor": "doctor 医生", "dog": "dog 狗", "cat": "cat 猫",
}
KIN = {w: k for k, ws in _KIN_GROUPS.items() for w in ws.split()}
_KIN_EN = re.compile(r"\b(?:(elder|older|big|younger|little)[\s-])?(" + "|".join(
    sorted((w for w in KIN if w.isascii() and "-" not in w), key=len, reverse=True)) + r")\b", re.IGNORECASE)
_KIN_ZH = re.compile("|".join(sorted((w for w in KIN if not w.isascii()), key=len, reverse=True)))


@lru_cache(maxsize=131_072)
def kin(text: str) -> frozenset[str]:
    """The relatives and roles a memory names, one key each ("哥哥" → brother:elder)."""
    found = set()
    for m in _KIN_EN.finditer(text):
        age, word = (m.group(1) or "").casefold(), m.group(2).casefold()
        found.add(KIN.get(f"{age}-{word}", KIN[word]) if age else KIN[word])
    found |= {KIN[m.group(0)] for m in _KIN_ZH.finditer(text)}
    return frozenset(found - {"dog", "cat"})


def kin_differs(a: str, b: str) -> bool:
    """The two name different people ("用户的哥哥" / "用户的弟弟", "my sister" / "my mother");
    "brother" and "哥哥" are one (the general and the specific)."""
    ka, kb = kin(a), kin(b)
    if ka == kb:
        return False
    if not ka or not kb:  # "Tomás's sister Linnea lives in Uppsala" / "Linnea has moved to Copenhagen": one person
        named = relatives_named(a if ka else b)
        if named and all(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", (b if ka else a).casefold()) for n in named):
            return False

    def covered(x: frozenset[str], y: frozenset[str]) -> bool:
        return all(any(k == o or o.startswith(k + ":") or k.startswith(o + ":") for o in y) for k in x)
    return not (covered(ka, kb) and covered(kb, ka))


_NAMED = re.compile(_KIN_EN.pattern + r",?\s+([A-Z][\w'’-]*[a-z])(?!\w)|\b([A-Z][a-z]+)['’]s\s+(?:" +
                    "|".join(sorted((w for w in KIN if w.isascii() and "-" not in w), key=len, reverse=True)) + r")\b")


def named_people(text: str) -> frozenset[str]:
    """The people a memory names by a relative's or role's name ("cousin Tom", "colleague
    Bob", "Anna's sister")."""
    return frozenset((m.group(3) or m.group(4)).casefold() for m in _NAMED.finditer(text))


_NAMED_ZH = re.compile(rf"(?:{_KIN_ZH.pattern})\s*([A-Za-z][\w'’-]*)")


def relatives_named(text: str) -> frozenset[str]:
    """The relatives a memory calls by name ("sister Linnea", "cousin Tom", "女儿 Ada"), not whose
    they are."""
    return frozenset(m.group(3).casefold() for m in _NAMED.finditer(text) if m.group(3)) | \
        frozenset(m.group(1).casefold() for m in _NAMED_ZH.finditer(text))


def people_differ(a: str, b: str) -> bool:
    """Each names someone the other does not: "cousin Tom" / "cousin Tim" are two people."""
    na, nb = named_people(a), named_people(b)
    return bool(na - nb) and bool(nb - na)
