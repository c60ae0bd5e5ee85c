"""Tokens for full-text search that work for English and Chinese alike.

SQLite's ``unicode61`` tokenizer treats a run of CJK characters as one token and
the trigram tokenizer cannot match two-character words (猫娘, 成语), so we
tokenise before indexing: CJK runs become overlapping character bigrams (a lone
character stays a unigram), everything else becomes case-folded words. Queries
are tokenised the same way, so a Chinese word matches wherever its characters
appear next to each other.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

# CJK ideographs, kana and hangul: scripts written without spaces between words.
_CJK = (
    r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
    r"\U00020000-\U0002fa1f"
)
_TOKEN = re.compile(rf"([{_CJK}]+)|([^\W_]+)", re.UNICODE)
_SPLIT_LIST = re.compile(r"[,，、;；|]+")
_IS_CJK = re.compile(rf"[{_CJK}]")
_WORD = re.compile(r"[^\W_]+")  # _TOKEN's second group: all it matches when a text has no CJK
_ASCII_WORD = re.compile(r"[a-z0-9]+")


def _cjk_grams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


# text -> its tokens, while a ``shared_tokens`` block runs in this context (thread, task)
_SHARED: ContextVar[dict[str, tuple[str, ...]] | None] = ContextVar("trulymem_shared_tokens", default=None)


@contextmanager
def shared_tokens() -> Iterator[None]:
    """Within this block each distinct text is tokenised once. An ingest asks a message's
    tokens for its stems and its self-statement test, and its summary's for the full-text row
    and the vector: four tokenisations, now two. The texts are dropped when the block ends,
    so a long-lived server keeps nothing; a nested block shares the outer one's."""
    if _SHARED.get() is not None:
        yield
        return
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def tokens(text: str) -> list[str]:
    """Case-folded word tokens, CJK runs as bigrams; ``snake_case`` splits into words."""
    memo = _SHARED.get()
    if memo is None:
        return _tokens(text)
    hit = memo.get(text)
    if hit is None:
        hit = memo[text] = tuple(_tokens(text))
    return list(hit)  # a copy: the caller may change its list


def joined(*parts: str) -> str:
    """``"".join(parts)``. Inside a ``shared_tokens`` block its tokens are the parts' tokens
    one after the other when that is exact — every part ASCII, and no boundary between two
    word characters, where a token would span it — so a text made of texts already
    tokenised (an episode's "speaker: message") is not tokenised again."""
    text = "".join(parts)
    memo = _SHARED.get()
    if memo is None or text in memo or not text.isascii():
        return text
    kept = [p for p in parts if p]
    if all(not (a[-1].isalnum() and b[0].isalnum()) for a, b in zip(kept, kept[1:])):
        memo[text] = tuple(t for p in kept for t in tokens(p))
    return text


def _tokens(text: str) -> list[str]:
    # The same tokens by a simpler pattern where no CJK run can occur (most texts): ASCII is its
    # own NFKC form and its word characters are [a-z0-9] once lowered; twice as fast on LoCoMo.
    if text.isascii():
        return _ASCII_WORD.findall(text.lower())
    text = unicodedata.normalize("NFKC", text).casefold()
    if not _IS_CJK.search(text):
        return _WORD.findall(text)
    out: list[str] = []
    for cjk, word in _TOKEN.findall(text):
        if cjk:
            out.extend(_cjk_grams(cjk))
        else:
            out.append(word)
    return out


def fts_document(*parts: str) -> str:
    """The text to index for a row: its tokens joined by spaces. Tokenised line by line, each
    line once: an episode's indexed context repeats its neighbours' lines (no token spans a
    line break, so the result is the same as tokenising the whole text)."""
    docs: list[str] = []
    for part in parts:
        if not part:
            continue
        if "\n" in part:
            docs.extend(map(_line_document, part.split("\n")))
        else:
            docs.append(_line_document(part))
    return " ".join(filter(None, docs))


_CACHED_LINE = 500  # longer lines are tokenised each time: the cache stays small in a long-lived server


def _line_document(line: str) -> str:
    return _cached_line_document(line) if len(line) <= _CACHED_LINE else " ".join(tokens(line))


@lru_cache(maxsize=512)  # a line repeats within its neighbours' windows in one ingest, not later
def _cached_line_document(line: str) -> str:
    return " ".join(tokens(line))


def query_terms(query: str) -> list[str]:
    """Split a query intent into terms: on commas (and 、；;|) when it has any,
    otherwise on whitespace — so ``"AI,persona,role"``, ``"猫娘 成语"`` and
    ``"New York, 猫娘"`` all mean what they say."""
    query = unicodedata.normalize("NFKC", query)
    parts = _SPLIT_LIST.split(query) if _SPLIT_LIST.search(query) else query.split()
    return [t for t in (p.strip() for p in parts) if t]


MAX_PHRASES = 32
MAX_PHRASE_TOKENS = 16  # longer phrases are no more selective, only slower to match


def phrases(terms: list[str]) -> list[tuple[str, ...]]:
    """Each term's tokens (a phrase to match in order), without empties or repeats."""
    found = dict.fromkeys(tuple(toks[:MAX_PHRASE_TOKENS]) for term in terms if (toks := tokens(term)))
    return list(found)[:MAX_PHRASES]


def _quote(tok: str) -> str:
    return '"' + tok.replace('"', '""') + '"'


def fts_match(phrase_list: list[tuple[str, ...]]) -> str | None:
    """An FTS5 MATCH expression: any phrase matches; ``None`` when there is none."""
    clauses: list[str] = []
    for toks in phrase_list:
        if len(toks) == 1 and len(toks[0]) == 1 and _IS_CJK.match(toks[0]):
            # A lone CJK character is indexed only inside bigrams: also prefix-match them.
            clauses.append(f"({_quote(toks[0])} OR {_quote(toks[0])}*)")
        else:
            clauses.append(_quote(" ".join(toks)))  # a phrase: tokens adjacent, in order
    return " OR ".join(clauses) if clauses else None


_COUNT = re.compile(rf"([{_CJK}])|([^\W_]+)|(\S)", re.UNICODE)


def count_tokens(text: str) -> int:
    """A model-independent token count used for every budget: a CJK character is one
    token, a word one per four characters (rounded up), other symbols one each."""
    if "\n" not in text:
        return _count(text)
    # No token spans a line break, so a text's count is its lines' counts: rendered memories
    # repeat from one recall (and one budget trial) to the next, and their lines are cached.
    return sum(_line_tokens(line) for line in text.split("\n"))


@lru_cache(maxsize=16_384)
def _line_tokens(line: str) -> int:
    return _count(line)


def _count(text: str) -> int:
    n = 0
    for cjk, word, other in _COUNT.findall(text):
        n += 1 if cjk or other else -(-len(word) // 4)
    return n
