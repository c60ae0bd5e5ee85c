"""Retrieval settings as one declarative object with named presets."""

from __future__ import annotations

from dataclasses import dataclass, field

from trulymem.recall.rerank import RerankWeights


@dataclass(frozen=True)
class RecallConfig:
    seed_nodes: int = 20          # full-text node hits taken as seeds
    seed_facts: int = 20          # full-text fact hits (relation words) taken as seeds
    lexical: bool = True          # full-text (BM25) candidates
    vectors: bool = True          # embedding candidates, when an embedder is configured
    vector_seeds: int = 20        # nearest nodes taken from the vector index
    fusion_k: float = 60.0        # reciprocal rank fusion constant
    vector_weight: float = 0.1    # the vector ranking's weight in the fusion (full text has 1): on LoCoMo the
                                  # offline embedders rank well below BM25 (bench/bench_locomo.py), so they
                                  # break ties and catch what words miss rather than lead
    seed_tasks: int = 5           # newest tasks when the intent asks for the task chain (beside every open one)
    info_facts: int = 6           # facts of each open task's info node returned with the chain
    fanout_seed: int = 12         # facts per seed node and direction (4 or 8 cost little less at 1M, and a named
                                  # node could no longer fill the limit with its own facts)
    fanout_hop: int = 2           # facts per reached node and direction (hubs cannot flood)
    frontier: int = 12            # nodes expanded per hop, best first. 4 and 16 before: at 1M facts 2 / 12
                                  # read ~120 neighbour rows per depth-2 recall instead of ~194, ~19% less
                                  # CPU, for LoCoMo tune R@10 81.4 -> 81.2 (docs/benchmarks.md, "fewer
                                  # neighbour rows"; 8 lost a conversation 1.1 points)
    max_facts: int = 200          # candidate facts before the final cut
    hop_decay: float = 0.6        # score multiplier per hop
    recency_half_life_days: float = 30.0
    pinned_boost: float = 1.5     # a pinned fact the query reaches itself (hop 0), not through a hub
    structural_weight: float = 0.2  # a message's links and (unless the chain is asked for) a task's edges:
                                  # bookkeeping ranks below what was said (they render as the messages)
    match_boost: float = 1.25     # a fact whose own words (relation, ends) the query names, above its hub's
                                  # other facts: a vector match on "user" reaches every user fact alike
    time_boost: float = 2.0       # memories from a time the query names ("last May", "上周")
    time_seeds: int = 20          # full-text hits within that time taken as seeds (0: none)
    time_weight: float = 0.5      # their ranking's weight in the fusion
    speculation_penalty: float = 0.8
    parse_questions: bool = True  # a natural-language question is split on whitespace, not on its commas
    profile_seeds: int = 20       # a named speaker's own statements taken from their profiles (0: none)
    profile_weight: float = 0.2   # their ranking's weight in the fusion: more gains multi-hop and loses
                                  # on questions that name the wrong person (LoCoMo tune: 0.3 lost 2 points there)
    profile_topic_weight: float = 1.0    # a statement on a topic the question is about, beside its words
    profile_instance_topics: bool = True  # the topics of the question's instance words count ("paint": art)
    profile_on_topic: bool = True  # only statements on a topic the question is about
    feedback_docs: int = 0        # best first-pass turns whose shared words are searched again (0: no feedback);
                                  # off: on LoCoMo tune 10 gained R@10 +1.0 (none in multi-hop or open-domain) for
                                  # +2 ms CPU at p50 and +4 at p95 against a 15 ms target, and heldout lost 0.3
    feedback_terms: int = 8       # words taken from them: those several of them say that the question does not
    feedback_weight: float = 0.3  # that search's weight in the fusion (0.2 gained nothing on tune; the new words
                                  # searched without the question's lost 4 points)
    related_weight: float = 0.3   # the question's words with related ones an answer may use instead
                                  # (text/related.py), searched again and fused at this weight (0: off); on:
                                  # it gains on tune and on heldout (leave-one-conversation-out, docs/benchmarks.md)
    own_weight: float = 0.3       # a set question (query.is_set_question) about a person whose own statement
                                  # is the best text hit: their statements among the text hits, fused again at
                                  # this weight (0: off); LoCoMo tune: multi-hop +2.0, no category lost; without
                                  # the two gates it gained more multi-hop and lost adversarial (wrong person)
    rerank: RerankWeights = field(default_factory=RerankWeights)
    rerank_depth: int = 60        # best candidates looked at again by the reranker


PRESETS: dict[str, RecallConfig] = {
    "fast": RecallConfig(seed_nodes=10, seed_facts=10, fanout_seed=8, fanout_hop=2, frontier=12, max_facts=80),
    "balanced": RecallConfig(),
    "deep": RecallConfig(seed_nodes=40, seed_facts=40, seed_tasks=10, fanout_seed=24, fanout_hop=8, frontier=60,
                         max_facts=500, hop_decay=0.7),
}
