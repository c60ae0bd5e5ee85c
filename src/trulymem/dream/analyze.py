"""Step 3 of the dream: find near-duplicates, contradictions and stale memories.

Reads only. Memories are grouped by ``type`` (``unknown`` when absent); pinned
memories are never candidates for anything.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

import numpy as np

from trulymem.dream.policy import Retention
from trulymem.dream.similarity import (
    UnionFind,
    document_frequencies,
    jaccard,
    negated,
    similar_pairs,
    without_negation,
    words,
)
from trulymem.embed import Embedder
from trulymem.memories import MEMORY_RELATION, MemoryItem
from trulymem.text import name_key, relation_key

# Relations a subject has one value of at a time: two different objects disagree.
SINGLE_VALUED = frozenset("""
lives_in live_in located_in location based_in resides_in home hometown address city country timezone time_zone
works_at works_for work_at employer company job job_title title role position occupation profession
age birthday born_in born_on birth_date name full_name nickname email phone phone_number
married_to spouse partner status state
deploy_to deploys_to deployed_to deployed_on deploy_target hosted_on host hosting runs_on platform cloud
database uses_database db primary_database auth_db language primary_language main_language framework
package_manager editor os operating_system default_branch ci build_tool test_runner formatter linter
prefers preferred preference favorite favourite
住在 住址 居住地 家乡 城市 国家 时区 工作于 公司 职位 职业 年龄 生日 名字 姓名 邮箱 电话 配偶 状态
部署到 部署在 数据库 使用数据库 语言 框架 偏好 最喜欢
""".split())
_SINGLE_PREFIXES = ("current_", "favorite_", "favourite_", "preferred_", "primary_", "main_", "default_", "最喜欢")
# Verbs that take many objects: "likes rock" and "likes jazz" do not disagree.
MULTI_VALUED = frozenset(words(
    "like likes love loves enjoy enjoys visit visited read reads watch watched play plays know knows have has own "
    "owns speak speaks want wants need needs friend friends member learn learning study studies eat "
    "eats drink drinks collect collects tried try went attended met"))
MULTI_VALUED_ZH = ("喜欢", "喜爱", "爱吃", "爱看", "去过", "看过", "读过", "玩过", "认识", "学过", "吃过", "喝过", "朋友")
# Words that carry no topic of their own: left out when comparing what memories say.
GENERIC = frozenset(words("use uses used using make makes made get gets got go goes set put keep take give do does "
                          "done thing things always usually often sometimes really very just also still already "
                          "currently now"))
# Whom a note is about: sharing only these says nothing about the topic.
OWNER_WORDS = frozenset(words("user users team project we our i my me 用户 我 我们 团队 项目"))
# Predicates that say the same thing: swapping one for another is a paraphrase.
SYNONYMS = [frozenset(words(g)) | frozenset(g.split()) for g in (
    "like love enjoy adore fond prefer favor 喜 欢 爱 喜欢 喜爱",
    "call called name named titled 叫 名叫",
    "live lives resides based located 住 住在",
    "store stored keep kept save saved put",
    "manage managed handle handled maintain maintained own owned run",
    "ship shipped send sent forward forwarded",
    "write written build built develop developed",
    "dislike hate detest loathe 讨厌 厌恶",
    "use utilize employ 用 使用 采用",
    "big large huge 大", "small little tiny 小",
    "begin start 开始", "finish end complete 完成 结束",
)]
CANON = {t: min(g) for g in SYNONYMS for t in g}  # one term per synonym group when comparing
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
ANTONYMS = {("like", "dislike"), ("likes", "dislikes"), ("love", "hate"), ("loves", "hates"), ("want", "avoid"),
            ("wants", "avoids"), ("prefers", "avoids"), ("enjoys", "hates"), ("喜欢", "讨厌"), ("喜欢", "不喜欢"),
            ("爱", "恨"), ("想要", "不想要")}
_NEG_PREFIX = re.compile(r"^(?:not_|no_|never_|dont_|doesnt_|does_not_|do_not_|isnt_|is_not_|不|没|别)")

_PATH = re.compile(r"(?:[\w.-]+/)+[\w.-]+|\b[\w-]+\.(?:py|js|ts|tsx|jsx|go|rs|java|rb|php|c|h|cpp|md|json|ya?ml|toml|"
                   r"sql|sh|cfg|ini|txt|html|css)\b")
_IDENT = re.compile(r"https?://\S+|\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+[A-Z]\w*\b|\b\w+\.\w+\(|\b[A-Za-z]+\d\w*\b|#\d+|`[^`]+`")
_PROPER = re.compile(r"(?<=[a-z,;:] )[A-Z][a-zA-Z]+")


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


def _block(m: MemoryItem) -> str:
    """Memories are only ever compared within one user, type and subject."""
    return f"{m.user_id}\x00{kind_of(m)}\x00{name_key(m.subject)}"


def _text(m: MemoryItem) -> str:
    """What a memory says apart from whom it is about."""
    return m.object if relation_key(m.relation) == MEMORY_RELATION else f"{m.relation.replace('_', ' ')} {m.object}"


def analyze(items: Sequence[MemoryItem], retention: Retention, now: datetime, *,
            embedder: Embedder | None = None, settings: DreamSettings | None = None) -> Analysis:
    cfg = settings or DreamSettings()
    out = Analysis(memories=len(items), seen={m.id: m.updated_at for m in items})
    live = [m for m in items if not m.pinned]
    seqs = [words(_text(m)) for m in live]
    sets = [{CANON.get(t, t) for t in s if t not in GENERIC} for s in seqs]
    df = document_frequencies(set(q) | t for q, t in zip(seqs, sets))
    out.conflicts, distinct = _contradictions(live, seqs, sets, df)
    # A memory in a conflict waits for the person's choice: it is not merged or pruned meanwhile.
    held = {m.id for c in out.conflicts for m in (c.a, c.b)}
    out.merges = _duplicates(live, sets, df, held, distinct, cfg, embedder)
    held |= {m.id for g in out.merges for m in g.items}
    out.prunes = _prunes(live, retention, now, cfg, exclude=held)
    return out


# --- duplicates -------------------------------------------------------------------
def _duplicates(live: Sequence[MemoryItem], sets: list[set[str]], df: dict[str, int], held: set[str],
                distinct: set[tuple[str, str]], cfg: DreamSettings,
                embedder: Embedder | None) -> list[Merge]:
    blocks = [_block(m) for m in live]
    scored = [(i, j, s) for i, j, s in similar_pairs(sets, cfg.dup_threshold, blocks, df)
              if live[i].id not in held and live[j].id not in held
              and (min(live[i].id, live[j].id), max(live[i].id, live[j].id)) not in distinct]
    semantic: dict[tuple[int, int], float] = {}
    if embedder is not None and embedder.semantic:  # a hashing embedder's cosine only restates word overlap
        semantic = _semantic_pairs(live, blocks, held, distinct, embedder, cfg)
        scored += [(i, j, jaccard(sets[i], sets[j])) for i, j in sorted(semantic)]
    uf = UnionFind(len(live))
    best: dict[int, float] = defaultdict(float)
    for i, j, s in scored:
        if s >= cfg.dup_threshold or (i, j) in semantic:
            uf.union(i, j)
            sim = max(s, semantic.get((i, j), 0.0))
            best[i], best[j] = max(best[i], sim), max(best[j], sim)
    merges = []
    for group in uf.groups():
        members = [live[k] for k in group]
        merges.append(_merge(members, [sets[k] for k in group], min(best[k] for k in group)))
    merges.sort(key=lambda g: (kind_of(g.items[0]), g.items[0].created_at, g.items[0].id))
    return merges


def _semantic_pairs(live: Sequence[MemoryItem], blocks: list[str], held: set[str], distinct: set[tuple[str, str]],
                    embedder: Embedder, cfg: DreamSettings) -> dict[tuple[int, int], float]:
    """Paraphrases with few words in common ("Alembic for DB migrations" / "migrations
    are written with Alembic"): nearest neighbours above ``cosine_threshold``, or each
    other's nearest neighbour, clearly closer than their other neighbours (a margin over
    the mean of the next few, as in bitext mining) and close in absolute terms too."""
    out: dict[tuple[int, int], float] = {}
    groups: dict[str, list[int]] = defaultdict(list)
    for i, block in enumerate(blocks):
        if live[i].id not in held:
            groups[block].append(i)
    for members in groups.values():
        if len(members) < 2 or len(members) > cfg.semantic_block_limit:
            continue
        vecs = embedder.embed_passages([_text(live[k]) for k in members])
        norm = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
        nn: list[int] = []
        knn: list[float] = []
        for start in range(0, len(members), 1024):  # row chunks keep memory flat
            sims = norm[start:start + 1024] @ norm.T
            for r in range(sims.shape[0]):
                sims[r, start + r] = -1.0
            nn += [int(x) for x in sims.argmax(axis=1)]
            k = min(4, len(members) - 1)
            knn += [float(x) for x in np.sort(np.partition(sims, -k, axis=1)[:, -k:], axis=1).mean(axis=1)]
        for x, y in enumerate(nn):
            c = float(norm[x] @ norm[y])
            mutual = nn[y] == x and c >= cfg.semantic_floor and \
                c / max((knn[x] + knn[y]) / 2, 1e-6) >= cfg.semantic_margin
            if not (mutual or c >= cfg.cosine_threshold):
                continue
            i, j = members[x], members[y]
            pair = (live[i].id, live[j].id) if live[i].id < live[j].id else (live[j].id, live[i].id)
            # a negated and a plain statement that sound alike are a disagreement, never one memory
            if pair not in distinct and negated(live[i].memory) == negated(live[j].memory):
                out[(min(i, j), max(i, j))] = round(c, 3)
    return out


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


# --- contradictions -----------------------------------------------------------------
def _winner(a: MemoryItem, b: MemoryItem) -> tuple[Literal["A", "B"], str]:
    """The more recent memory wins, unless the other is clearly more confident."""
    if abs(a.confidence - b.confidence) > 0.2:
        return ("A", "higher confidence") if a.confidence > b.confidence else ("B", "higher confidence")
    return ("A", "more recent") if (a.updated_at, a.id) > (b.updated_at, b.id) else ("B", "more recent")


def _single_valued(rel: str) -> bool:
    k = relation_key(rel)
    return k in SINGLE_VALUED or k.startswith(_SINGLE_PREFIXES)


def _positive(rel: str) -> str:
    return _NEG_PREFIX.sub("", relation_key(rel))


def _contradictions(live: Sequence[MemoryItem], seqs: list[list[str]], sets: list[set[str]],
                    df: dict[str, int]) -> tuple[list[Contradiction], set[tuple[str, str]]]:
    """Contradictions, and the pairs that only look alike: same wording, another value
    ("likes jazz" / "likes rock", 用户喜欢猫 / 用户喜欢狗) — never duplicates."""
    found: dict[tuple[str, str], Contradiction] = {}
    distinct: set[tuple[str, str]] = set()

    def add(a: MemoryItem, b: MemoryItem, topic: str) -> None:
        if (a.created_at, a.id) > (b.created_at, b.id):
            a, b = b, a  # A is the older
        if (a.id, b.id) not in found:
            win, why = _winner(a, b)
            found[(a.id, b.id)] = Contradiction(a=a, b=b, topic=topic, winner=win, why=why)

    by_triple: dict[tuple[str, str], list[int]] = defaultdict(list)
    by_object: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, m in enumerate(live):
        if relation_key(m.relation) == MEMORY_RELATION:
            continue
        by_triple[(_block(m), relation_key(m.relation))].append(i)
        by_object[(_block(m), name_key(m.object))].append(i)
    # 1. a single-valued relation with two values: "lives_in Paris" vs "lives_in Berlin"
    for (_, rel), idx in by_triple.items():
        if not _single_valued(rel) or len(idx) < 2:
            continue
        newest = max(idx, key=lambda k: (live[k].updated_at, live[k].id))
        for k in idx:
            if k != newest and name_key(live[k].object) != name_key(live[newest].object) \
                    and jaccard(sets[k], sets[newest]) < 0.99:
                add(live[k], live[newest], f"{live[k].subject} {live[k].relation}")
    # 2. opposite relations about one object: "likes coffee" vs "dislikes coffee"
    for idx in by_object.values():
        for x, y in _pairs(idx):
            a, b = live[x], live[y]
            ra, rb = relation_key(a.relation), relation_key(b.relation)
            opposite = (ra, rb) in ANTONYMS or (rb, ra) in ANTONYMS or (
                ra != rb and _positive(ra) == _positive(rb) and (ra == _positive(ra)) != (rb == _positive(rb)))
            if opposite:
                add(a, b, f"{a.subject} {_positive(ra)} {a.object}")
    # 3. the same wording with one part swapped or negated ("Deploy to ECS" / "… Vercel",
    #    "Always use tabs" / "Never use tabs", 用户住在北京 / 用户住在深圳): blocked on the
    #    wording with up to three words masked, so never all pairs.
    spans: dict[int, list[int]] = defaultdict(list)  # hashed masked wording -> memories
    for i, m in enumerate(live):
        seq = tuple(seqs[i])
        if not 1 <= len(seq) <= 16:
            continue
        block = _block(m)
        for p in range(len(seq) + 1):
            for k in range(0, min(3, len(seq) - p) + 1):
                if k < len(seq):  # something must stay unmasked
                    spans[hash((block, seq[:p], seq[p + k:]))].append(i)
    seen: set[tuple[int, int]] = set()
    for hits in spans.values():
        if len(hits) < 2 or len(hits) > 50:
            continue  # a slot with dozens of values is a list, not a disagreement
        for x, y in _pairs(sorted(set(hits))):
            if (x, y) in seen or seqs[x] == seqs[y]:
                continue
            seen.add((x, y))
            verdict = _swap(live[x], live[y], seqs[x], seqs[y])
            if verdict is not None:
                kind, topic = verdict
                a, b = live[x], live[y]
                if kind == "conflict":
                    add(a, b, topic)
                if kind in ("conflict", "distinct"):
                    distinct.add((a.id, b.id) if a.id < b.id else (b.id, a.id))
    # 4. one negates the other in other words ("drinks coffee every morning" / "never drinks coffee"):
    #    negated memories probe the others
    neg = [negated(m.memory) for m in live]
    plain = [set(without_negation(q)) for q in seqs]
    negs = [i for i, n in enumerate(neg) if n]
    if negs:
        blocks = [_block(m) for m in live]
        for x, y, _ in similar_pairs(plain, 0.5, blocks, df, probes=negs,
                                     targets={i for i, n in enumerate(neg) if not n}):
            n, o = (x, y) if neg[x] else (y, x)
            if (x, y) not in seen and _content(list(plain[n])) and _negates(seqs[n], plain[o]):
                add(live[x], live[y], _topic([t for t in seqs[o] if t in plain[n]]))
    return sorted(found.values(), key=lambda c: (c.a.created_at, c.a.id, c.b.id)), distinct


def _negates(negated_seq: Sequence[str], other: set[str]) -> bool:
    """The words a negation governs (up to three after it) are what the other memory says:
    "never drinks coffee" negates "drinks coffee every morning"; "Poetry, not pip" does not
    negate "uses Poetry"."""
    for k, t in enumerate(negated_seq):
        if without_negation([t]):
            continue
        scope = _content(without_negation(negated_seq[k + 1:k + 4]))
        if scope and all(w in other for w in scope):
            return True
    return False


def _content(tokens: Sequence[str]) -> list[str]:
    return [t for t in tokens if t not in GENERIC and t not in OWNER_WORDS]


def _span_words(span: Sequence[str]) -> int:
    """A run of up to three Chinese characters is one word."""
    return 1 if span and all(_CJK.match(t) for t in span) and len(span) <= 3 else len(span)


def _swap(a: MemoryItem, b: MemoryItem, x: list[str], y: list[str]) -> tuple[str, str] | None:
    """How two wordings that differ in one place relate: ``("conflict", topic)``,
    ``("distinct", topic)`` (another value of a many-valued thing), or ``None``
    (a paraphrase or an elaboration: free to merge)."""
    p = 0
    while p < min(len(x), len(y)) and x[p] == y[p]:
        p += 1
    q = 0
    while q < min(len(x), len(y)) - p and x[-1 - q] == y[-1 - q]:
        q += 1
    left, right = x[p:len(x) - q], y[p:len(y) - q]
    shared = x[:p] + x[len(x) - q:]
    topic = _topic(shared)
    if not _content(shared):
        return None
    if negated(" ".join(left)) != negated(" ".join(right)):
        return ("conflict", topic) if negated(a.memory) != negated(b.memory) else None
    if not left or not right or _synonyms(left, right) or set(left) <= set(right) or set(right) <= set(left):
        return None
    if max(_span_words(left), _span_words(right)) > len(_content(shared)):
        return None  # more differs than is shared: two different statements
    free = relation_key(a.relation) == MEMORY_RELATION
    if free and not _multi(shared, a.memory, b.memory):
        return "conflict", topic
    if not free and relation_key(a.relation) == relation_key(b.relation) and _single_valued(a.relation):
        return "conflict", topic
    return "distinct", topic


def _pairs(items: Sequence[Any]) -> Iterator[tuple[Any, Any]]:
    for x in range(len(items)):
        for y in range(x + 1, len(items)):
            yield items[x], items[y]


def _topic(shared: list[str]) -> str:
    return " ".join(shared) if not all(_CJK.match(t) for t in shared) else "".join(shared)


def _synonyms(a: list[str], b: list[str]) -> bool:
    ja, jb = "".join(a), "".join(b)
    return any(ja in g and jb in g for g in SYNONYMS)


def _multi(shared: list[str], *texts: str) -> bool:
    """The wording around the swapped part takes many values ("likes …", "去过…")."""
    if any(t in MULTI_VALUED for t in shared):
        return True
    return any(word in text for text in texts for word in MULTI_VALUED_ZH)


# --- prunes -----------------------------------------------------------------------
def has_unique_info(text: str) -> bool:
    """File paths, identifiers, URLs, issue numbers, proper nouns: what makes a memory
    specific to this project and not general knowledge."""
    return bool(_PATH.search(text) or _IDENT.search(text) or _PROPER.search(text))


def _prunes(live: Sequence[MemoryItem], retention: Retention, now: datetime, cfg: DreamSettings,
            exclude: set[str]) -> list[PruneCandidate]:
    out = []
    for m in live:
        if m.id in exclude:
            continue
        age = max(0, (now - m.created_at).days)
        limit = retention.limit(m.type)
        if limit is not None and age > limit:
            out.append(PruneCandidate(m, kind_of(m), age, "retention"))
        elif m.confidence < cfg.low_confidence and not has_unique_info(m.memory):
            out.append(PruneCandidate(m, kind_of(m), age, "low_confidence"))
    return out
