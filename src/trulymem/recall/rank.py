"""Rankers as pure functions of plain numbers: easy to test, easy to swap."""

from __future__ import annotations

import math
from datetime import datetime


def recency(updated_at: datetime, now: datetime, half_life_days: float) -> float:
    """1.0 for now, 0.75 after one half-life, tending to 0.5: old facts fade but never vanish."""
    age_days = max(0.0, (now - updated_at).total_seconds() / 86400)
    return 0.5 + 0.5 * math.pow(0.5, age_days / half_life_days)


def fact_quality(confidence: float, pinned: bool, speculation: bool, rec: float, *,
                 pinned_boost: float, speculation_penalty: float) -> float:
    q = (0.6 + 0.4 * confidence) * rec
    if pinned:
        q *= pinned_boost
    if speculation:
        q *= speculation_penalty
    return q


def normalize_scores(raw: list[float], top: float = 1.0) -> list[float]:
    """Scale so the best is ``top`` (ties and single hits keep ``top``)."""
    best = max(raw, default=0.0)
    return [top * (r / best) if best > 0 else top for r in raw]


def rrf(rankings: list[list[str]], k: float = 60.0, weights: list[float] | None = None) -> dict[str, float]:
    """Reciprocal rank fusion: ``sum(w / (k + rank))`` over the rankings an item is in."""
    fused: dict[str, float] = {}
    for i, ranking in enumerate(rankings):
        w = weights[i] if weights else 1.0
        for rank, item in enumerate(ranking):
            fused[item] = fused.get(item, 0.0) + w / (k + rank + 1)
    return fused


def rank_order(n: int, first: float = 1.0, step: float = 0.85) -> list[float]:
    """Scores for an already ordered list: ``first``, ``first*step`` …"""
    return [first * step**i for i in range(n)]
