"""What a query intent is: a natural-language question or a list of intents.

``"AI,persona,role"`` is a list: each comma-separated piece is a term (searched as a
phrase). ``"What did Jon do on March 16, 2022?"`` is a question: its commas are
punctuation, so it is split on whitespace like any sentence — splitting it on the
comma searched ``"What did Jon do on March 16"`` as one exact phrase, which no turn
contains (issue 16: 81 of 83 such LoCoMo questions found nothing by full text).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from trulymem.text.tokenize import query_terms

_LIST_SEP = re.compile(r"[,，、;；|]")
_QUESTION_WORDS = frozenset(
    "what when where who whom whose which why how is are was were do does did can could would should will has have "
    "had tell describe name list".split())
# Words that frame a question rather than name its topic ("What might Ola likely enjoy?"):
# as search words they match turns that happen to say "likely" or "things".
FRAME_WORDS = frozenset(
    "likely might would could kind kinds type types sort thing things way ways ever usually recently "
    "describe described consider considered say said mention mentioned think thought something anything "
    "someone anyone many much yes answer".split())
_WORD = re.compile(r"[^\W_][\w'’-]*", re.UNICODE)
_POSSESSIVE = re.compile(r"['’]s?$")
_EDGE_PUNCT = "?!.,:;'\"“”‘’()[]"


@dataclass(frozen=True)
class ParsedQuery:
    text: str
    terms: list[str]          # what to search: pieces of a list, words of a question
    question: bool            # natural language (split on whitespace, commas are punctuation)
    capitalised: list[str]    # capitalised words not at the start: candidate person names


def is_question(text: str) -> bool:
    """Natural language rather than an intent list: ends with "?", opens with a question
    word, or has a comma-separated piece of four or more words (lists name things)."""
    t = unicodedata.normalize("NFKC", text).strip()
    if not t:
        return False
    if t.endswith(("?", "？")):
        return True
    words = t.split()
    if len(words) >= 3 and words[0].casefold().strip(_EDGE_PUNCT) in _QUESTION_WORDS:
        return True
    if _LIST_SEP.search(t):
        return any(len(piece.split()) >= 4 for piece in _LIST_SEP.split(t))
    return False


def topic_terms(terms: list[str]) -> list[str]:
    """A question's terms without ``FRAME_WORDS`` (unless that leaves none)."""
    kept = [t for t in terms if t.casefold() not in FRAME_WORDS]
    return kept or terms


def parse_query(text: str) -> ParsedQuery:
    """Terms to search and what kind of query ``text`` is. Lists keep ``query_terms``'s
    splitting; a question's words lose their edge punctuation ("2022?" -> "2022")."""
    text = unicodedata.normalize("NFKC", text)
    if not is_question(text):
        return ParsedQuery(text, query_terms(text), False, [])
    words = [w.strip(_EDGE_PUNCT) for w in text.split()]
    terms = [w for w in words if w]
    caps = [_POSSESSIVE.sub("", m.group(0)) for i, m in enumerate(_WORD.finditer(text))
            if m.group(0)[:1].isupper() and i > 0]
    return ParsedQuery(text, terms, True, list(dict.fromkeys(c for c in caps if len(c) > 1)))


# A question whose answer is a set of things said at different times ("What activities does Ola
# do?", "Which cities has Ines visited?", "How many times…", "What has Ola painted?").
_AUX = r"(?:do|does|did|has|have|had|is|are|was|were|can|could|would|might|will)"
_SET_PATTERNS = (
    # a plural object before the verb: "What books has…", "What kinds of art does…"
    re.compile(rf"^(?:what|which)\s+(?:(?:kinds|types|sorts)\s+of\s+[^?]*?|(?:[^\s?]+\s+){{0,2}}?"
               rf"[^\s?]*[^\Wsu]s)\s+{_AUX}\b", re.IGNORECASE),
    re.compile(r"^how\s+many\b|^(?:list|name)\b|^(?:what|who)\s+(?:are|were)\b|\bboth\b", re.IGNORECASE),
    # "What has Ola done…", "Where has Ines camped?"
    re.compile(r"^(?i:what|where|which)\s+(?i:has|have)\s+[A-Z][\w'’-]*(?:\s+and\s+[A-Z][\w'’-]*)?\s+"
               r"(?:\w+ed|done|seen|made|read|been|gone|taken|given|written|eaten|bought|won|met|tried|played)\b"),
)


def is_set_question(text: str) -> bool:
    """A question whose answer is many things: a plural asked for after "what"/"which"
    ("What books has…", "What kinds of art…"), "how many", "what are", "both", or "what has
    <someone> done"."""
    t = unicodedata.normalize("NFKC", text).strip()
    return any(p.search(t) for p in _SET_PATTERNS)
