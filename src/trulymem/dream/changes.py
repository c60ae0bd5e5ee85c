"""Change statements: "we moved from Heroku to Lambda", "We ripped out webpack",
从阿里云迁移到腾讯云 — the old value they name is no longer current."""

from __future__ import annotations

import re
from functools import lru_cache

from trulymem.dream.similarity import mentions, words
from trulymem.dream.singles import single
from trulymem.dream.values import special_values

_PERSON = r"(?-i:[A-Z])[\w'’.-]*(?:\s+(?-i:[A-Z])[\w'’.-]*)?"
# "we moved from Heroku to Lambda", "switched from npm to pnpm", "replaced Jenkins with GitHub Actions",
# "no longer use X", 从X迁移到Y, 由X换成Y, 不再使用X: the old value is no longer current.
_CHANGE_EN = [re.compile(p, re.IGNORECASE) for p in (
    r"\b(?:moved|migrated|switched|changed|went|upgraded|transitioned)\s+(?:[\w'’-]+\s+){0,3}?"
    r"(?:from|off(?: of)?)\s+"
    r"(?P<old>(?:[^,.;]|\.(?=\w))+?)\s+(?:to|onto|for)\s+(?P<new>(?:[^,.;]|\.(?=\w))+)",
    r"\breplaced\s+(?P<old>(?:[^,.;]|\.(?=\w))+?)\s+with\s+(?P<new>(?:[^,.;]|\.(?=\w))+)",
    r"\b(?P<old>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)\s+(?:was|has been|got)\s+replaced\s+by\s+(?P<new>(?:[^,.;]|\.(?=\w))+)",
    r"\b(?P<old>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)\s+(?:was|were|has been|got)\s+(?:swapped|switched|traded)\s+"
    r"(?:out\s+)?for\s+(?P<new>(?:[^,.;]|\.(?=\w))+)",
    r"\b(?:swapped|traded|exchanged)\s+(?:out\s+)?(?:his\s+|her\s+|their\s+|my\s+|our\s+|the\s+)?"
    r"(?P<old>(?:[^,.;]|\.(?=\w))+?)\s+for\s+(?P<new>(?:[^,.;]|\.(?=\w))+)",
    r"\bno longer\s+(?:use[sd]?|run[s]?|deploy(?:s|ed)?\s+to|on|in|with)\s+(?P<old>(?:[^,.;]|\.(?=\w))+)",
    r"\binstead of\s+(?P<old>(?:[^,.;]|\.(?=\w))+)",
    r"\b(?:left|quit)\s+(?P<old>(?-i:[A-Z])[\w.&+-]*(?:\s+(?-i:[A-Z])[\w.&+-]*)*)",
    r"\b(?:ripped|tore|swapped)\s+(?P<old>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)\s+out\b",
    r"\b(?:sold|gave away)\s+(?:the\s+|his\s+|her\s+|their\s+|my\s+|our\s+)(?P<old>(?:[^,.;]|\.(?=\w))+?)"
    r"(?=[,.;]|\s+(?:and|to|for|last|this|in)\b|$)",
    r"\b(?:ripped out|removed|dropped|retired|got rid of|phased out|abandoned|stopped using|gave up|given up|"
    r"(?:has |have )?quit|(?:has |have )?stopped|moved on from|moving on from|trad(?:ed|ing) in)\s+"
    r"(?:on\s+)?(?:the\s+idea\s+of\s+|the\s+plan\s+to\s+)?(?:the\s+|his\s+|her\s+|their\s+|my\s+|our\s+)?"
    r"(?P<old>(?:[^,.;]|\.(?=\w))+?)(?:\s+(?:completely|entirely|altogether|for good))?"
    r"(?=[,.;]|\s+(?:and|in favou?r of|for|after|last|this|in|since|when|because)\b|$)",
    r"\b(?:doesn't|does not|don't|do not|didn't|no longer)\s+(?:use|uses|run|runs|drive|drives|own|owns|play|plays|"
    r"drink|drinks|eat|eats)\s+(?:an?\s+|the\s+|any\s+)?(?P<old>(?:[^,.;]|\.(?=\w))+?)\s+(?:any\s?more|now)\b",
    # "cancelled Spotify", "deleted the LastPass vault", "exported everything out of Evernote"
    r"\b(?:cancell?ed|deleted|uninstalled|unsubscribed from|ditched|dumped)\s+(?:the\s+|my\s+|our\s+|his\s+|her\s+|"
    r"their\s+)?(?P<old>(?-i:[A-Z])[\w.+-]*(?:\s+(?-i:[A-Z])[\w.+-]*)?)",
    r"\b(?:moved|exported|migrated|got)\s+(?:[\w'’-]+\s+){0,3}?(?:out of|off of|off|away from)\s+"
    r"(?P<old>(?-i:[A-Z])[\w.+-]*(?:\s+(?-i:[A-Z])[\w.+-]*)?)",
    # "Zendesk was cancelled in May", "the Datadog contract lapsed"
    r"(?P<old>(?-i:[A-Z])[\w.+-]*(?:\s+(?-i:[A-Z])[\w.+-]*)?)(?:\s+(?:contract|subscription|account|plan|licen[cs]e|box|"
    r"server|instance|vault|files?))?\s+(?:(?:was|were|has been|have been|got)\s+(?:cancell?ed|deleted|archived)|"
    r"lapsed|expired)\b",
    r"\b(?:the\s+)?(?P<old>(?:[^,.;]|\.(?=\w))+?)\s+(?:was|were|has been|have been|got|is being)\s+(?:retired|removed|dropped|"
    r"decommissioned|deprecated|shut down|turned off|phased out|ripped out|scrapped|discontinued|axed|closed down)\b",
    # "pharm-app-02 is retired", "Jenkins is decommissioned": an identifier, or a name shut down (a person retires too)
    r"(?P<old>\b[a-z][\w.]*[\d-][\w.-]*)\s+(?:is|are)\s+(?:now\s+)?"
    r"(?:retired|decommissioned|deprecated|shut down|switched off|turned off|phased out|gone)\b(?!\s+(?:from|as)\b)",
    r"(?P<old>(?-i:[A-Z])[\w.+-]*(?:\s+(?-i:[A-Z])[\w.+-]*)?)\s+(?:is|are)\s+(?:now\s+)?"
    r"(?:decommissioned|deprecated|shut down|switched off|turned off|phased out)\b",
    # "she wants the old Read the Docs project deleted", "the old Samsung is sitting in a drawer"
    r"\b(?:the|his|her|their|my|our)\s+old\s+(?P<old>(?-i:[A-Z])[\w.+-]*(?:\s+(?:the\s+)?(?-i:[A-Z])[\w.+-]*)*)",
    # "the supplier shut down their SFTP server", "scrapped the Monday meeting"
    r"\b(?:shut down|scrapped|discontinued|axed|closed down|switched off|turned off)\s+(?:the|his|her|their|its|our|my)\s+"
    r"(?P<old>(?:[^,.;]|\.(?=\w))+?)(?=[,.;]|\s+(?:and|so|in|last|this|because|after)\b|$)",
    # a role handed on: "Tomás took over release management from Priya", "Liis replaced Oskar as tech lead"
    rf"\btook over\s+(?:[\w'’-]+\s+){{0,5}}?from\s+(?P<old>{_PERSON})",
    rf"\breplaced\s+(?P<old>{_PERSON})\s+as\b",
    rf"\bafter\s+(?P<old>{_PERSON})\s+(?:left|moved|stepped down|quit|retired|went on leave)\b")]
_ROLE_HANDED = re.compile(r"\btook over\b|\breplaced\s+\S+(?:\s+\S+)?\s+as\b|\bafter\s+\S+(?:\s+\S+)?\s+(?:left|moved|"
                          r"stepped down|quit|retired|went on leave)\b|接替|取代|卸任|离任|辞去", re.IGNORECASE)
_CHANGE_ZH = [re.compile(p) for p in (
    r"从(?P<old>[^，。；,;]{1,20}?)(?:迁移|迁|搬|换|切换|改|转)(?:到|成|为)了?(?P<new>[^，。；,;]{1,20})",
    r"由(?P<old>[^，。；,;]{1,20}?)(?:改为|换成|切换到)(?P<new>[^，。；,;]{1,20})",
    r"不再(?:使用|用|部署到|住在)(?P<old>[^，。；,;]{1,20})",
    r"(?:弃用|停用|去掉|移除|下线|淘汰)了?(?P<old>[^，。；,;]{1,20})",
    r"(?:接替|取代)了?(?P<old>[^，。；,;的]{1,10}?)(?:的|，|。|成为|担任|负责|$)",
    r"(?P<old>[^，。；,;]{1,20}?)(?:已经|已)?(?:被)?(?:弃用|停用|下线|淘汰)",
    # a role given up: "Anna Russo卸任后，…的新协调员是Karim Benali"
    r"(?P<old>[^，。；,;]{2,12}?)(?:已经|已)?(?:卸任|离任|辞去)")]


# a cheap look for the words every change pattern needs, before the patterns themselves
_CHANGE_HINT = re.compile(r"moved|migrated|switched|swapped|traded|exchanged|changed|went|upgraded|transitioned|replaced|"
                          r"no longer|instead of|left|quit|stopped|gave up|given up|any ?more|"
                          r"ripped|tore|sold|gave away|removed|dropped|retired|got rid of|phased out|abandoned|stopped using|"
                          r"cancell?ed|deleted|uninstalled|unsubscribed|ditched|dumped|exported|out of|lapsed|expired|archived|"
                          r"decommissioned|deprecated|shut down|turned off|took over|after|moved on|trad|scrapped|discontinued|"
                          r"axed|"
                          r"closed down|switched off|\bold\b|\bgone\b|"
                          r"从|由|不再|弃用|停用|去掉|移除|下线|淘汰|接替|取代|卸任|离任|辞去",
                          re.IGNORECASE)


@lru_cache(maxsize=131_072)
def replaced_value(text: str) -> str | None:
    """The value a change statement says is no longer current ("Heroku" in "we moved from
    Heroku to Lambda"), or ``None``."""
    if not _CHANGE_HINT.search(text):
        return None
    for pattern in (*_CHANGE_EN, *_CHANGE_ZH):
        m = pattern.search(text)
        if m:
            old = _LEADING.sub("", m.group("old").strip(" '\"“”").rstrip("."))
            if old and len(old.split()) <= 7 and not _PRONOUN.search(old):
                return old
    return None


# a clause, not a value: "Sesam raced in Ireland before he [was retired]"
_PRONOUN = re.compile(r"\b(?:he|she|they|it|we|i|you)\b", re.IGNORECASE)


# what opens a clause before the value it names ("[Since the] Monday meeting was scrapped")
_LEADING = re.compile(r"^(?:(?:ever\s+)?since|after|now that|once|when|because|as)\s+(?:the\s+|his\s+|her\s+|their\s+|our\s+)?",
                      re.IGNORECASE)


_NAME_IN = re.compile(r"(?-i:[A-Z])[\w.+-]*(?:\s+(?-i:[A-Z])[\w.+-]*)*")


def retires(change: str, other: str) -> bool:
    """``change`` gives up a value ``other`` states, and ``other`` is no change itself. What
    moved is not required to be named in ``other`` too: a change often names it in other
    words ("the frontend" / "our website")."""
    old = replaced_value(change)
    if old is None or replaced_value(other) is not None:
        return False
    name = _NAME_IN.search(old)  # "the Jenkins box was shut down": the name is what the other says
    if not mentions(other, old) and (name is None or not mentions(other, name.group(0))) and not _same_when(old, other):
        return False
    if _LEFT.search(change) and not _MEMBER.search(other):
        return False  # "Marcus left Tidewell" retires who works there, not "Tidewell's field season starts in June"
    if _ROLE_HANDED.search(change) and not _same_role(change, other, old):
        return False  # "took over release management from Priya" retires her role, not "Priya likes tea"
    moved = single(change)  # "moved from Qingdao to Hefei" retires where he lived, not the club he supports
    return moved is None or moved[0] != "home" or single(other) is not None


def _same_role(change: str, other: str, old: str) -> bool:
    """Both speak of the role: a word of the change that names no one and nothing (not the person
    who held it, not the project: "release management"), in the other."""
    names = set(words(" ".join(_NAME_IN.findall(change)))) | set(words(old))
    return bool((set(words(change)) - names - _FILLER) & set(words(other)))


_FILLER = frozenset(words("took over from replaced after left moved stepped down quit retired went leave now since"))
_LEFT = re.compile(r"\b(?:left|quit)\s+(?-i:[A-Z])", re.IGNORECASE)
# belonging to a place of work, a team, a band, a club: what leaving it ends
_MEMBER = re.compile(r"\b(?:works?|working|worked|employ\w*|job|joined|member|plays?|played|sings?|is at|was at|"
                     r"is with|signed|enrolled|studies|studying|attends?|team|band|club|staff)\b|工作|上班|就职|任职|加入|成员|"
                     r"在职|入职", re.IGNORECASE)


def _same_when(old: str, other: str) -> bool:
    """The given-up value is a date, time or frequency the other states, however written
    ("instead of every other week" / "每两周发一次版")."""
    keys = special_values(old)[0]
    return bool(keys) and keys <= special_values(other)[0]


# "moved to BigQuery", "switched to Helix", 改用 OneSignal, 迁到 GitLab: only the new value is named
_MOVED_EN = re.compile(r"\b(?:mov(?:ed|ing|es)|migrat(?:ed|ing|es)|switch(?:ed|ing|es)|transitioned|changed|went over)\s+"
                       r"(?:[\w'’-]+\s+){0,5}?"
                       r"(?:over\s+)?(?:to|onto)\s+"
                       r"(?P<new>(?:[^,.;]|\.(?=\w))+)", re.IGNORECASE)
_MOVED_ZH = re.compile(r"(?:改用|换成|换到|迁到|迁移到|搬到|切换到|改为|转到|改到|改成|调到|推迟到|提前到)了?"
                       r"(?P<new>[^，。；,;了]{1,20})")


@lru_cache(maxsize=131_072)
def moved_to(text: str) -> str | None:
    """The new value of a change that does not name the old one ("The data warehouse moved
    to BigQuery at the start of this year"), or ``None``."""
    if replaced_value(text) is not None:
        return None
    m = _MOVED_EN.search(text) or _MOVED_ZH.search(text)
    return m.group("new").strip(" '\"“”") if m else None
