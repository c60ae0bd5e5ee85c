"""What recall returns: the ranked nodes and facts, and the whole result with its text."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field


class RecalledNode(BaseModel):
    id: str
    name: str
    type: str
    summary: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    score: float
    hop: int
    why: list[str]
    created_at: datetime


class RecalledFact(BaseModel):
    id: str
    subject: str
    relation: str
    object: str
    kind: str
    confidence: float
    speculation: bool
    pinned: bool
    type: str | None
    valid: bool
    mention_count: int
    created_at: datetime
    valid_at: datetime
    invalid_at: datetime | None
    superseded_by: str | None
    subject_id: str
    object_id: str
    score: float
    hop: int
    why: list[str]


class RecallResult(BaseModel):
    query_intent: str
    nodes: list[RecalledNode]
    facts: list[RecalledFact]
    text: str
    tokens: int = Field(description="count_tokens(text): what the result costs in a context window")
