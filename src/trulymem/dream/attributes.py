"""A triplet's attribute said again in a sentence: "user phone_model Google Pixel 8" and
"User's phone is an iPhone 13 mini", "user bank Sbanken" and "DNB is her main bank". The
relation names the attribute; the sentence names it too, right before or after its value."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence

from trulymem.dream.findings import block_of
from trulymem.dream.similarity import cjk, mentions, negated, words
from trulymem.dream.stated import NUMERIC, values
from trulymem.dream.vocab import MULTI_VALUED
from trulymem.memories import MEMORY_RELATION, MemoryItem
from trulymem.text import relation_key

# words of a relation that qualify the attribute and that a sentence often leaves out ("phone [model]")
_QUALIFIERS = frozenset(words("model provider name current primary main preferred personal default usual brand make"))
# relations of a thing many of which hold at once
_MANY = frozenset(words("has have is are was allergic pet pets hobby hobbies friend friends child children kid kids "
                        "sibling siblings skill skills language languages tool tools")) | MULTI_VALUED
_COPULA = r"(?:\s+(?:is|was|are)(?:\s+now)?|\s+now\s+is|\s*[:=])(?:\s+(?:an?|the))?\s+"
_OWNERS = r"(?:her|his|their|my|the user's|the user’s|user's|user’s)\s+"
Add = Callable[[MemoryItem, MemoryItem, str], None]


def attribute_conflicts(live: Sequence[MemoryItem], owner: str | None, add: Add) -> None:
    """Each single-valued triplet against the English sentences of its block that name its
    attribute next to another value, about the user (no one else named as its owner)."""
    triples = [(m, core) for m in live if (core := _attribute(m)) is not None]
    if not triples:
        return
    by_word: dict[tuple[str, str], list[MemoryItem]] = defaultdict(list)
    for m in live:
        if relation_key(m.relation) == MEMORY_RELATION and not cjk(m.memory):
            for w in set(words(m.memory)):
                by_word[(block_of(m), w)].append(m)
    for t, core in triples:
        for other in by_word.get((block_of(t), core[-1]), []):
            if set(core) <= set(words(other.memory)) and _states_other_value(other.memory, core, t.object, owner):
                add(t, other, " ".join(core))


def _attribute(m: MemoryItem) -> list[str] | None:
    """The words a single-valued triplet's relation names its attribute by ("phone_model" ->
    ["phone"], "home_broadband_provider" -> ["home", "broadband"]); ``None`` for free text, a
    many-valued relation (likes, speaks_language, has_pet) or a Chinese one."""
    rel = relation_key(m.relation)
    if rel == MEMORY_RELATION or cjk(rel) or cjk(m.object):
        return None
    ws = words(rel.replace("_", " "))
    if not ws or set(ws) & _MANY or ws[-1].endswith("s") and not ws[-1].endswith(("ss", "us", "is")):
        return None
    core = [w for w in ws if w not in _QUALIFIERS]
    return core or None


def _states_other_value(text: str, core: list[str], obj: str, owner: str | None) -> bool:
    """``text`` says the attribute is something other than ``obj``: the attribute's last word
    then a copula, or "<value> is her main <attribute>"; a name as the value, the object
    nowhere in it; no negation; the user's, not someone else's."""
    if negated(text) or mentions(text, obj) or any(w in words(text) for w in words(obj) if not NUMERIC.fullmatch(w)):
        return False
    last = re.escape(core[-1])
    after = re.search(rf"\b{last}\w*(?:\s+(?:model|provider|brand|app))?{_COPULA}(?:from\s+)?(?P<v>[^,.;]+)", text,
                      re.IGNORECASE)
    before = re.search(rf"(?P<v>[^,.;]+?)\s+is\s+(?:now\s+)?(?:{_OWNERS})?(?:main\s+|primary\s+|current\s+)?{last}\b",
                       text, re.IGNORECASE)
    found = after or before
    if found is None or not _named(found.group("v")):
        return False
    return _owned_by_user(text[:found.start()] if after else text, owner)


def _named(value: str) -> bool:
    """A value that names something (a product, a company, a handle), not a description; a
    sentence's first word counts when it is all the value says ("[Basefit] is her gym now")."""
    return any(not NUMERIC.fullmatch(v) and ":" not in v for v in values(value)) or bool(re.search(r"\w_\w", value)) \
        or (bool(_PROPER.fullmatch(value.strip())) and value.split()[0].casefold() not in _NOT_NAMES)


_PROPER = re.compile(r"(?-i:[A-Z])[\w.+&-]*(?:\s+(?-i:[A-Z])[\w.+&-]*){0,3}")
_NOT_NAMES = frozenset("the her his their my our this that it she he they user".split())


_POSSESSOR = re.compile(r"\b([\w-]+)(?:'s|’s)\s")


def possessors(text: str) -> set[str]:
    """Whose things an English text names ("Emil's phone" → emil, "her sister's bank" → sister)."""
    return {m.group(1).casefold() for m in _POSSESSOR.finditer(text)}


def _owned_by_user(lead: str, owner: str | None) -> bool:
    """No one but the user is named as the attribute's owner ("Emil's phone is …", "her sister's bank")."""
    return all(n in ("user", "the") or (owner is not None and n == owner.casefold()) for n in possessors(lead))
