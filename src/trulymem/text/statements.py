"""What a statement asserts: single-valued relations, negation and hedging, in
English and Chinese. Shared by the write path (a new value supersedes the old
one), the agent (is a claim what the user said, or its opposite?) and the
extractors.
"""

from __future__ import annotations

import re

from trulymem.text.normalize import relation_key

# Relations a subject has one current value of; aliases map to one canonical key so
# "lives_in Paris" and "住在 Berlin" are the same slot. Accumulating relations (likes,
# speaks, has_pet, working_on) are deliberately absent: a new value adds, never replaces.
_SINGLE_VALUED: dict[str, tuple[str, ...]] = {
    "lives_in": ("lives_in", "lives", "resides_in", "home_city", "hometown_now", "moved_to", "living_in",
                 "住在", "居住在", "居住于", "住", "搬到"),
    "is_at": ("is_at", "currently_at", "located_at", "current_location", "is_currently_at", "在", "现在在", "目前在"),
    "works_at": ("works_at", "works_for", "employer", "employed_at", "employed_by", "company", "在工作", "工作于",
                 "就职于", "任职于"),
    "job": ("job", "occupation", "profession", "works_as", "job_title", "role_at_work", "职业", "工作是"),
    "name": ("name", "is_named", "called", "named", "full_name", "名字", "叫", "名叫", "名字是"),
    "age": ("age", "is_aged", "years_old", "年龄", "岁"),
    "birthday": ("birthday", "birth_date", "born_on", "date_of_birth", "生日"),
    "timezone": ("timezone", "time_zone", "时区"),
    "email": ("email", "email_address", "邮箱"),
    "phone": ("phone", "phone_number", "电话"),
    "preferred_language": ("preferred_language", "reply_language", "prefers_language", "偏好语言"),
    "partner": ("married_to", "spouse", "partner", "配偶"),
    "package_manager": ("package_manager", "uses_package_manager", "包管理器"),
    "deploy_target": ("deploy_target", "deploys_to", "deployed_on", "hosting", "部署在", "部署到"),
}
_CANONICAL = {relation_key(alias): canon for canon, aliases in _SINGLE_VALUED.items() for alias in aliases}
# Chinese words a question uses for a relation stored under an English name ("我住在哪里？" asks
# for lives_in): recall searches the relation's name too
_ZH_RELATION_WORDS = {**{a: canon for canon, aliases in _SINGLE_VALUED.items() for a in aliases
                         if not a.isascii() and (len(a) > 1 or a == "住")},
                      "在哪工作": "works_at", "在哪上班": "works_at", "公司": "works_at", "喜欢": "likes", "爱好": "likes",
                      "宠物": "has_pet", "养了": "has_pet", "生日": "birthday", "出生": "birthday", "几岁": "age",
                      "多大": "age", "叫什么": "name", "住哪": "lives_in", "搬家": "lives_in"}
_ZH_RELATION = re.compile("|".join(sorted(map(re.escape, _ZH_RELATION_WORDS), key=len, reverse=True)))
# English words a question uses for a relation whose name does not hold them ("What's my job?": works_at)
_EN_RELATION_WORDS = {"job": "works_at", "employer": "works_at", "company": "works_at", "pet": "has_pet",
                      "pets": "has_pet", "born": "birthday", "allergies": "allergic_to", "allergy": "allergic_to"}
_EN_RELATION = re.compile(r"\b(?:" + "|".join(_EN_RELATION_WORDS) + r")\b", re.IGNORECASE)


def relations_named(text: str) -> list[str]:
    """The relations a question names in its own words ("住在" → ``lives_in``, "job" →
    ``works_at``), for recall to search their names too."""
    return list(dict.fromkeys([*(_ZH_RELATION_WORDS[m.group(0)] for m in _ZH_RELATION.finditer(text)),
                               *(_EN_RELATION_WORDS[m.group(0).casefold()] for m in _EN_RELATION.finditer(text))]))


_FAVORITE = re.compile(r"^(?:favou?rite|fav|最喜欢的)_?(.+)$")

_LIKES = frozenset(relation_key(r) for r in (
    "likes", "like", "loves", "love", "enjoys", "enjoy", "adores", "is_into", "is_fan_of", "fan_of", "prefers",
    "喜欢", "爱", "喜爱", "热爱", "偏好"))
_DISLIKES = frozenset(relation_key(r) for r in (
    "dislikes", "dislike", "hates", "hate", "doesnt_like", "does_not_like", "dont_like", "do_not_like", "not_like",
    "no_longer_likes", "does_not_enjoy", "avoids", "不喜欢", "讨厌", "不爱", "不再喜欢"))

NEGATION_EN = re.compile(
    r"\b(?:not|no|never|no longer|don'?t|doesn'?t|didn'?t|isn'?t|aren'?t|wasn'?t|won'?t|can'?t|cannot|"
    r"hate|hates|dislike|dislikes|stopped|quit|nor|neither|anymore|any more)\b|n't\b",
    re.IGNORECASE)
NEGATION_ZH = re.compile(r"不|没|别|未|讨厌|厌恶|再也|不再")
_NEGATIVE_RELATION = re.compile(r"(?:^|_)(?:not|no|never|dis|doesnt|dont|hates?|avoids?)(?:_|$)|^dis|不|没|讨厌")
HEDGES = re.compile(
    r"\b(?:probably|maybe|perhaps|possibly|likely|might|may_be|seems?|seemingly|apparently|presumably|guess(?:ed)?|"
    r"suspect(?:ed)?|assume[sd]?|inferred|speculat\w*|could_be)\b|可能|也许|大概|估计|似乎|好像|应该是|猜",
    re.IGNORECASE)
_CLAUSE = re.compile(r"[.!?;。！？；\n]|[,，]\s*(?=(?:but|and|yet|i|i'm|i've|my)\b|但|而|可|我)|\bbut\b|但是|不过",
                     re.IGNORECASE)


# Names that mean the user in a triplet ("user", "I", "我", "用户"): the user's own node.
USER_WORDS = frozenset({"user", "the user", "i", "me", "my", "myself", "我", "用户", "本人"})


def single_valued(relation: str) -> str | None:
    """The canonical slot of a single-valued relation (``favorite_*`` included), else ``None``."""
    key = relation_key(relation)
    if key in _CANONICAL:
        return _CANONICAL[key]
    m = _FAVORITE.match(key)
    return f"favorite_{m.group(1)}" if m else None


def preference(relation: str) -> bool | None:
    """True for likes-like relations, False for dislikes-like ones, else ``None``: (user,
    likes, rock) and (user, dislikes, rock) cannot both be current."""
    key = relation_key(relation)
    return True if key in _LIKES else False if key in _DISLIKES else None


def preference_keys(likes: bool) -> frozenset[str]:
    """The relation keys ``preference`` calls likes-like (``True``) or dislikes-like (``False``)."""
    return _LIKES if likes else _DISLIKES


def slot_keys(canonical: str) -> list[str]:
    """Every relation key that names ``canonical``'s slot."""
    if canonical.startswith("favorite_"):
        rest = canonical.removeprefix("favorite_")
        return [f"favorite_{rest}", f"favourite_{rest}", f"fav_{rest}", f"最喜欢的{rest}", f"最喜欢的_{rest}"]
    return [k for k, c in _CANONICAL.items() if c == canonical]


def negative_relation(relation: str) -> bool:
    """``dislikes``, ``does_not_like``, ``不喜欢``: the relation itself denies."""
    return bool(_NEGATIVE_RELATION.search(relation_key(relation)))


def denies(relation: str) -> bool:
    """The relation says "not": ``dislikes``, ``does_not_like``, ``不喜欢``."""
    return negative_relation(relation) or preference(relation) is False


def hedged(*parts: str) -> bool:
    """True when a claim's own words say it is a guess ("probably_plays", "可能喜欢")."""
    return any(HEDGES.search(p.replace("_", " ")) or HEDGES.search(p) for p in parts if p)


def clause_span(text: str, position: int) -> tuple[int, int]:
    """The clause of ``text`` around ``position`` (up to sentence marks and "but")."""
    starts = [m.end() for m in _CLAUSE.finditer(text, 0, position)]
    end_m = _CLAUSE.search(text, position)
    return (starts[-1] if starts else 0), (end_m.start() if end_m else len(text))


def negated_before(text: str, position: int) -> bool:
    """Whether the clause holding ``position`` denies what follows: a negation cue
    before it, or "anymore"/"no longer" anywhere in the clause."""
    start, end = clause_span(text, position)
    head = text[start:position]
    return bool(NEGATION_EN.search(head) or NEGATION_ZH.search(head)
                or re.search(r"\b(?:anymore|any more|no longer)\b", text[start:end], re.IGNORECASE))


# --- does the sentence assert it of the speaker? ------------------------------------
_SENTENCE_END = re.compile(r"[.!?。！？\n]")
_QUESTION_START = re.compile(
    r"^\W*(?:(?:do|does|did|are|is|am|were)\s+\w|(?:can|could|would|should|will|shall|have|has|was|may|might)\s+"
    r"(?:you|u|i|we|they|he|she|it|there|your|my|the|this|that)\b|(?:what|why|how|where|who|whom|which)\b)",
    re.IGNORECASE)
_CONDITIONAL = re.compile(r"\b(?:if|unless|whether|in case|suppose|supposing|assuming|imagine)\b|如果|要是|假如|万一|假设",
                          re.IGNORECASE)
_PEOPLE_EN = (r"brother|sister|sibling|mom|mum|mother|dad|father|parents?|wife|husband|partner|boyfriend|girlfriend|"
              r"fianc[eé]e?|friends?|son|daughter|kids?|child(?:ren)?|baby|boss|colleagues?|co-?workers?|roommates?|"
              r"neighbou?rs?|cousins?|aunt|uncle|grand(?:ma|pa|mother|father|parents?)|family|team|manager|teacher|"
              r"students?|dog|cat|pet")
# the nearest subject before the claim's words: the speaker's own ("I", "我") or someone else's
_SUBJECT = re.compile(
    rf"\b(?P<first>i|i'm|i've|i'd|i'll|we|we're|we've)\b|(?P<other>\b(?:my|our|his|her|their)\s+(?:\w+\s+)?(?:{_PEOPLE_EN})\b"
    r"|\b(?:he|she|they|he's|she's|they're|you|you're)\b)"
    r"|(?P<other_zh>(?:我|我的|他|她|他们|她们|你)(?:哥哥|弟弟|姐姐|妹妹|妈妈|妈|母亲|爸爸|爸|父亲|老婆|老公|妻子|丈夫|朋友|儿子|女儿|"
    r"孩子|老板|同事|室友|邻居|家人|男朋友|女朋友|爷爷|奶奶|外婆|外公)|(?<![我])[他她你](?:们)?)|(?P<first_zh>我(?:们)?)",
    re.IGNORECASE)


# a question is the part of a sentence up to a comma: "I live in Lisbon, where do you live?"
# states where the writer lives; "Do you like jazz, or rock?" asks
_PART_END = re.compile(r"[.!?。！？\n,，;；]")
# someone else's words or beliefs about the writer: "My mom thinks I live in Paris", 我妈妈说我住在巴黎
_REPORTED = re.compile(
    rf"(?:\b(?:my|our|his|her|their)\s+(?:\w+\s+)?(?:{_PEOPLE_EN})|\b(?:he|she|they|you|people|everyone|someone)\b)"
    r"\s+(?:\w+\s+)?(?:think|thinks|thought|say|says|said|believe|believes|believed|claim|claims|claimed|assume|"
    r"assumes|assumed|guess|guesses|guessed|told|tells|figures?)\b"
    r"|(?:他|她|他们|她们|你|别人|大家|我(?:的)?(?:哥哥|弟弟|姐姐|妹妹|妈妈|妈|爸爸|爸|老婆|老公|朋友|同事|老板|家人))"
    r"(?:说|觉得|认为|以为|猜|告诉)", re.IGNORECASE)
_WISH = re.compile(r"\b(?:i\s+wish|wish(?:es)?\s+(?:i|that)|if only|i\s+hope|i'd\s+love\s+to|i\s+dream\s+of)\b"
                   r"|希望|但愿|要是能|梦想", re.IGNORECASE)


def not_asserted(text: str, position: int) -> str | None:
    """Why the words at ``position`` of what someone wrote do not assert a claim about the
    writer: ``"a question"``, ``"a condition"``, ``"a guess"``, ``"a wish"``, ``"someone
    else's words"`` or ``"about someone else"``; ``None`` when they do. The part of the
    sentence holding them is judged (a question), the sentence before them (a condition,
    a hedge, a wish, reported words), and the nearest subject before them."""
    starts = [m.end() for m in _SENTENCE_END.finditer(text, 0, position)]
    start = starts[-1] if starts else 0
    parts = [m.end() for m in _PART_END.finditer(text, 0, position)]
    end_m = _PART_END.search(text, position)
    part = text[parts[-1] if parts else 0: end_m.end() if end_m else len(text)].strip()
    if part.endswith(("?", "？", "吗", "吗。")) or _QUESTION_START.search(part):
        return "a question"
    head = text[start:position]
    if _CONDITIONAL.search(head):
        return "a condition"
    if HEDGES.search(head):
        return "a guess"
    if _WISH.search(head):
        return "a wish"
    if _REPORTED.search(head):
        return "someone else's words"
    subjects = list(_SUBJECT.finditer(text[clause_span(text, position)[0] : position]))
    if subjects and (subjects[-1].group("other") or subjects[-1].group("other_zh")):
        return "about someone else"
    return None
