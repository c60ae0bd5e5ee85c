"""What one recall reaches: each node's and fact's best score, first hop and reasons.
A fact's score is the score of the node it was reached from times its quality (confidence,
recency, speculation), and bookkeeping (a message's links, a task's edges unless the
chain is asked for) weighs ``structural_weight``: what was said ranks above it."""

from __future__ import annotations

from datetime import datetime

from trulymem.model import EdgeKind, Fact, NodeType
from trulymem.recall.config import RecallConfig
from trulymem.recall.rank import fact_quality, recency
from trulymem.store.base import Edge

_EPISODE, _TASK, _STATE = NodeType.EPISODE.value, NodeType.TASK.value, NodeType.STATE.value
_CHAIN_KINDS = {EdgeKind.NEXT_TASK, EdgeKind.HAS_STATE, EdgeKind.CONTAINS_INFO}


class Collector:
    """Scores, hops and reasons of the nodes and facts one recall reaches."""

    def __init__(self, cfg: RecallConfig, ref_time: datetime, chain: bool = False) -> None:
        self.cfg, self.ref_time = cfg, ref_time
        self.chain = chain  # the query asks for the task chain: its edges are what it wants
        self.node_score: dict[str, float] = {}
        self.node_hop: dict[str, int] = {}
        self.node_why: dict[str, list[str]] = {}
        self.facts: dict[str, Edge] = {}
        self.whole: dict[str, Fact] = {}  # facts a seed stage read whole (the rest are read once kept)
        self.fact_score: dict[str, float] = {}
        self.fact_hop: dict[str, int] = {}
        self.fact_why: dict[str, list[str]] = {}
        self.quality: dict[str, float] = {}  # fact_quality per fact id: the same whoever reaches it

    def node(self, node_id: str, score: float, hop: int, why: str) -> None:
        # called ~200 times per recall: one lookup per map, no min()/setdefault calls
        old = self.node_score.get(node_id)
        if old is None or score > old:
            self.node_score[node_id] = score
        if hop < self.node_hop.get(node_id, hop + 1):
            self.node_hop[node_id] = hop
        add_why(self.node_why, node_id, why)

    def fact(self, f: Edge | Fact, score: float, hop: int, why: str, *, direct: bool | None = None) -> None:
        """Record a fact the store returned (it already applied the query's ``When``).
        ``direct``: the query reached the fact itself (its words, a node it names), not
        through a hub the query only resembles; default: at hop 0."""
        cfg = self.cfg
        fid = f.id
        quality = self.quality.get(fid)
        if quality is None:  # a fact is often reached from both its ends
            quality = self.quality[fid] = fact_quality(
                f.confidence, False, f.speculation, recency(f.updated_at, self.ref_time, cfg.recency_half_life_days),
                pinned_boost=1.0, speculation_penalty=cfg.speculation_penalty,
            ) * (cfg.structural_weight if self._structural(f) else 1.0)
        if isinstance(f, Fact):
            self.whole[fid] = f
            f = Edge.of(f)
        # pinned counts where the query reached the fact itself, not through a hub ("user")
        s = score * quality * (cfg.pinned_boost if f.pinned and (hop == 0 if direct is None else direct) else 1.0)
        old = self.fact_score.get(fid)
        if old is None or s > old:
            self.facts[fid] = f
            self.fact_score[fid] = s
        if hop < self.fact_hop.get(fid, hop + 1):
            self.fact_hop[fid] = hop
        add_why(self.fact_why, fid, why)


    def _structural(self, f: Edge | Fact) -> bool:
        """Bookkeeping rather than something said: a message's links (said, in_session,
        next_message, mentions) and, unless the query asks for the chain, a task's edges."""
        if isinstance(f, Fact):
            return f.type == "episode" or (not self.chain and f.kind in _CHAIN_KINDS)
        ends = (f.subject_type, f.object_type)
        return _EPISODE in ends or (not self.chain and (_TASK in ends or _STATE in ends))


def add_why(whys: dict[str, list[str]], key: str, why: str) -> None:
    reasons = whys.get(key)
    if reasons is None:
        whys[key] = [why]
    elif len(reasons) < 3 and why not in reasons:
        reasons.append(why)
