"""What the dream's analysis finds: plain data."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from trulymem.dream.similarity import common_ends
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
    reviewed: bool = False    # a pair a person chose to merge on review


@dataclass
class Contradiction:
    a: MemoryItem
    b: MemoryItem
    topic: str
    winner: Literal["A", "B"]
    why: str


@dataclass
class Review:
    """Two memories alike in meaning but not provably one fact: a person (or a model)
    decides — merge them, keep both, or skip for now."""
    a: MemoryItem
    b: MemoryItem
    similarity: float
    why: str
    merge: Merge  # what merging them would write


@dataclass
class PruneCandidate:
    item: MemoryItem
    type: str
    age_days: int
    reason: Literal["retention", "low_confidence"]
    retention_days: int | None = None  # the type's limit it is past (reason "retention")

    def why(self) -> str:
        """Why it goes, for a person reading the report."""
        if self.reason == "retention":
            return f"past the {self.retention_days}d kept for {self.type}"
        return f"confidence {self.item.confidence:.2f}, nothing specific to this project"


@dataclass
class Analysis:
    memories: int
    merges: list[Merge] = field(default_factory=list)
    conflicts: list[Contradiction] = field(default_factory=list)
    prunes: list[PruneCandidate] = field(default_factory=list)
    reviews: list[Review] = field(default_factory=list)
    reviews_more: int = 0  # found beyond the per-run cap
    conflicts_more: int = 0  # found beyond the per-run cap: shown once these are resolved
    warnings: list[str] = field(default_factory=list)
    # id -> updated_at when analysed: apply refuses if any of them changed since
    seen: dict[str, datetime] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.merges or self.conflicts or self.prunes or self.reviews)


@dataclass(frozen=True)
class DreamSettings:
    dup_threshold: float = 0.6      # Jaccard of significant words: "more than 60% of significant nouns"
    cosine_threshold: float = 0.7   # a semantic embedder's cosine to the nearest neighbour that makes a duplicate
    low_confidence: float = 0.3
    semantic_floor: float = 0.45    # with a semantic embedder: mutual nearest neighbours this close …
    semantic_margin: float = 1.04   # … and this much closer than their next neighbours
    model_floor: float = 0.35       # with a chat model: each memory's two nearest this close go to it too
    review_floor: float = 0.4       # without one: … and to a person (dev fixtures: recall as at 0.35, ~25% fewer pairs)
    semantic_block_limit: int = 50_000  # larger blocks: lexical candidates only (the pass is O(n²))
    max_conflicts: int = 50         # conflicts shown per run, most confident and recent first
    max_reviews: int = 100          # pairs to review shown per run, most alike first
    max_postings: int = 400         # a term in more memories of one block is boilerplate for blocking


def kind_of(m: MemoryItem) -> str:
    return m.type or "unknown"


def block_of(m: MemoryItem) -> str:
    """Memories are only ever compared within one user, type and subject."""
    return f"{m.user_id}\x00{kind_of(m)}\x00{name_key(m.subject)}"


def text_of(m: MemoryItem) -> str:
    """What a memory says apart from whom it is about."""
    return m.object if relation_key(m.relation) == MEMORY_RELATION else f"{m.relation.replace('_', ' ')} {m.object}"


_TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\s\u3400-\u9fff\uf900-\ufaff]+")
_EDGE = ".,;:!?。，；：！？\"'“”‘’()（）"


def _join(tokens: list[str]) -> str:
    out = ""
    for t in tokens:
        cjk = len(t) == 1 and bool(_TOKEN.fullmatch(t)) and "\u3400" <= t <= "\ufaff"
        prev_cjk = bool(out) and "\u3400" <= out[-1] <= "\ufaff"
        out += t if not out or (cjk and prev_cjk) else " " + t
    return out.strip(_EDGE + " ")


def describe(a: str, b: str, limit: int = 45) -> str:
    """What two conflicting memories disagree on, readably and with both values:
    ``user lives_in: Paris vs Berlin``, ``Deploy to: ECS vs Vercel``, ``用户住在: 北京 vs 深圳``."""
    ta, tb = _TOKEN.findall(a), _TOKEN.findall(b)
    fa, fb = [t.casefold().strip(_EDGE) for t in ta], [t.casefold().strip(_EDGE) for t in tb]
    p, q = common_ends(fa, fb)
    if p and q <= 1:
        q = 0  # a one-word tail ("March 3" / "May 3") belongs to the values
    va, vb = _join(ta[p:len(ta) - q]), _join(tb[p:len(tb) - q])
    frame = _join(ta[:p]) or _join(ta[len(ta) - q:])
    if not va or not vb or not frame.strip(" …"):
        return f"{_clip(a, limit)} vs {_clip(b, limit)}"
    return f"{frame}: {_clip(va, limit)} vs {_clip(vb, limit)}"


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"
