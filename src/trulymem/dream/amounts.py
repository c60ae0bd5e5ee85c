"""Numbers and amounts as written: signs, currencies ("2000 USD" is "$2,000"), scales
("50k"), spelled numbers ("twenty-one", 二十一) and estimates ("about 2 hours")."""

from __future__ import annotations

import re
from functools import lru_cache

from trulymem.dream.numerals import EN_NUMBER, ZH_NUM, en_number, num
from trulymem.dream.values import _SCALE, _specials


@lru_cache(maxsize=65_536)
def value_sequence(text: str) -> tuple[str, ...]:
    """The values a memory states, in the order it states them, each number with its sign,
    currency symbol and percent: "3/4" is not "4/3", "9 to 5" not "5 to 9", "3-1" not "1-3",
    "-18°C" not "18°C", "$1500" not "€1500"; "50k" is "50,000". Dates, times, quantities and
    frequencies are one key each, however written."""
    found, rest = _specials(text, "")
    numbers = [(m.start(), _signed(m)) for m in _PLAIN_NUMBER.finditer(rest)]
    return tuple(key for _, key in sorted([*found, *numbers]))


_EN_WORDS = "|".join(sorted((w for w in EN_NUMBER if len(w) > 2), key=len, reverse=True))
# a number not read as a date, time or quantity: its sign (not after a digit: "9-5" is a range),
# currency symbol, digits (thousands separators, decimals), "k" and "%"; a Chinese numeral before a measure word
_COUNTRIES = "(?:US|Singapore|Hong Kong|Canadian|Australian|New Zealand|Norwegian|Swedish|Danish|Swiss)"
_CODES = "USD|EUR|GBP|CNY|RMB|JPY|INR|SGD|NOK|SEK|DKK|CHF|HKD|TWD|CAD|AUD|NZD|KRW"
_PLAIN_NUMBER = re.compile(rf"(?:(?<![\d.])([-−+])\s?)?(\b(?-i:A|C|NZ|S|HK|NT|US)\$|[$€£¥￥₹]|\b(?-i:{_CODES})\s?)?\s?"
                           r"(\d+(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?)"
                           r"(?:\s?([kK]|thousand|million|billion|mn|bn|万|千(?![米克瓦])|亿|(?<=\d)(?-i:M)|(?(2)(?-i:m)))(?![a-zA-Z])"
                           r"|\s?(%|percent\b))?"  # "£1.2m": after a currency, m is a million
                           rf"([$€£¥￥₹]|\s?(?-i:{_CODES})\b|\s?(?:{_COUNTRIES}\s+)?(?:dollars?|bucks|euros?|yuan|kuai|kroner|kronor|krone|kr|francs?)\b|"
                           r"\s?(?:美元|美金|欧元|英镑|日元|人民币|块钱|块|新加坡元|新西兰元|新币|新元|澳元|澳币|加元|加币|纽币|卢比|元|"
                           r"挪威克朗|瑞典克朗|丹麦克朗|克朗|港币|港元|台币|韩元|瑞郎))?"
                           rf"|([{ZH_NUM}]+)(?=[天月日年岁号点个次周本块元位只件张台部条层页分杯瓶碗份支双把包盒袋颗粒片顿趟圈场节门家间所座篇首盆棵头口名人])"
                           rf"|\b((?:half\s+)?a\s+dozen|{_EN_WORDS})\b", re.IGNORECASE)  # larger ones: digits by now


def without_numbers(text: str) -> str:
    """The text with its plain numbers (``value_sequence``'s, in any spelling) blanked."""
    return _PLAIN_NUMBER.sub(" ", text)


# "2000 USD" is "$2,000", "300 euros" is "€300"
_CURRENCY = {"usd": "$", "us$": "$", "dollar": "$", "dollars": "$", "bucks": "$", "eur": "€", "euro": "€", "euros": "€",
             "gbp": "£", "cny": "¥", "rmb": "¥", "yuan": "¥", "kuai": "¥", "jpy": "¥", "inr": "₹", "sgd": "S$",
             "美元": "$", "美金": "$", "欧元": "€", "英镑": "£", "日元": "¥", "人民币": "¥", "块钱": "¥", "块": "¥", "元": "¥",
             "新币": "S$", "新元": "S$", "新加坡元": "S$", "澳元": "A$", "澳币": "A$", "加元": "C$", "加币": "C$",
             "新西兰元": "NZ$", "纽币": "NZ$", "卢比": "₹",
             # the kroner of Norway, Sweden and Denmark are one word in speech ("200 kroner" / "NOK 150")
             "nok": "kr", "sek": "kr", "dkk": "kr", "kroner": "kr", "kronor": "kr", "krone": "kr", "克朗": "kr",
             "挪威克朗": "kr", "瑞典克朗": "kr", "丹麦克朗": "kr",
             "chf": "CHF", "franc": "CHF", "francs": "CHF", "瑞郎": "CHF", "hkd": "HK$", "港币": "HK$", "港元": "HK$",
             "twd": "NT$", "台币": "NT$", "cad": "C$", "aud": "A$", "nzd": "NZ$", "krw": "₩", "韩元": "₩",
             "us dollars": "$", "us dollar": "$", "singapore dollars": "S$", "hong kong dollars": "HK$",
             "canadian dollars": "C$", "australian dollars": "A$", "new zealand dollars": "NZ$", "norwegian kroner": "kr",
             "swedish kronor": "kr", "danish kroner": "kr", "swiss francs": "CHF"}
CURRENCY_CODES = frozenset(c for c in _CURRENCY if len(c) == 3 and c.isascii())  # usd, eur, …
CURRENCY_WORDS = frozenset(_CURRENCY)  # as written after an amount: dollars, kroner, 元, 克朗


def _signed(m: re.Match[str]) -> str:
    if m.group(7):
        return f"n:{num(m.group(7))}"
    if m.group(8):
        spoken = m.group(8).casefold()
        if spoken.endswith("dozen"):
            return "n:6" if spoken.startswith("half") else "n:12"
        return f"n:{en_number(spoken)}"
    n = float(m.group(3).replace(",", "")) * _SCALE[(m.group(4) or "").casefold()]
    written = " ".join((m.group(2) or m.group(6) or "").split())
    money = (_CURRENCY.get(written.casefold(), written)).replace("￥", "¥")
    n = round(n, 6)
    sign = "-" if m.group(1) in ("-", "−") else ""
    return f"n:{sign}{money}{int(n) if n.is_integer() else n}{'%' if m.group(5) else ''}"


_ROUGHLY = re.compile(r"\b(?:about|around|roughly|approximately|approx\.?|nearly|almost|some|or so|give or take)\b|~|"
                      r"大概|大约|约|左右|差不多|将近|上下", re.IGNORECASE)
_AMOUNT = re.compile(r"^(q:[a-z]+:|n:-?[$€£¥₹]?)(\d+(?:\.\d+)?)(%?)$")


def roughly_equal(a: str, b: str) -> bool:
    """One gives an amount as an estimate ("about 2 hours", 大概40分钟) and the other's is
    within a tenth of it ("1h50m", 38分钟): one fact, for a person to read, never a conflict."""
    if not (_ROUGHLY.search(a) or _ROUGHLY.search(b)):
        return False
    sa, sb = set(value_sequence(a)), set(value_sequence(b))
    amounts_a = [m for v in sa - sb if (m := _AMOUNT.match(v))]
    amounts_b = [m for v in sb - sa if (m := _AMOUNT.match(v))]
    if len(amounts_a) != 1 or len(amounts_b) != 1:
        return False
    ma, mb = amounts_a[0], amounts_b[0]
    if (ma[1], ma[3]) != (mb[1], mb[3]):
        return False
    x, y = float(ma[2]), float(mb[2])
    return abs(x - y) <= 0.1 * max(x, y)
