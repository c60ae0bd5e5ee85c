"""Explicit first-person statements in what someone wrote ("I live in Oslo", "我喜欢爬山"),
read by rules in English and Chinese: the agent's must-write facts and the speculation
check's reading of a single-valued slot. Plain text in, ``Statement``s out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

USER = "user"
MAX_OBJECT = 120


@dataclass(frozen=True)
class Statement:
    """One extracted ``(user, relation, object)``; ``stated`` is False for a model's guess."""

    relation: str
    object: str
    stated: bool = True
    subject: str = USER

    def triplet(self, source: str) -> dict[str, Any]:
        return {"subject": self.subject, "relation": self.relation, "object": self.object,
                "speculation": not self.stated, "source": source}


# --- rules ------------------------------------------------------------------
_EN_END = r"(?=\s*(?:[.!?;,]|\band\s+(?:i|my|we)\b|\bbut\b|\bbecause\b|\bso\b\s|$))"
_OBJ = r"(?P<obj>[^.!?;,\n]{1,120}?)"
_TRAILING = re.compile(r"\s+(?:a lot|a bit|very much|so much|too|as well|anymore|any more|these days|nowadays|"
                       r"now|right now|at the moment|lately|recently|currently|though|actually|yesterday|today|"
                       r"last (?:week|month|year|night)|this (?:week|month|year)|a (?:week|month|year) ago)$",
                       re.IGNORECASE)
_PRONOUN = re.compile(r"^(?:it|that|this|them|these|those|you|him|her|one|so|too|to|the idea)$", re.IGNORECASE)
_LEADING = re.compile(r"^(?:to\s+)?(?:really\s+|also\s+|still\s+)?", re.IGNORECASE)

# (pattern, relation, relation when the clause is negated or None to skip negated).
_EN_RULES: list[tuple[re.Pattern[str], str, str | None]] = [(re.compile(p, re.IGNORECASE), r, n) for p, r, n in [
    (rf"\bmy (?:favou?rite|fav) (?P<slot>[a-z][a-z ]{{0,30}}?) (?:is|are) {_OBJ}{_EN_END}", "favorite_{slot}", None),
    (rf"\bmy name is {_OBJ}{_EN_END}", "name", None),
    (rf"\b(?:call me|i'?m called|i am called) {_OBJ}{_EN_END}", "name", None),
    (rf"\bmy birthday is {_OBJ}{_EN_END}", "birthday", None),
    (rf"\bi was born on {_OBJ}{_EN_END}", "birthday", None),
    (r"\bi(?:'m| am) (?P<obj>\d{1,3}) years? old\b", "age", None),
    (rf"\bi(?:'ve| have)? ?(?:just |recently )?(?:moved|relocated) to {_OBJ}{_EN_END}", "lives_in", None),
    (rf"\bi (?:now |currently |still )?live (?:in|at) {_OBJ}{_EN_END}", "lives_in", None),
    (rf"\bi (?:now |currently )?work (?:at|for) {_OBJ}{_EN_END}", "works_at", None),
    (rf"\bi (?:now |currently )?work as (?:an? )?{_OBJ}{_EN_END}", "job", None),
    (rf"\bi(?:'m| am) (?:currently |now |still |also )?(?:working on|building|developing|writing) {_OBJ}{_EN_END}",
     "working_on", None),
    (rf"\bi(?:'m| am)? ?(?:(?:am |'m )?planning|plan|intend|(?:am |'m )?going|'ll|will|hope|want) to {_OBJ}{_EN_END}",
     "plans_to", None),
    (rf"\bi(?:'m| am) (?:currently |now |right now |still )?(?:at|in) (?P<obj>(?:the |my |a )?[^.!?;,\n]{{1,80}}?)"
     rf"{_EN_END}", "is_at", None),
    (rf"\bi(?:'m| am) (?:a (?:big |huge )?fan of|into|keen on|crazy about) {_OBJ}{_EN_END}", "likes", "dislikes"),
    (rf"\bi (?:really |also |still |just |absolutely )?(?:like|love|enjoy|adore) {_OBJ}{_EN_END}",
     "likes", "dislikes"),
    (rf"\bi(?:'m| am) (?:currently |now |also )?(?:learning|studying)(?: how)? (?:to )?{_OBJ}{_EN_END}", "learning", None),
    (rf"\bi(?:'m| am) not (?:a (?:big |huge )?fan of|into|keen on) {_OBJ}{_EN_END}", "dislikes", "dislikes"),
    (rf"\bi (?:really |also |still )?(?:hate|dislike|can'?t stand) {_OBJ}{_EN_END}", "dislikes", "dislikes"),
    (rf"\bi (?:do not|don'?t|no longer|never|can'?t) (?:really |even |much )?(?:like|love|enjoy|care for) {_OBJ}{_EN_END}",
     "dislikes", "dislikes"),
    (rf"\bi (?:really |also |usually )?prefer {_OBJ}{_EN_END}", "prefers", None),
    (rf"\bi(?:'m| am) allergic to {_OBJ}{_EN_END}", "allergic_to", None),
    (rf"\bi (?:can |also )?speak {_OBJ}{_EN_END}", "speaks", None),
    (rf"\bi (?:usually |always |mostly )?use {_OBJ}{_EN_END}", "uses", None),
    (rf"\bmy (?P<slot>[a-z]+(?: [a-z]+)?) (?:is|are) (?:called |named )?{_OBJ}{_EN_END}", "{slot}", None),
]]
# Clause-level denials: "I don't like X", "I no longer live in X".
_EN_NEGATED = re.compile(r"\bi (?:do not|don'?t|never|no longer|didn'?t|can'?t|cannot)\s+(?:really\s+|even\s+)?"
                         r"(?:like|love|enjoy|eat|drink|use|live|work)\b|\b(?:anymore|any more|no longer)\b",
                         re.IGNORECASE)
_EN_SKIP = re.compile(r"^\s*(?:if|when|whether|do|does|did|can|could|would|should|what|why|how|where|who)\b|"
                      r"\b(?:you|we|they|he|she)\s+(?:like|love|think)\b.*\?", re.IGNORECASE)
_EN_NOT_A_PLACE = re.compile(r"^(?:a |an )?(?:hurry|love|trouble|pain|charge|doubt|favou?r|fact|general|time|"
                             r"touch|mood|shock|debt|need|good shape|bed|tears)\b", re.IGNORECASE)
_MY_SLOT_SKIP = re.compile(r"^(?:favou?rite|fav|name|birthday|question|point|guess|bad|problem|issue|answer|idea|"
                           r"pleasure|turn|bet|fault|mistake|own)\b")

_ZH_OBJ = r"(?P<obj>[^，,。！!？?；;\n]{1,60}?)"
_ZH_ADV = r"(?:很|也|还|真|特别|非常|最|超|都|一直|其实|现在|目前|已经|最近|刚|刚刚|本来|上周|上个月|去年|昨天|今年|真的)*"
_ZH_END = r"(?=[，,。！!？?；;\n]|了|呢|啦|吧|哦|呀|$)"
_ZH_RULES: list[tuple[re.Pattern[str], str, str | None]] = [(re.compile(p), r, n) for p, r, n in [
    (rf"我最喜欢的(?P<slot>[^，,。！!？?是]{{1,10}})是{_ZH_OBJ}{_ZH_END}", "favorite_{slot}", None),
    (rf"我(?:的名字)?叫{_ZH_OBJ}{_ZH_END}", "name", None),
    (rf"我的名字是{_ZH_OBJ}{_ZH_END}", "name", None),
    (rf"我的生日是{_ZH_OBJ}{_ZH_END}", "birthday", None),
    (r"我今年(?P<obj>[0-9一二三四五六七八九十]{1,4})岁", "age", None),
    (rf"我{_ZH_ADV}(?:搬到|搬家到|搬去)了?{_ZH_OBJ}{_ZH_END}", "lives_in", None),
    (rf"我(?:现在|目前)?住在{_ZH_OBJ}{_ZH_END}", "lives_in", None),
    (rf"我(?:现在|目前)?在(?P<obj>[^，,。！!？?；;\n]{{1,30}}?)(?:工作|上班){_ZH_END}", "works_at", None),
    (rf"我{_ZH_ADV}(?:正在|在)(?:做|搞|开发|写|忙)(?:一个)?{_ZH_OBJ}{_ZH_END}", "working_on", None),
    (rf"我{_ZH_ADV}(?:正在|在)?(?:学|学习)(?:着)?{_ZH_OBJ}{_ZH_END}", "learning", None),
    (rf"我(?:打算|计划|准备|想要|将要|要去|想去)(?P<obj>[^，,。！!？?；;\n]{{1,60}}?){_ZH_END}", "plans_to", None),
    (rf"我(?:现在|目前|正|此刻)在(?P<obj>[^，,。！!？?；;\n做搞写忙]{{1,30}}?){_ZH_END}", "is_at", None),
    (rf"我{_ZH_ADV}(?:喜欢|热爱|喜爱|爱)(?:吃|喝|听|看|玩)?{_ZH_OBJ}{_ZH_END}", "likes", "dislikes"),
    (rf"我{_ZH_ADV}(?:再也|一点也|从来)?(?:讨厌|不喜欢|不再喜欢|不爱|受不了|不太喜欢)(?:吃|喝|听|看|玩)?{_ZH_OBJ}{_ZH_END}",
     "dislikes", "dislikes"),
    (rf"我(?:更)?(?:偏好|更喜欢){_ZH_OBJ}{_ZH_END}", "prefers", None),
    (rf"我对{_ZH_OBJ}过敏", "allergic_to", None),
    (rf"我(?:会说|说){_ZH_OBJ}{_ZH_END}", "speaks", None),
    (rf"我(?:一般|平时|通常)?(?:用|使用){_ZH_OBJ}{_ZH_END}", "uses", None),
]]
_ZH_NEGATED = re.compile(r"我(?:不|没|不再|再也不|已经不|一点也不|从不)")
_ZH_SKIP = re.compile(r"[吗么?？]\s*$|^(?:如果|要是|假如)|哪里|哪儿|哪个|什么|谁|多少|怎么|为什么|几个|来着")
_ZH_SENTENCE = re.compile(r"[^。！!？?\n]+[。！!？?]?")
_ZH_CLAUSE = re.compile(r"[，,。！!？?；;\n]|但是|不过")
_EN_CLAUSE = re.compile(r"(?<=[.!?;])\s+|\n|,\s*(?=(?:but|i|i'm|i've|my|and i)\b)|\bbut\b", re.IGNORECASE)


def _clean(obj: str) -> str:
    obj = _LEADING.sub("", obj.strip(" '\"“”‘’"))
    while True:
        trimmed = _TRAILING.sub("", obj).strip()
        if trimmed == obj:
            break
        obj = trimmed
    return obj[:MAX_OBJECT].strip()


def _match_rules(clause: str, rules: list[tuple[re.Pattern[str], str, str | None]], negated: bool,
                 skip_slot: re.Pattern[str] | None = None) -> list[Statement]:
    out: list[Statement] = []
    taken: list[tuple[int, int]] = []
    for pattern, relation, when_negated in rules:
        for m in pattern.finditer(clause):
            if any(a <= m.start() < b for a, b in taken):
                continue  # a more specific rule already read this part
            obj = _clean(m.group("obj") or "")
            slot = (m.groupdict().get("slot") or "").strip()
            if not obj or _PRONOUN.match(obj) or (slot and skip_slot is not None and skip_slot.match(slot)):
                continue
            if relation == "is_at" and _EN_NOT_A_PLACE.match(obj):
                continue
            rel = relation.format(slot=slot.replace(" ", "_")) if "{slot}" in relation else relation
            if negated:
                if when_negated is None:
                    continue
                rel = when_negated
            out.append(Statement(rel, obj))
            taken.append((m.start(), m.end()))
    return out


_ZH_ASKS = re.compile(r"[吗呢][?？]?\s*$|什么|哪里|哪儿|哪个|谁|怎么|为什么|多少|几[个点岁]")


def rule_statements(text: str) -> list[Statement]:
    """Explicit first-person statements in ``text`` (English and Chinese), clause by clause.
    Questions and conditionals are skipped; a denied preference becomes ``dislikes``."""
    found: list[Statement] = []
    for clause in _EN_CLAUSE.split(text):
        clause = clause.strip()
        if not clause or clause.endswith("?") or _EN_SKIP.search(clause):
            continue
        negated = bool(_EN_NEGATED.search(clause))
        found += _match_rules(clause.replace("’", "'"), _EN_RULES, negated, _MY_SLOT_SKIP)
    for sentence in _ZH_SENTENCE.findall(text):
        asked = bool(re.search(r"[?？]\s*$", sentence))
        clauses = _ZH_CLAUSE.split(sentence)
        for k, clause in enumerate(clauses):
            clause = clause.strip()
            if not clause or not re.search(r"[\u4e00-\u9fff]", clause) or _ZH_SKIP.search(clause):
                continue
            if (asked and k == len(clauses) - 1) or _ZH_ASKS.search(clause):
                continue  # the question ("我住在里斯本，你呢？" states where the writer lives)
            found += _match_rules(clause, _ZH_RULES, bool(_ZH_NEGATED.search(clause)))
    return list(dict.fromkeys(found))
