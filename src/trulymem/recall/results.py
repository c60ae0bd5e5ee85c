"""What recall returns: the ranked nodes and facts, and the whole result with its text."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from trulymem.model import Fact, Node, NodeType, Scope, triple_text
from trulymem.store.base import NodeQuery, Store

_M = TypeVar("_M", bound=BaseModel)
_set = object.__setattr__


def built(cls: type[_M], fields: dict[str, Any]) -> _M:
    """``cls.model_construct(**fields)`` for a model without private attributes, extras or
    defaults to fill (``fields`` names every field): what it sets, without its per-field
    loop — recall builds ~200 of these per query at limit 100 (17 µs each that way, 3 µs this)."""
    m = cls.__new__(cls)
    _set(m, "__dict__", fields)
    _set(m, "__pydantic_fields_set__", set(fields))
    _set(m, "__pydantic_extra__", None)
    _set(m, "__pydantic_private__", None)
    return m


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
    text: str = Field(description="The fact as a line to show: a message is shown by its words and time, not its id")


class RecallResult(BaseModel):
    query_intent: str
    nodes: list[RecalledNode]
    facts: list[RecalledFact]
    text: str
    tokens: int = Field(description="count_tokens(text): what the result costs in a context window")


def recalled_nodes(ids: list[str], nodes: Mapping[str, Node], score: Mapping[str, float], hop: Mapping[str, int],
                   why: Mapping[str, list[str]]) -> list[RecalledNode]:
    """The returned nodes of ``ids`` that are in ``nodes``, built without validation: every field
    comes typed from the store (~110 per recall at limit 100: a dict display, not ``dict(...)``)."""
    out = []
    for nid in ids:
        node = nodes.get(nid)
        if node is not None:
            out.append(built(RecalledNode, {
                "id": nid, "name": node.name, "type": node.type, "summary": node.summary, "metadata": node.metadata,
                "score": round(score[nid], 4), "hop": hop[nid], "why": why[nid], "created_at": node.created_at}))
    return out


def message_text(node: Node) -> str:
    """A message (episode) as people read it: ``“I went to a support group” (2023-05-08 13:56)``."""
    said = node.summary or node.name
    speaker = node.metadata.get("speaker")
    if isinstance(speaker, str) and said.startswith(f"{speaker}: "):
        said = said[len(speaker) + 2 :]
    said = " ".join(said.split())
    said = said if len(said) <= 80 else said[:79].rstrip() + "…"
    at = str(node.metadata.get("time") or node.created_at.isoformat())[:16].replace("T", " ")
    return f"“{said}” ({at})"


def shown_messages(store: Store, scope: Scope, facts: Iterable[Fact]) -> dict[str, str]:
    """Node id -> ``message_text`` for each message (episode) that ``facts`` touch: what a
    fact's text shows in place of the message's id. One read of the ends' types, one of the
    messages among them."""
    ends = list({i for f in facts for i in (f.subject_id, f.object_id)})
    seen = scope.user_wide()
    episodes = [i for i, t in store.node_types(seen, ends).items() if t == NodeType.EPISODE] if ends else []
    if not episodes:
        return {}
    return {n.id: message_text(n) for n in store.nodes(NodeQuery(scope=seen, ids=episodes))}


def fact_text(f: Fact, shown: Mapping[str, str]) -> str:
    """``subject relation object`` with each message end shown by its words and time
    (``shown``, from ``shown_messages``)."""
    return triple_text(shown.get(f.subject_id) or f.subject or "", f.relation, shown.get(f.object_id) or f.object or "",
                       f.speculation)


def recalled_facts(facts: list[Fact], score: Mapping[str, float], hop: Mapping[str, int],
                   why: Mapping[str, list[str]], as_of: datetime | None,
                   nodes: Mapping[str, Node] | None = None) -> list[RecalledFact]:
    """The returned facts, built as ``recalled_nodes``; ``valid`` as of ``as_of`` (default: now).
    ``nodes``: the endpoints read, so that a message endpoint is shown by its words."""
    shown = {i: message_text(n) for i, n in (nodes or {}).items() if n.type == NodeType.EPISODE}
    return [built(RecalledFact, {
        "id": (fid := f.id), "subject": f.subject or "", "relation": f.relation, "object": f.object or "",
        "kind": f.kind.value, "confidence": f.confidence, "speculation": f.speculation, "pinned": f.pinned,
        "type": f.type, "valid": f.invalid_at is None if as_of is None else f.valid_as_of(as_of),
        "mention_count": f.mention_count, "created_at": f.created_at, "valid_at": f.valid_at,
        "invalid_at": f.invalid_at, "superseded_by": f.superseded_by, "subject_id": f.subject_id,
        "object_id": f.object_id, "score": round(score[fid], 4), "hop": hop[fid], "why": why[fid],
        "text": fact_text(f, shown),
    }) for f in facts]
