"""Full text for PostgreSQL with SQLite's semantics.

The SQLite store indexes pre-tokenised text (``text.fts_document``: case-folded words, CJK
bigrams) with FTS5's ``porter unicode61 remove_diacritics 2``. Here the same tokenizer —
SQLite's own, on an in-memory table, read back through ``fts5vocab`` — turns each token
into its indexed term, and the terms are written as a tsvector literal with positions
(no PostgreSQL parser or dictionary in between). Queries become tsquery literals built
the same way (phrases as ``<->``; a lone CJK character also matches the bigrams it starts,
as FTS5's prefix query does). So a phrase matches in PostgreSQL exactly where it matches
in SQLite.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Sequence

from trulymem.store.schema import FTS_TOKENIZER
from trulymem.text import tokens

_MAX_POS = 16_383  # PostgreSQL's largest tsvector position
_CACHE_MAX = 200_000
_MAX_BYTES = 2_000
_CJK_ONE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]")


class _Stemmer:
    """Token -> indexed terms, through SQLite FTS5's tokenizer (cached per token)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[str, ...]] = {}
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{FTS_TOKENIZER}')")
        self._db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")

    def terms(self, toks: Sequence[str]) -> list[tuple[str, ...]]:
        cache = self._cache
        missing = list(dict.fromkeys(t for t in toks if t not in cache))
        if missing:
            with self._lock:
                found: dict[int, list[str]] = {}
                self._db.execute("DELETE FROM t")
                self._db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", list(enumerate(missing, 1)))
                for doc, term in self._db.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
                    found.setdefault(doc, []).append(term)
                if len(cache) > _CACHE_MAX:
                    cache.clear()
                for i, tok in enumerate(missing, 1):
                    cache[tok] = tuple(found.get(i, ()))
        return [cache[t] if t in cache else self.terms([t])[0] for t in toks]


_STEMMER = _Stemmer()


def prime(texts: Sequence[str]) -> None:
    """Stem every new token of ``texts`` in one pass of SQLite's tokenizer (a batch of new
    nodes otherwise takes one pass each: 71 vs 19 ms for 1,000 new names)."""
    _STEMMER.terms([t for text in texts for t in tokens(text)])


def _quote(term: str) -> str:
    if len(term) > 500:  # PostgreSQL's longest lexeme is 2,046 bytes: cut both sides alike
        term = term.encode()[:_MAX_BYTES].decode(errors="ignore")
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def _terms(text: str) -> list[str]:
    return [term for group in _STEMMER.terms(tokens(text)) for term in group]


def tsvector(doc: str, ctx: str = "") -> str:
    """A tsvector literal: ``doc`` (a node's own text, weight A) and ``ctx`` (text around it,
    weight B) at positions a gap apart, so no phrase spans the two (FTS5 columns)."""
    positions: dict[str, list[str]] = {}
    pos = 0
    for weight, text in (("A", doc), ("B", ctx)):
        if not text:
            continue
        for term in _terms(text):
            pos += 1
            positions.setdefault(term, []).append(f"{min(pos, _MAX_POS)}{weight}")
        pos += 1
    return " ".join(f"{_quote(t)}:{','.join(p[:256])}" for t, p in positions.items())


def tsquery(phrase_list: Sequence[tuple[str, ...]]) -> str | None:
    """A tsquery literal matching any phrase (terms adjacent, in order); ``None`` for none."""
    clauses: list[str] = []
    for toks in phrase_list:
        if len(toks) == 1 and len(toks[0]) == 1 and _CJK_ONE.match(toks[0]):
            clauses.append(_quote(toks[0]) + ":*")  # the character alone or starting a bigram
            continue
        terms = [term for group in _STEMMER.terms(list(toks)) for term in group]
        if terms:
            clauses.append("(" + " <-> ".join(_quote(t) for t in terms) + ")")
    return " | ".join(clauses) if clauses else None
