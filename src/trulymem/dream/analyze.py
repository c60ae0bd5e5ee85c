"""Step 3 of the dream: find near-duplicates, contradictions and stale memories.

Reads only. Memories are grouped by ``type`` (``unknown`` when absent); pinned
memories are never candidates for anything.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from weakref import WeakKeyDictionary

from trulymem import budget
from trulymem.dream.contradictions import contradiction, find_contradictions, reworded_swaps
from trulymem.dream.crosslang import cross_language_pairs
from trulymem.dream.duplicates import duplicate_candidates, merge_groups, pair_key, reviews, shared_values
from trulymem.dream.findings import (
    Analysis,
    Contradiction,
    DreamSettings,
    Merge,
    PruneCandidate,
    Review,
    describe,
    kind_of,
    text_of,
)
from trulymem.dream.gate import CROSS_REVIEW, Gated, close_but_told_apart, gate, veto_conflict, worth_review
from trulymem.dream.judge import FrameSimilarity, Judged, judge
from trulymem.dream.model_judge import judge_with_llm
from trulymem.dream.owner import restated_by_name, user_name
from trulymem.dream.policy import Retention
from trulymem.dream.similarity import document_frequencies, words
from trulymem.dream.terms import terms
from trulymem.dream.vocab import IDENT, PATH, PROPER
from trulymem.embed import Embedder
from trulymem.embed.base import Matrix
from trulymem.llm.base import LLM
from trulymem.memories import MemoryItem

__all__ = ["Analysis", "Contradiction", "DreamSettings", "Merge", "PruneCandidate", "Review", "analyze", "has_unique_info",
           "kind_of"]


Progress = Callable[[str, int, int | None], None]  # (what, done, total or None)
_CHECK_EVERY = 256  # candidate pairs judged between checks of the request's time budget
# The model's verdicts by pair text, one cache per model client: another model (or a scripted
# one) is asked afresh, and a client's cache goes with it.
JUDGE_CACHES: WeakKeyDictionary[LLM, dict[tuple[str, str], str]] = WeakKeyDictionary()


def analyze(items: Sequence[MemoryItem], retention: Retention, now: datetime, *,
            embedder: Embedder | None = None, settings: DreamSettings | None = None,
            progress: Progress | None = None, llm: LLM | None = None,
            kept: Collection[frozenset[str]] = ()) -> Analysis:
    """Retention first (an expired memory is pruned, never merged or argued over), then
    contradictions among the rest, pinned memories included (they are never changed
    without a person's choice), then duplicates among what is neither pinned nor in a
    conflict, then low-confidence prunes."""
    cfg = settings or DreamSettings()
    told = progress or (lambda _what, _done, _total: None)

    def step(what: str, done: int, total: int | None) -> None:
        budget.check("the dream's analysis")  # nothing is written here: a request out of time stops cleanly
        told(what, done, total)
    out = Analysis(memories=len(items), seen={m.id: m.updated_at for m in items})
    step("Analysing: retention", 0, 4)
    expired = _expired(items, retention, now)
    rest = [m for m in items if m.id not in expired]
    seqs = [words(text_of(m)) for m in rest]
    sets = [terms(text_of(m)) for m in rest]
    df = document_frequencies(set(q) | t for q, t in zip(seqs, sets))
    step("Analysing: contradictions", 1, 4)
    owner = user_name(rest)
    found, distinct = find_contradictions(rest, seqs, sets, df, cfg.max_postings, owner)
    conflicts, same, unsure = _vet(found, rest)
    # every pair that looks alike is judged, pinned memories included (a pinned memory can be
    # contradicted, never merged): only duplicates merge; a clash of values or of negation is a
    # conflict, another value of a many-valued thing is nothing
    step("Analysing: duplicates", 2, 4)
    # without a model the wider net's pairs go to a person, never straight to a conflict
    sims, lexical, wide_only = duplicate_candidates(rest, sets, df, set(), distinct, cfg, embedder, wide=True,
                                                      model=llm is not None)
    for pair in same | unsure:
        sims[pair] = max(sims.get(pair, 0.0), 1.0 if pair in same else 0.9)
    # one rare value said in two languages: for a person (or a model) to look at, never a conflict alone
    for pair in shared_values(rest):
        if pair_key(rest[pair[0]], rest[pair[1]]) not in distinct:
            wide_only |= set() if pair in sims else {pair}
            sims[pair] = max(sims.get(pair, 0.0), CROSS_REVIEW)
    # one thing said around two values in other words: judged, and kept only as a conflict
    reworded = {p: s for p, s in reworded_swaps(rest, df, cfg.max_postings).items()
                if pair_key(rest[p[0]], rest[p[1]]) not in distinct}
    wide_only -= reworded.keys()  # the words around the values say it is one slot: as sure as a close pair
    swaps = {p: s for p, s in reworded.items() if p not in sims}
    sims.update(swaps)
    step("Analysing: judging pairs", 3, 4)
    frames = _frame_similarity(embedder)
    _add_cross_language(rest, owner, frames, conflicts)
    judged: dict[tuple[int, int], Judged] = {}
    for n, pair in enumerate(sims):
        if n % _CHECK_EVERY == _CHECK_EVERY - 1:
            budget.check("the dream's analysis")
        a, b, cosine = rest[pair[0]].memory, rest[pair[1]].memory, None if pair in lexical or pair in swaps else sims[pair]
        judged[pair] = "duplicate" if pair in same else "ambiguous" if pair in unsure else judge(a, b, frames, cosine)
        if judged[pair] == "distinct" and close_but_told_apart(a, b, cosine):
            judged[pair] = "ambiguous"
    judged = {pair: v for pair, v in judged.items() if pair not in swaps or v == "contradiction"}
    for pair in swaps.keys() - judged.keys():
        del sims[pair]
    verdicts: dict[tuple[int, int], Judged | Gated]
    if llm is not None:
        verdicts, out.warnings = _ask_model(rest, judged, lexical, llm)
    else:  # no model: merge only what is provably one fact, the rest alike goes to a person
        verdicts = {pair: gate(rest[pair[0]].memory, rest[pair[1]].memory, v, sure=pair not in wide_only)
                    for pair, v in judged.items()}
        flagged = {frozenset((c.a.id, c.b.id)) for c in conflicts}
        # a pair told apart only while the user's name and "the user" read as two people is read again
        not_apart = {pair for pair, v in verdicts.items() if v != "distinct"}
        for pair, (s, one) in restated_by_name(rest, df, distinct, cfg, embedder, not_apart, frames).items():
            if frozenset((rest[pair[0]].id, rest[pair[1]].id)) not in flagged:
                verdicts[pair], sims[pair] = "review", s  # "Tomás …" / "The user …": a person decides
                judged[pair] = "duplicate" if one else "ambiguous"
    verdicts, held = _hold_conflicts(rest, verdicts, conflicts)
    free = [k for k, m in enumerate(rest) if not m.pinned]
    at = {k: n for n, k in enumerate(free)}
    dups = {(at[i], at[j]): sims[(i, j)] for (i, j), v in verdicts.items()
            if v == "duplicate" and i in at and j in at}
    live, live_sets = [rest[k] for k in free], [sets[k] for k in free]
    out.conflicts, out.conflicts_more = rank_conflicts(conflicts, cfg.max_conflicts)
    out.merges = merge_groups(live, live_sets, dups, held)
    asked = [((at[i], at[j]), sims[(i, j)]) for (i, j), v in verdicts.items() if v == "review" and i in at and j in at
             and frozenset((rest[i].id, rest[j].id)) not in kept
             and (llm is not None or worth_review(rest[i].memory, rest[j].memory, sims[(i, j)]))]
    # what the judge read as one fact comes before what it could not tell, each most alike first
    alike = {(at[i], at[j]) for (i, j), v in judged.items() if v == "duplicate" and i in at and j in at}
    out.reviews, out.reviews_more = reviews(live, live_sets, asked, out.merges, cfg.max_reviews, first=alike)
    held |= {m.id for g in out.merges for m in g.items} | {m.id for r in out.reviews for m in (r.a, r.b)}
    out.prunes = list(expired.values()) + _low_confidence([rest[k] for k in free], now, cfg, exclude=held)
    step("Analysed", 4, 4)
    return out


def _add_cross_language(rest: Sequence[MemoryItem], owner: str | None, frames: FrameSimilarity | None,
                        conflicts: list[Contradiction]) -> None:
    """One attribute with two values in two languages ("Her locker number is 112" / "用户的更衣柜号是208"),
    vetted as the rules' conflicts are."""
    flagged = {frozenset((c.a.id, c.b.id)) for c in conflicts}
    for a, b in cross_language_pairs(rest, owner, frames):
        if frozenset((a.id, b.id)) not in flagged and veto_conflict(a.memory, b.memory) is None:
            conflicts.append(contradiction(a, b))


def _hold_conflicts(rest: Sequence[MemoryItem], verdicts: dict[tuple[int, int], Judged | Gated],
                    conflicts: list[Contradiction]) -> tuple[dict[tuple[int, int], Judged | Gated], set[str]]:
    """Add the judged conflicts to the rules' (each pair once) and hold their memories: a
    memory in a conflict waits for the person's choice, never merged meanwhile, but its
    restatements are shown to review (merging one retires it, and its conflict waits a run).
    Returns the verdicts so adjusted and the held memories' ids."""
    shown = {frozenset((c.a.id, c.b.id)) for c in conflicts}
    for (i, j), v in verdicts.items():
        pair = frozenset((rest[i].id, rest[j].id))
        if v == "contradiction" and pair not in shown:
            conflicts.append(contradiction(rest[i], rest[j]))
            shown.add(pair)
    held = {m.id for c in conflicts for m in (c.a, c.b)}
    return {(i, j): "distinct" if frozenset((rest[i].id, rest[j].id)) in shown else
            "review" if v == "duplicate" and (rest[i].id in held or rest[j].id in held) else v
            for (i, j), v in verdicts.items()}, held


def _vet(found: list[Contradiction], rest: Sequence[MemoryItem]
         ) -> tuple[list[Contradiction], set[tuple[int, int]], set[tuple[int, int]]]:
    """The rules' conflicts less those that are not one: two wordings of one fact (returned
    as pairs to merge), pairs whose values agree in other words (for a person to review),
    or two facts (about different people, another value of a many-valued thing, a rule
    next to a statement about something else)."""
    at = {m.id: k for k, m in enumerate(rest)}
    kept, same, unsure = [], set(), set()
    for c in found:
        verdict = veto_conflict(c.a.memory, c.b.memory)
        pair = (min(at[c.a.id], at[c.b.id]), max(at[c.a.id], at[c.b.id]))
        if verdict is None:
            kept.append(c)
        elif verdict == "duplicate":
            same.add(pair)
        elif verdict == "review":
            unsure.add(pair)
    return kept, same, unsure


def _ask_model(rest: Sequence[MemoryItem], verdicts: dict[tuple[int, int], Judged], lexical: set[tuple[int, int]],
               llm: LLM) -> tuple[dict[tuple[int, int], Judged | Gated], list[str]]:
    """The model judges what the rules cannot, and every pair alike only in meaning (a
    paraphrase and a reworded disagreement sound alike); where it gives no answer, such a
    pair is left alone."""
    ask = [pair for pair, v in verdicts.items() if v == "ambiguous" or (v != "distinct" and pair not in lexical)]
    if not ask:
        return dict(verdicts), []
    said, warnings = judge_with_llm([(rest[i].memory, rest[j].memory) for i, j in ask], llm,
                                       JUDGE_CACHES.setdefault(llm, {}))
    out: dict[tuple[int, int], Judged | Gated] = dict(verdicts)
    for pair, v in zip(ask, said):
        out[pair] = v if v is not None else "ambiguous"  # type: ignore[assignment]
    return out, warnings


def _frame_similarity(embedder: Embedder | None) -> FrameSimilarity | None:
    """The cosine of two masked frames, each frame encoded once per pass: templated memories
    ("Service svc-12 deploys to ECS") share a few frames over thousands of candidate pairs.
    Not cached in the store: masked texts are not memories."""
    if embedder is None or not embedder.semantic:
        return None
    seen: dict[str, Matrix] = {}

    def cosine(a: str, b: str) -> float:
        todo = [t for t in dict.fromkeys((a, b)) if t not in seen]
        if todo:
            for t, v in zip(todo, embedder.embed_batch(todo, "query")):
                seen[t] = v
        return float(seen[a] @ seen[b])
    return cosine


def rank_conflicts(found: list[Contradiction], cap: int) -> tuple[list[Contradiction], int]:
    """The ``cap`` conflicts to show first: the surest (both sides confident) and most
    recent; returns them in a stable order, and how many more there are."""
    ranked = sorted(found, key=lambda c: (-min(c.a.confidence, c.b.confidence),
                                          -max(c.a.updated_at, c.b.updated_at).timestamp(), c.a.id, c.b.id))
    shown = sorted(ranked[:cap], key=lambda c: (c.a.created_at, c.a.id, c.b.id))
    for c in shown:
        c.topic = c.topic or describe(c.a.memory, c.b.memory)
    return shown, max(0, len(found) - cap)


# --- prunes -----------------------------------------------------------------------
def has_unique_info(text: str) -> bool:
    """File paths, identifiers, URLs, issue numbers, proper nouns: what makes a memory
    specific to this project and not general knowledge."""
    return bool(PATH.search(text) or IDENT.search(text) or PROPER.search(text))


def _expired(items: Sequence[MemoryItem], retention: Retention, now: datetime) -> dict[str, PruneCandidate]:
    out = {}
    for m in items:
        limit = retention.limit(m.type)
        age = max(0, (now - m.created_at).days)
        if not m.pinned and limit is not None and age > limit:
            out[m.id] = PruneCandidate(m, kind_of(m), age, "retention", limit)
    return out


def _low_confidence(live: Sequence[MemoryItem], now: datetime, cfg: DreamSettings,
                    exclude: set[str]) -> list[PruneCandidate]:
    return [PruneCandidate(m, kind_of(m), max(0, (now - m.created_at).days), "low_confidence") for m in live
            if m.id not in exclude and m.confidence < cfg.low_confidence and not has_unique_info(m.memory)]
