"""Step 3 of the dream: find near-duplicates, contradictions and stale memories.

Reads only. Memories are grouped by ``type`` (``unknown`` when absent); pinned
memories are never candidates for anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from trulymem.dream.contradictions import find_contradictions
from trulymem.dream.duplicates import find_duplicates
from trulymem.dream.findings import (
    Analysis,
    Contradiction,
    DreamSettings,
    Merge,
    PruneCandidate,
    kind_of,
    text_of,
)
from trulymem.dream.policy import Retention
from trulymem.dream.similarity import document_frequencies, words
from trulymem.dream.vocab import CANON, GENERIC, IDENT, PATH, PROPER
from trulymem.embed import Embedder
from trulymem.memories import MemoryItem

__all__ = ["Analysis", "Contradiction", "DreamSettings", "Merge", "PruneCandidate", "analyze", "has_unique_info",
           "kind_of"]


def analyze(items: Sequence[MemoryItem], retention: Retention, now: datetime, *,
            embedder: Embedder | None = None, settings: DreamSettings | None = None) -> Analysis:
    cfg = settings or DreamSettings()
    out = Analysis(memories=len(items), seen={m.id: m.updated_at for m in items})
    live = [m for m in items if not m.pinned]
    seqs = [words(text_of(m)) for m in live]
    sets = [{CANON.get(t, t) for t in s if t not in GENERIC} for s in seqs]
    df = document_frequencies(set(q) | t for q, t in zip(seqs, sets))
    out.conflicts, distinct = find_contradictions(live, seqs, sets, df)
    # A memory in a conflict waits for the person's choice: it is not merged or pruned meanwhile.
    held = {m.id for c in out.conflicts for m in (c.a, c.b)}
    out.merges = find_duplicates(live, sets, df, held, distinct, cfg, embedder)
    held |= {m.id for g in out.merges for m in g.items}
    out.prunes = _prunes(live, retention, now, cfg, exclude=held)
    return out


# --- prunes -----------------------------------------------------------------------
def has_unique_info(text: str) -> bool:
    """File paths, identifiers, URLs, issue numbers, proper nouns: what makes a memory
    specific to this project and not general knowledge."""
    return bool(PATH.search(text) or IDENT.search(text) or PROPER.search(text))


def _prunes(live: Sequence[MemoryItem], retention: Retention, now: datetime, cfg: DreamSettings,
            exclude: set[str]) -> list[PruneCandidate]:
    out = []
    for m in live:
        if m.id in exclude:
            continue
        age = max(0, (now - m.created_at).days)
        limit = retention.limit(m.type)
        if limit is not None and age > limit:
            out.append(PruneCandidate(m, kind_of(m), age, "retention"))
        elif m.confidence < cfg.low_confidence and not has_unique_info(m.memory):
            out.append(PruneCandidate(m, kind_of(m), age, "low_confidence"))
    return out
