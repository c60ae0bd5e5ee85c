"""What the dream's analysis finds: plain data."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from trulymem.memories import MEMORY_RELATION, MemoryItem
from trulymem.text import name_key, relation_key


@dataclass
class Merge:
    items: list[MemoryItem]
    merged: str               # the merged memory's text
    subject: str
    relation: str
    object: str
    type: str
    confidence: float
    similarity: float


@dataclass
class Contradiction:
    a: MemoryItem
    b: MemoryItem
    topic: str
    winner: Literal["A", "B"]
    why: str


@dataclass
class PruneCandidate:
    item: MemoryItem
    type: str
    age_days: int
    reason: Literal["retention", "low_confidence"]


@dataclass
class Analysis:
    memories: int
    merges: list[Merge] = field(default_factory=list)
    conflicts: list[Contradiction] = field(default_factory=list)
    prunes: list[PruneCandidate] = field(default_factory=list)
    # id -> updated_at when analysed: apply refuses if any of them changed since
    seen: dict[str, datetime] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.merges or self.conflicts or self.prunes)


@dataclass(frozen=True)
class DreamSettings:
    dup_threshold: float = 0.6      # Jaccard of significant words: "more than 60% of significant nouns"
    cosine_threshold: float = 0.9   # a semantic embedder's cosine to the nearest neighbour that makes a duplicate
    low_confidence: float = 0.3
    semantic_floor: float = 0.6     # with a semantic embedder: mutual nearest neighbours this close …
    semantic_margin: float = 1.04   # … and this much closer than their next neighbours
    semantic_block_limit: int = 50_000  # larger blocks: lexical candidates only (the pass is O(n²))


def kind_of(m: MemoryItem) -> str:
    return m.type or "unknown"


def block_of(m: MemoryItem) -> str:
    """Memories are only ever compared within one user, type and subject."""
    return f"{m.user_id}\x00{kind_of(m)}\x00{name_key(m.subject)}"


def text_of(m: MemoryItem) -> str:
    """What a memory says apart from whom it is about."""
    return m.object if relation_key(m.relation) == MEMORY_RELATION else f"{m.relation.replace('_', ' ')} {m.object}"
