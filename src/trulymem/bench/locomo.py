"""LoCoMo evidence-recall benchmark: ingest each conversation as its own user, ask
every question (the question text only), score the ranked conversation turns.

Evidence recall@k (LoCoMo paper, Table 3): per question, the fraction of its
evidence turns among the top k retrieved turns; questions without evidence are
left out. Also: recall within context budgets of returned text (tokens counted
by ``count_tokens``), session recall@k, latency, ingest throughput, and the
ablations — full-text only, vectors only, graph expansion off/on — in one run.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from trulymem.bench.locomo_data import CATEGORIES, Conversation, Question, in_split, load_locomo, session_of
from trulymem.embed import Embedder
from trulymem.errors import InvalidInput
from trulymem.graph import TrulyMem
from trulymem.limits import RECALL_LIMIT_MAX
from trulymem.model import NodeType
from trulymem.recall import PRESETS, RecallConfig, RecallQuery, recall
from trulymem.recall.render import episode_line
from trulymem.recall.rerank import RerankWeights
from trulymem.recall.results import RecalledNode
from trulymem.text.tokenize import count_tokens

KS = (1, 5, 10, 25, 50)
# nodes asked of each recall: enough for R@50 (speakers and other non-turn nodes share the
# list); ``--limit 20`` measures recall as an agent calls it (the memory_recall tool's default)
RECALL_LIMIT = 100
BUDGETS = (500, 1000, 2000)


@dataclass(frozen=True)
class Variant:
    name: str
    config: RecallConfig
    depth: int  # None-like 0 with ``seeds_only``: the retrievers' own hits, no graph at all
    seeds_only: bool = False
    topics: bool = True    # searched in a database ingested with topic enrichment (text/topics.py)
    profiles: bool = True  # ... and with speaker profiles (enrich/profiles.py)

    @property
    def ingest(self) -> tuple[bool, bool]:
        return self.topics, self.profiles


def variants(base: RecallConfig | None = None) -> list[Variant]:
    # Enough candidates from each retriever for recall@50 to mean something.
    base = replace(base or PRESETS["balanced"], seed_nodes=50, vector_seeds=50)
    weights = base.rerank
    return [
        Variant("hybrid+graph", base, 1),
        Variant("hybrid", base, 0, seeds_only=True),
        Variant("bm25", replace(base, vectors=False), 0, seeds_only=True),
        Variant("bm25+graph", replace(base, vectors=False), 1),
        Variant("vector", replace(base, lexical=False), 0, seeds_only=True),
        # each stage taken out of hybrid+graph on its own ("-X"), or put in ("+X")
        Variant("-rerank", replace(base, rerank=RerankWeights.none()), 1),
        Variant("-speaker boost", replace(base, rerank=replace(weights, speaker=0)), 1),
        Variant("-question penalty", replace(base, rerank=replace(weights, question=0)), 1),
        Variant("-answer transfer", replace(base, rerank=replace(weights, answer=0)), 1),
        Variant("-answer kind", replace(base, rerank=replace(weights, kind=0)), 1),
        Variant("+neighbours", replace(base, rerank=replace(weights, neighbours=0.02)), 1),
        Variant("-question parse", replace(base, parse_questions=False), 1),
        Variant("+feedback", replace(base, feedback_docs=10), 1),
        Variant("-related words", replace(base, related_weight=0), 1),
        Variant("-own statements", replace(base, own_weight=0), 1),
        Variant("-profiles", replace(base, profile_seeds=0), 1),
        Variant("-topics", base, 1, topics=False),
        Variant("-enrichment", replace(base, profile_seeds=0), 1, topics=False, profiles=False),
    ]


@dataclass
class _Scores:
    hits: dict[int, list[float]]
    budget: dict[int, list[float]]
    sessions: dict[int, list[float]]
    by_category: dict[int, list[float]]
    by_conversation: dict[str, list[float]]  # does a gain generalise? (bench/locomo_by_conversation.py)
    latency_ms: list[float]
    cpu_ms: list[float]  # the recall's own CPU time: on a shared machine wall time also counts waiting for a core

    @classmethod
    def empty(cls) -> _Scores:
        return cls({k: [] for k in KS}, {b: [] for b in BUDGETS}, {k: [] for k in KS}, {}, {}, [], [])


def _pct(values: list[float]) -> float:
    return round(100 * statistics.fmean(values), 1) if values else 0.0


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))], 2) if ordered else 0.0


def run_locomo(path: str | Path, *, embedder: Embedder | None, db_dir: str | Path | None = None,
               conversations: int | None = None, split: str = "all", dump: str | Path | None = None,
               progress: Callable[[str, int, int], None] | None = None,
               only: Sequence[str] | None = None, limit: int = RECALL_LIMIT) -> dict[str, Any]:
    if not 1 <= limit <= RECALL_LIMIT_MAX:  # the memory_recall tool's own bounds
        raise InvalidInput(f"limit must be between 1 and {RECALL_LIMIT_MAX}, got {limit}", field="limit")
    convs = in_split(load_locomo(path), split)[:conversations]
    variants_ = variants() if embedder is not None else [v for v in variants() if v.config.lexical and
                                                           not v.name.startswith(("hybrid", "vector"))]
    if only is not None:  # a few variants only (each one searches every question again)
        unknown = sorted(set(only) - {v.name for v in variants_})
        if unknown:
            raise InvalidInput(f"unknown LoCoMo variant(s) {unknown}: choose from {[v.name for v in variants_]}",
                               field="only")
        variants_ = [v for v in variants_ if v.name in only]
    scores = {v.name: _Scores.empty() for v in variants_}
    questions = sum(1 for c in convs for q in c.questions if q.evidence)
    total = sum(len(c.turns) for c in convs) + questions * len(variants_)
    done, messages = 0, 0
    ingests = {v.ingest for v in variants_}
    ingest_s = {i: 0.0 for i in ingests}
    ingest_cpu = {i: 0.0 for i in ingests}
    with tempfile.TemporaryDirectory(prefix="trulymem-locomo-") as tmp, ExitStack() as stack:
        folder = Path(db_dir or tmp)
        out = stack.enter_context(Path(dump).open("w", encoding="utf-8")) if dump else None
        for conv in convs:
            with ExitStack() as dbs:
                # one database per set of ingest options the variants ask for (the enrichment ablations)
                mems: dict[tuple[bool, bool], TrulyMem] = {}
                for topics, profiles in sorted(ingests, reverse=True):
                    suffix = "" if topics and profiles else f"-t{int(topics)}p{int(profiles)}"
                    mem = dbs.enter_context(TrulyMem(folder / f"{conv.id}{suffix}.db", user_id=conv.id,
                                                     embedder=embedder))
                    t0, c0 = time.perf_counter(), time.process_time()
                    _ingest(mem, conv, topics=topics, profiles=profiles)
                    ingest_s[topics, profiles] += time.perf_counter() - t0
                    ingest_cpu[topics, profiles] += time.process_time() - c0
                    mems[topics, profiles] = mem
                messages += len(conv.turns)
                done += len(conv.turns)
                if progress:
                    progress(f"{conv.id}: ingested", done, total)
                for v in variants_:
                    db = mems[v.ingest]
                    s = scores[v.name]
                    for q in (q for q in conv.questions if q.evidence):
                        t0, c0 = time.perf_counter(), time.process_time()
                        with db.store.transaction(write=False):
                            res = recall(db.store, db.scope, RecallQuery(q.text, depth=v.depth, limit=limit),
                                         db.clock(), v.config, embedder=embedder)
                        s.latency_ms.append((time.perf_counter() - t0) * 1000)
                        s.cpu_ms.append((time.process_time() - c0) * 1000)
                        episodes = [n for n in res.nodes if n.type == NodeType.EPISODE
                                    and not (v.seeds_only and n.hop > 0)]
                        _score(s, q.evidence, q.category, episodes, conv.id)
                        if out is not None:
                            out.write(json.dumps(_dump_row(conv.id, v.name, q, episodes), ensure_ascii=False) + "\n")
                        done += 1
                    if progress:
                        progress(f"{conv.id}: {v.name}", done, total)
    full = (True, True)
    return {
        "file": str(path),
        "split": split,
        "conversation_ids": [c.id for c in convs],
        "embedder": embedder.name if embedder else None,
        "limit": limit,
        "conversations": len(convs),
        "questions": questions,
        "ingest": {"messages": messages, **_rates(messages, ingest_s.get(full, 0.0), ingest_cpu.get(full, 0.0)),
                   **{f"topics={t} profiles={p}": _rates(messages, ingest_s[t, p], ingest_cpu[t, p])
                      for t, p in sorted(ingests, reverse=True) if (t, p) != full}},
        "variants": {name: _summary(s, limit) for name, s in scores.items()},
    }


def _dump_row(conv_id: str, variant: str, q: Question, episodes: list[RecalledNode]) -> dict[str, Any]:
    """One question of one variant, for studying misses: the top 10 with their scores and reasons."""
    top = episodes[:10]
    got = {str(n.metadata.get("turn_id")) for n in top}
    return {
        "conversation": conv_id, "variant": variant, "question": q.text, "category": q.category,
        "category_name": CATEGORIES.get(q.category, "?"), "evidence": q.evidence,
        "recall_at_10": round(len(set(q.evidence) & got) / len(q.evidence), 3),
        "missed": [d for d in q.evidence if d not in got],
        "top10": [{"turn": n.metadata.get("turn_id"), "speaker": n.metadata.get("speaker"), "score": n.score,
                   "hop": n.hop, "why": n.why, "hit": n.metadata.get("turn_id") in q.evidence,
                   "text": (n.summary or n.name)[:200]} for n in top],
    }


def _rates(messages: int, seconds: float, cpu_seconds: float) -> dict[str, Any]:
    return {"seconds": round(seconds, 2), "cpu_seconds": round(cpu_seconds, 2),
            "messages_per_s": round(messages / seconds, 1) if seconds else None,
            "messages_per_cpu_s": round(messages / cpu_seconds, 1) if cpu_seconds else None}


def _ingest(mem: TrulyMem, conv: Conversation, *, topics: bool = True, profiles: bool = True) -> None:
    batch = [{"speaker": t.speaker, "text": t.text, "id": t.dia_id, "session": t.session,
              **({"timestamp": t.time.isoformat()} if t.time else {})} for t in conv.turns]
    for i in range(0, len(batch), 2000):
        mem.run("memory_ingest", {"messages": batch[i : i + 2000], "topics": topics, "profiles": profiles})


def _score(s: _Scores, evidence: list[str], category: int, episodes: list[Any], conversation: str = "") -> None:
    ranked = [str(n.metadata.get("turn_id")) for n in episodes]
    wanted = set(evidence)
    for k in KS:
        got = set(ranked[:k])
        s.hits[k].append(len(wanted & got) / len(wanted))
        sessions = {session_of(d) for d in wanted}
        s.sessions[k].append(len(sessions & {session_of(d) for d in got if d.startswith("D")}) / len(sessions))
    at_10 = len(wanted & set(ranked[:10])) / len(wanted)
    s.by_category.setdefault(category, []).append(at_10)
    s.by_conversation.setdefault(conversation, []).append(at_10)
    used, within = 0, set()
    for budget in BUDGETS:
        for n, d in zip(episodes, ranked):
            if d in within:
                continue
            cost = count_tokens(episode_line(n))
            if used + cost > budget:
                break
            used += cost
            within.add(d)
        s.budget[budget].append(len(wanted & within) / len(wanted))


def _summary(s: _Scores, limit: int) -> dict[str, Any]:
    return {
        # a k past the recall's limit cannot be measured: the recall returned fewer than k nodes
        "recall_at": {k: _pct(v) if k <= limit else None for k, v in s.hits.items()},
        "recall_at_10_by_category": {f"{c} {CATEGORIES.get(c, '?')}": _pct(v) if limit >= 10 else None
                                     for c, v in sorted(s.by_category.items())},
        "recall_at_10_by_conversation": {c: _pct(v) if limit >= 10 else None for c, v in s.by_conversation.items()},
        "recall_within_tokens": {b: _pct(v) for b, v in s.budget.items()},
        "session_recall_at": {k: _pct(v) if k <= limit else None for k, v in s.sessions.items()},
        "latency_ms": {"p50": _percentile(s.latency_ms, 0.5), "p95": _percentile(s.latency_ms, 0.95),
                       "p99": _percentile(s.latency_ms, 0.99)},
        "cpu_ms": {"p50": _percentile(s.cpu_ms, 0.5), "p95": _percentile(s.cpu_ms, 0.95)},
    }
