"""Roles one holder fills at a time: "Dev owns the ledger service" and "Hana owns the
ledger service" disagree, while "Alice reviews frontend code" and "Bob reviews frontend
code" can both hold. Read narrowly: a role that names one holder by convention (owner,
lead, head, manager, 负责人) of a definite thing ("the …", or a Chinese 负责 statement),
the same thing on both sides, and two different holders."""

from __future__ import annotations

import re
from functools import lru_cache

_ROLE_EN = re.compile(
    r"^\s*(?P<who>[^,;:.]+?)\s+(?:(?:now|currently|still)\s+)?"
    r"(?P<role>owns|leads|heads|manages|is responsible for|is in charge of|"
    r"is the (?:owner|(?:tech(?:nical)? )?lead|head|manager|maintainer|point of contact) (?:of|for|on))\s+"
    r"(?P<what>the\s+[^,;:]+?)\s*\.?\s*$", re.IGNORECASE)
_ROLE_ZH = re.compile(r"^\s*(?P<who>[^，。；\s的]{1,8}?)(?:现在|目前|仍然)?(?P<role>负责|主管)"
                      r"(?P<what>[^，。；]{2,20}?)[。]?\s*$")
_ROLE_KEY = {"owns": "own", "is responsible for": "own", "is in charge of": "own", "负责": "own", "主管": "own",
             "leads": "lead", "heads": "lead", "manages": "lead"}


@lru_cache(maxsize=65_536)
def _role(text: str) -> tuple[str, str, str] | None:
    """(holder, role, thing) of a one-holder role statement, casefolded; else ``None``."""
    m = _ROLE_EN.match(text) or _ROLE_ZH.match(text)
    if m is None:
        return None
    role = m.group("role").casefold()
    key = _ROLE_KEY.get(role) or ("own" if "owner" in role or "maintainer" in role or "contact" in role else "lead")
    return m.group("who").strip().casefold(), key, " ".join(m.group("what").casefold().split())


def other_holder(a: str, b: str) -> bool:
    """The same one-holder role of the same thing, held by two different holders."""
    ra, rb = _role(a), _role(b)
    return ra is not None and rb is not None and ra[1:] == rb[1:] and ra[0] != rb[0]
