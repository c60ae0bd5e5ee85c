"""Roles one holder fills at a time: "Dev owns the ledger service" and "Hana owns the
ledger service" disagree, while "Alice reviews frontend code" and "Bob reviews frontend
code" can both hold. Read narrowly: a role that names one holder by convention (owner,
lead, head, manager, 负责人) of a definite thing ("the …", or a Chinese 负责 statement), or
*the* one of a kind ("X is the team's tech lead", "X is the editor the user codes in"); the
same thing on both sides, and two different holders."""

from __future__ import annotations

import re
from functools import lru_cache

from trulymem.dream.kinship import kin

_ROLE_EN = re.compile(
    r"^\s*(?P<who>[^,;:.]+?)\s+(?:(?:now|currently|still)\s+)?"
    r"(?P<role>owns|leads|heads|manages|is responsible for|is in charge of|"
    r"is the (?:owner|(?:tech(?:nical)? )?lead|head|manager|maintainer|point of contact) (?:of|for|on))\s+"
    r"(?P<what>the\s+[^,;:]+?)\s*\.?\s*$", re.IGNORECASE)
# "Björn is the team's tech lead", "Zed is the editor the user codes in": someone or something
# named as *the* one of a kind (a definite description), which only one can be at a time.
_THE_ONE_EN = re.compile(r"^\s*(?P<who>[^,;:.]+?)\s+is\s+(?:(?:now|currently|still)\s+)?"
                         r"(?P<what>(?:the|our|his|her|their|my)\s+[^,;:]+?)\s*\.?\s*$", re.IGNORECASE)
# the same, turned round: "The team's tech lead is Ana" (the holder a name, so "The bug is fixed" is no role)
_THE_ONE_EN_INV = re.compile(r"^\s*(?P<what>(?:the|our|his|her|their|my)\s+[^,;:]+?)\s+is\s+(?:(?:now|currently|still)\s+)?"
                             r"(?P<who>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,2})\s*\.?\s*$", re.IGNORECASE)
_NOT_ONE = re.compile(r"\b(?:one|some|any|each|every|all|both|either|neither|another|other|others)\b|"
                      r"\b(?:also|too|as well)\s*\.?\s*$", re.IGNORECASE)
_ONLY_ONE_KIN = frozenset({"mother", "father", "wife", "husband", "spouse", "boss"})
_ROLE_ZH = re.compile(r"^\s*(?P<who>[^，。；\s的]{1,8}?)(?:现在|目前|仍然)?(?P<role>负责|主管)"
                      r"(?P<what>[^，。；]{2,20}?)[。]?\s*$")
_ROLE_KEY = {"owns": "own", "is responsible for": "own", "is in charge of": "own", "负责": "own", "主管": "own",
             "leads": "lead", "heads": "lead", "manages": "lead"}


@lru_cache(maxsize=65_536)
def _role(text: str) -> tuple[str, str, str] | None:
    """(holder, role, thing) of a one-holder role statement, casefolded; else ``None``."""
    m = _ROLE_EN.match(text) or _ROLE_ZH.match(text)
    if m is None:
        one = _THE_ONE_EN.match(text) or _THE_ONE_EN_INV.match(text)
        if one is None or (one.re is _THE_ONE_EN_INV and not one.group("who")[:1].isupper()) \
                or _NOT_ONE.search(one.group("what")) or " is " in one.group("who").casefold() \
                or kin(one.group("what")) - _ONLY_ONE_KIN:
            return None  # "Leo is the user's son": a son is one of possibly several
        return one.group("who").strip().casefold(), "the one", " ".join(one.group("what").casefold().split())
    role = m.group("role").casefold()
    key = _ROLE_KEY.get(role) or ("own" if "owner" in role or "maintainer" in role or "contact" in role else "lead")
    return m.group("who").strip().casefold(), key, " ".join(m.group("what").casefold().split())


def other_holder(a: str, b: str) -> bool:
    """The same one-holder role of the same thing, held by two different holders."""
    ra, rb = _role(a), _role(b)
    return ra is not None and rb is not None and ra[1:] == rb[1:] and ra[0] != rb[0]
