"""Step 3a of the dream: near-duplicates, and the merged text of each group."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from trulymem.dream.findings import DreamSettings, Merge, Review, block_of, kind_of, text_of
from trulymem.dream.similarity import cjk, negated, similar_pairs, words
from trulymem.dream.stated import value_clash
from trulymem.dream.values import special_values
from trulymem.embed import Embedder
from trulymem.memories import MEMORY_RELATION, MemoryItem
from trulymem.text import relation_key


def duplicate_candidates(live: Sequence[MemoryItem], sets: list[set[str]], df: dict[str, int], held: set[str],
                         distinct: set[tuple[str, str]], cfg: DreamSettings, embedder: Embedder | None,
                         wide: bool = False, model: bool = False) -> tuple[dict[tuple[int, int], float], set[tuple[int, int]],
                                                      set[tuple[int, int]]]:
    """Pairs that look alike, by wording (prefix-filtered Jaccard) or by meaning (a
    semantic embedder's neighbours), with their similarity, not yet judged; which of
    them look alike by wording; and which were found only by taking more neighbours
    (``wide``: a model or a person will check those, ``model_floor``)."""
    blocks = [block_of(m) for m in live]
    sims: dict[tuple[int, int], float] = {}
    for i, j, s in similar_pairs(sets, cfg.dup_threshold, blocks, df, max_postings=cfg.max_postings):
        if live[i].id not in held and live[j].id not in held and pair_key(live[i], live[j]) not in distinct \
                and s >= cfg.dup_threshold:
            sims[(i, j)] = s
    lexical = set(sims)
    wide_only: set[tuple[int, int]] = set()
    if embedder is not None and embedder.semantic:  # a hashing embedder's cosine only restates word overlap
        for pair, (c, close) in _semantic_pairs(live, blocks, held, distinct, embedder, cfg, wide, model).items():
            if not close and pair not in sims:
                wide_only.add(pair)
            sims[pair] = max(c, sims.get(pair, 0.0))
    return sims, lexical, wide_only


_RARE = 3  # a value this many memories of a block share at most is a clue to one fact
_DISTINCT_KEY = ("d:", "t:", "q:", "port:")  # a day of the year, a time, an amount, a port: not "weekly"


def shared_values(live: Sequence[MemoryItem]) -> set[tuple[int, int]]:
    """Pairs across languages that state the same rare value (a date, a time, an amount): one
    fact said twice is often worded too differently for an encoder ("Amara was born on 5 March
    1984" / "用户的生日是1984年3月5日"). Candidates for the judge, and for a person at most."""
    by_key: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, m in enumerate(live):
        for key in special_values(m.memory)[0]:
            if key.startswith(_DISTINCT_KEY):
                by_key[(block_of(m), key)].append(i)
    out = set()
    for idx in by_key.values():
        if 2 <= len(idx) <= _RARE:
            out |= {(x, y) for x in idx for y in idx if x < y and cjk(live[x].memory) != cjk(live[y].memory)}
    return out


def merge_groups(live: Sequence[MemoryItem], sets: list[set[str]], sims: dict[tuple[int, int], float],
                 held: set[str]) -> list[Merge]:
    """One merge per complete-linkage group of duplicate pairs among memories not held."""
    usable = {p: s for p, s in sims.items() if live[p[0]].id not in held and live[p[1]].id not in held}
    merges = []
    for group in complete_linkage(usable):
        members = [live[k] for k in group]
        worst = min(usable[(x, y)] for x in group for y in group if x < y)
        merges.append(_merge(members, [sets[k] for k in group], worst))
    merges.sort(key=lambda g: (kind_of(g.items[0]), g.items[0].created_at, g.items[0].id))
    return merges


def reviews(live: Sequence[MemoryItem], sets: list[set[str]], pairs: list[tuple[tuple[int, int], float]],
            merges: list[Merge], cap: int, first: Collection[tuple[int, int]] = ()) -> tuple[list[Review], int]:
    """The pairs a person decides, most alike first; and how many more there are. A pair
    whose one side is in a proposed merge offers to merge the other into that group (its
    merged text says so)."""
    at = {m.id: k for k, m in enumerate(live)}
    group_of = {m.id: g for g in merges for m in g.items}
    usable = []
    for (i, j), s in pairs:
        a, b = live[i], live[j]
        ga, gb = group_of.get(a.id), group_of.get(b.id)
        if ga is not None and gb is not None:
            continue  # both already merged (into one group or two): nothing to decide here
        usable.append(((i, j), s, ga or gb))
    usable.sort(key=lambda u: (u[0] not in first, -u[1], live[u[0][0]].id, live[u[0][1]].id))
    out: list[Review] = []
    asked: set[frozenset[str]] = set()
    for (i, j), s, group in usable:
        members = list(group.items) if group else [live[i]]
        members += [live[k] for k in (i, j) if live[k] not in members]
        key = frozenset(m.id for m in members)
        if key in asked:
            continue  # another member of the same group with the same memory: one question
        asked.add(key)
        if len(out) == cap:
            continue
        a, b = sorted((live[i], live[j]), key=lambda m: (m.created_at, m.id))
        # two values that disagree are never joined into one text that says both: merging keeps the newer
        told = [m for m in members if m is not a] if _disagree(a.memory, b.memory) else members
        merged = replace(_merge(told, [sets[at[m.id]] for m in told], s), reviewed=True,
                         items=sorted(members, key=lambda m: (m.created_at, m.id)))
        why = "alike in meaning, but their values differ: merging keeps the newer" if told is not members \
            else "alike in meaning, not provably the same fact"
        out.append(Review(a=a, b=b, similarity=round(s, 3), why=why, merge=merged))
    out.sort(key=lambda r: (kind_of(r.a), r.a.created_at, r.a.id, r.b.id))
    return out, len(asked) - len(out)


def _disagree(a: str, b: str) -> bool:
    """Each names a value the other does not, or one denies what the other says."""
    return value_clash(a, b) is not None or negated(a) != negated(b)


def pair_key(a: MemoryItem, b: MemoryItem) -> tuple[str, str]:
    """Two memories' ids in one order: how pairs are named in the ``distinct`` set."""
    return (a.id, b.id) if a.id < b.id else (b.id, a.id)


def complete_linkage(sims: dict[tuple[int, int], float]) -> list[list[int]]:
    """Groups in which every two members are a duplicate pair, built from the most similar
    pairs down: A~B and B~C never join A and C unless A~C too (no chaining)."""
    cluster: dict[int, list[int]] = {}
    for (i, j), _ in sorted(sims.items(), key=lambda kv: (-kv[1], kv[0])):
        ci, cj = cluster.get(i, [i]), cluster.get(j, [j])
        if ci is cj:
            continue
        if all((min(x, y), max(x, y)) in sims for x in ci for y in cj):
            joined = sorted(ci + cj)
            for k in joined:
                cluster[k] = joined
    groups = {id(g): g for g in cluster.values()}
    return sorted(groups.values())


def _semantic_pairs(live: Sequence[MemoryItem], blocks: list[str], held: set[str], distinct: set[tuple[str, str]],
                    embedder: Embedder, cfg: DreamSettings, wide: bool,
                    model: bool) -> dict[tuple[int, int], tuple[float, bool]]:
    """Paraphrases with few words in common ("Alembic for DB migrations" / "migrations
    are written with Alembic"), as candidates for the judge: each other's nearest
    neighbour, clearly closer than their other neighbours (a margin over the mean of the
    next few, as in bitext mining) and not far in absolute terms; or one of the other's two
    nearest and close (``cosine_threshold``; ``model_floor`` when ``wide``). Each with
    whether it is close enough without ``wide``."""
    out: dict[tuple[int, int], tuple[float, bool]] = {}
    floor = cfg.model_floor if model else cfg.review_floor
    groups: dict[str, list[int]] = defaultdict(list)
    for i, block in enumerate(blocks):
        if live[i].id not in held:
            groups[block].append(i)
    for members in groups.values():
        if len(members) < 2 or len(members) > cfg.semantic_block_limit:
            continue
        vecs = embedder.embed_passages([text_of(live[k]) for k in members])
        norm = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
        top, knn = nearest(norm, min(_NEIGHBOURS, len(members) - 1))
        for x in range(len(members)):
            for rank, y in enumerate(int(t) for t in top[x]):
                c = float(norm[x] @ norm[y])
                mutual = rank == 0 and int(top[y][0]) == x and c >= cfg.semantic_floor and \
                    c / max(float(knn[x] + knn[y]) / 2, 1e-6) >= cfg.semantic_margin
                close = mutual or (rank <= 1 and c >= cfg.cosine_threshold)
                if close or (wide and rank <= 1 and c >= floor):
                    i, j = members[x], members[y]
                    key = (min(i, j), max(i, j))
                    if pair_key(live[i], live[j]) not in distinct:
                        out[key] = (round(c, 3), close or out.get(key, (0.0, False))[1])
    return out


_NEIGHBOURS = 4  # neighbours each memory is compared with (and the margin is measured over)
_REDUCE_ABOVE = 5000  # larger blocks look for neighbours in fewer dimensions, then measure them exactly
_REDUCED_DIM = 128


def nearest(norm: npt.NDArray[np.float32], k: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """Each row's ``k`` nearest other rows, nearest first, and the mean cosine to them.

    Exact below ``_REDUCE_ABOVE`` rows. Above, the search runs on the top principal
    directions (a quarter of the work for a 512-d encoder) and the neighbours it finds are
    then scored with the full vectors: the pass over all pairs is O(n²), this keeps 100k
    memories within a minute. Top-k by repeated argmax: far cheaper than argpartition here."""
    n = norm.shape[0]
    search = norm
    if n > _REDUCE_ABOVE and norm.shape[1] > _REDUCED_DIM:
        centred = norm - norm.mean(axis=0)
        _, vectors = np.linalg.eigh(centred.T @ centred)  # principal directions, ascending
        search = norm @ vectors[:, -_REDUCED_DIM:]
        search /= np.maximum(np.linalg.norm(search, axis=1, keepdims=True), 1e-12)
    top = np.zeros((n, k), dtype=np.int64)
    for start in range(0, n, 1024):  # row chunks keep memory flat
        sims = search[start:start + 1024] @ search.T
        rows = np.arange(sims.shape[0])
        sims[rows, rows + start] = -np.inf
        for r in range(k):
            best = sims.argmax(axis=1)
            top[start:start + sims.shape[0], r] = best
            sims[rows, best] = -np.inf
    exact = np.einsum("nd,nkd->nk", norm, norm[top])  # the found neighbours, measured in full
    order = np.argsort(-exact, axis=1)
    top, exact = np.take_along_axis(top, order, axis=1), np.take_along_axis(exact, order, axis=1)
    knn: npt.NDArray[np.float32] = exact.mean(axis=1).astype(np.float32)
    return top, knn


def _merge(members: list[MemoryItem], sets: list[set[str]], similarity: float) -> Merge:
    """Deterministic merge: the most informative member, plus every other member
    that says something it does not (so the result is more complete than any one)."""
    order = sorted(range(len(members)), key=lambda k: (-len(sets[k]), -members[k].updated_at.timestamp(),
                                                         members[k].id))
    base = members[order[0]]
    have = set(sets[order[0]])
    obj = base.object
    for k in order[1:]:
        extra = sets[k] - have - set(words(members[k].relation.replace("_", " ")))
        if extra:
            obj = f"{obj}; {members[k].object}"
            have |= sets[k]
    free = relation_key(base.relation) == MEMORY_RELATION
    text = obj if free else f"{base.subject} {base.relation} {obj}"
    members_sorted = sorted(members, key=lambda m: (m.created_at, m.id))
    return Merge(items=members_sorted, merged=text, subject=base.subject, relation=base.relation, object=obj,
                 type=kind_of(base), confidence=max(m.confidence for m in members), similarity=round(similarity, 3))


