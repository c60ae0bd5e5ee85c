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
    "son": "son sons 儿子", "daughter": "daughter daughters 女儿", "partner:wife": "wife 妻子 老婆 太太",
    "partner:husband": "husband 丈夫 老公", "grandmother": "grandmother grandma granny 奶奶 外婆 姥姥",
    "grandfather": "grandfather grandpa 爷爷 外公 姥爷", "uncle": "uncle 叔叔 舅舅 伯伯 姑父 姨父",
    "aunt": "aunt auntie 阿姨 姑姑 姨妈 舅妈 婶婶", "cousin": "cousin 表哥 表姐 表弟 表妹 堂哥 堂姐 堂弟 堂妹",
    "nephew": "nephew 侄子 外甥", "niece": "niece 侄女 外甥女", "girlfriend": "girlfriend 女朋友 女友",
    "boyfriend": "boyfriend 男朋友 男友", "roommate": "roommate flatmate 室友", "neighbor": "neighbor neighbour 邻居",
    "colleague": "colleague coworker co-worker 同事", "boss": "boss 老板 上司 领导",
    "friend": "friend friends 朋友 好友", "child": "kid kids child children 孩子",
    "partner": "partner spouse 伴侣 配偶 另一半",  # a husband or a wife is a partner, said generally
    "teacher": "teacher 老师",
    "godfather": "godfather 教父", "godmother": "godmother 教母", "doctor": "doctor 医生", "dog": "dog 狗", "cat": "cat 猫",
}
KIN = {w: k for k, ws in _KIN_GROUPS.items() for w in ws.split()}
_KIN_EN = re.compile(r"\b(?:(elder|older|big|younger|little)[\s-])?(" + "|".join(
    sorted((w for w in KIN if w.isascii() and "-" not in w), key=len, reverse=True)) + r")\b", re.IGNORECASE)
_KIN_ZH = re.compile("|".join(sorted((w for w in KIN if not w.isascii()), key=len, reverse=True)))


# a teacher or a doctor is someone only as one's own ("Emil's teacher", 她的医生), not as a trade
# ("is a physics teacher", 是一名儿科医生)
_TRADES = frozenset({"teacher", "doctor"})
_OWNED_EN = re.compile(r"(?:['’]s|\b(?:my|his|her|their|our|your))\s+(?:\w+\s+)?$", re.IGNORECASE)


@lru_cache(maxsize=131_072)
def kin(text: str) -> frozenset[str]:
    """The relatives and roles a memory names, one key each ("哥哥" → brother:elder)."""
    found = set()
    for m in _KIN_EN.finditer(text):
        age, word = (m.group(1) or "").casefold(), m.group(2).casefold()
        key = KIN.get(f"{age}-{word}", KIN[word]) if age else KIN[word]
        if key not in _TRADES or _OWNED_EN.search(text, 0, m.start()):
            found.add(key)
    found |= {KIN[m.group(0)] for m in _KIN_ZH.finditer(text)
              if KIN[m.group(0)] not in _TRADES or text[max(0, m.start() - 1):m.start()] == "的"}
    return frozenset(found - {"dog", "cat"})


def kin_differs(a: str, b: str) -> bool:
    """The two name different people ("用户的哥哥" / "用户的弟弟", "my sister" / "my mother");
    "brother" and "哥哥" are one (the general and the specific)."""
    ka, kb = kin(a), kin(b)
    if ka == kb:
        return False
    if not ka or not kb:  # "Tomás's sister Linnea lives in Uppsala" / "Linnea has moved to Copenhagen": one person
        named = relatives_named(a if ka else b)
        other = b if ka else a
        if named and all(re.search(rf"(?<![A-Za-z0-9]){re.escape(n)}(?![A-Za-z0-9])", other.casefold())
                         or (not n.isascii() and (n in other or n[:2] in other)) for n in named):
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


# a Chinese name after the relative: a common family name and one or two more characters (同事黄晓冬, 表姐陈静)
_SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢"
             "姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤温")
_NAMED_ZH = re.compile(rf"(?:{_KIN_ZH.pattern})\s*([A-Za-z][A-Za-z'’-]*|[{_SURNAMES}][\u4e00-\u9fff]{{1,2}})")
# "Leo, the user's son", "Mateusz, Renata's partner": a name, then whose relative it is
_APPOSED = re.compile(r"\b([A-Z][\w'’-]*[a-z]),\s+(?:the user['’]s|her|his|their|my|[A-Z][a-z]+['’]s)\s+(?:" +
                      "|".join(sorted((w for w in KIN if w.isascii() and "-" not in w), key=len, reverse=True)) + r")\b")


def relatives_named(text: str) -> frozenset[str]:
    """The relatives a memory calls by name ("sister Linnea", "cousin Tom", "女儿 Ada"), not whose
    they are."""
    return frozenset(m.group(3).casefold() for m in _NAMED.finditer(text) if m.group(3)) | \
        frozenset(m.group(1).casefold() for m in _NAMED_ZH.finditer(text)) | \
        frozenset(m.group(1).casefold() for m in _APPOSED.finditer(text))


def people_differ(a: str, b: str) -> bool:
    """Each names someone the other does not: "cousin Tom" / "cousin Tim" are two people."""
    na, nb = named_people(a), named_people(b)
    return bool(na - nb) and bool(nb - na)
