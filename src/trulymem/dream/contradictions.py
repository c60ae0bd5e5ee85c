"""Step 3b of the dream: contradictions, and the pairs that only look alike."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from trulymem.dream.attributes import attribute_conflicts
from trulymem.dream.changes import moved_to, replaced_value, retires
from trulymem.dream.findings import Contradiction, block_of, kind_of
from trulymem.dream.gate import content, moved_time
from trulymem.dream.judge import other_dimensions
from trulymem.dream.polarity import conditional, denies, opposite, polarity_only
from trulymem.dream.roles import other_holder
from trulymem.dream.similarity import cjk, common_ends, jaccard, mentions, negated, similar_pairs, without_negation, words
from trulymem.dream.singles import differ, other_attribute, single_conflicts
from trulymem.dream.stated import numbers_spelled_apart, value_clash, values
from trulymem.dream.values import special_values
from trulymem.dream.vocab import (
    ANTONYMS,
    CJK,
    GENERIC,
    MULTI_VALUED,
    MULTI_VALUED_PHRASES,
    NEG_PREFIX,
    OWNER_WORDS,
    SINGLE_PREFIXES,
    SINGLE_VALUED,
    SYNONYMS,
)
from trulymem.dream.wording import different_predicates, other_owner, other_subjects
from trulymem.memories import MEMORY_RELATION, MemoryItem
from trulymem.text import name_key, relation_key


def _winner(a: MemoryItem, b: MemoryItem) -> tuple[Literal["A", "B"], str]:
    """The more recent memory wins, unless the other is clearly more confident."""
    if abs(a.confidence - b.confidence) > 0.2:
        return ("A", "higher confidence") if a.confidence > b.confidence else ("B", "higher confidence")
    return ("A", "more recent") if (a.updated_at, a.id) > (b.updated_at, b.id) else ("B", "more recent")


def contradiction(a: MemoryItem, b: MemoryItem) -> Contradiction:
    """The pair as the report shows it: A is the older, with a suggested winner."""
    if (a.created_at, a.id) > (b.created_at, b.id):
        a, b = b, a
    win, why = _winner(a, b)
    return Contradiction(a=a, b=b, topic="", winner=win, why=why)  # topic: for the ones shown (rank_conflicts)


def _single_valued(rel: str) -> bool:
    k = relation_key(rel)
    return k in SINGLE_VALUED or k.startswith(SINGLE_PREFIXES)


def _positive(rel: str) -> str:
    return NEG_PREFIX.sub("", relation_key(rel))


def find_contradictions(live: Sequence[MemoryItem], seqs: list[list[str]], sets: list[set[str]],
                        df: dict[str, int], max_postings: int | None = None, owner: str | None = None
                        ) -> tuple[list[Contradiction], set[tuple[str, str]]]:
    """Contradictions, and the pairs that only look alike: same wording, another value
    ("likes jazz" / "likes rock", 用户喜欢猫 / 用户喜欢狗) — never duplicates. ``owner``: the
    user's name, where the memories give it."""
    found: dict[tuple[str, str], Contradiction] = {}
    distinct: set[tuple[str, str]] = set()

    def add(a: MemoryItem, b: MemoryItem, topic: str) -> None:
        c = contradiction(a, b)
        found.setdefault((c.a.id, c.b.id), c)

    by_triple: dict[tuple[str, str], list[int]] = defaultdict(list)
    by_object: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, m in enumerate(live):
        if relation_key(m.relation) == MEMORY_RELATION:
            continue
        by_triple[(block_of(m), relation_key(m.relation))].append(i)
        by_object[(block_of(m), name_key(m.object))].append(i)
    # 1. a single-valued relation with two values: "lives_in Paris" vs "lives_in Berlin"
    for (_, rel), idx in by_triple.items():
        if not _single_valued(rel) or len(idx) < 2:
            continue
        newest = max(idx, key=lambda k: (live[k].updated_at, live[k].id))
        for k in idx:
            older, new = live[k].object, live[newest].object
            # "FieldLens" / "FieldLens Sp. z o.o.": one names the other in full, one value
            if k != newest and name_key(older) != name_key(new) and jaccard(sets[k], sets[newest]) < 0.99 \
                    and not mentions(older, new) and not mentions(new, older):
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
        block = block_of(m)
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
        blocks = [block_of(m) for m in live]
        for x, y, _ in similar_pairs(plain, 0.5, blocks, df, probes=negs, max_postings=max_postings,
                                     targets={i for i, n in enumerate(neg) if not n}):
            n, o = (x, y) if neg[x] else (y, x)
            if (x, y) not in seen and _content(list(plain[n])) and _negates(seqs[n], plain[o]) \
                    and not conditional(live[n].memory):
                add(live[x], live[y], _topic([t for t in seqs[o] if t in plain[n]]))
    # 5. a change statement retires its old value: "we moved from Heroku to Lambda" disagrees
    #    with an older "Deploy to Heroku", whatever the wording
    _changes(live, add)
    _moves(live, add)
    single_conflicts(live, add, owner)  # two homes of one person, two favourites of one kind
    attribute_conflicts(live, owner, add)  # "user phone_model Pixel 8" / "User's phone is an iPhone 13 mini"
    return sorted(found.values(), key=lambda c: (c.a.created_at, c.a.id, c.b.id)), distinct


_CJK_MARGIN = 0.05  # a Chinese character says less than a word: Chinese frames must be closer


def reworded_swaps(live: Sequence[MemoryItem], df: dict[str, int], max_postings: int | None = None,
                   threshold: float = 0.6) -> dict[tuple[int, int], float]:
    """Pairs that say one thing around two values in other words ("Every build runs in [Azure
    DevOps]" / "Builds now run in [Bitbucket Pipelines]", "The user's wedding anniversary is
    [May 20]" / "His wedding anniversary falls on [September 9]"): in one language, their
    content words apart from the values alike (Jaccard >= ``threshold``, two shared at
    least), and their values clash. Candidates for the judge, which decides."""
    frames: list[set[str]] = []
    for m in live:
        vals = values(m.memory)
        in_values = set(words(" ".join(vals)))
        frames.append({t for t in content(m.memory) if t not in in_values and not t.isdigit()} if vals else set())
    blocks = [f"{block_of(m)}\x00{cjk(m.memory)}" for m in live]
    return {(x, y): s for x, y, s in similar_pairs(frames, threshold, blocks, df, max_postings=max_postings)
            if len(frames[x] & frames[y]) >= 2 and (s >= threshold + _CJK_MARGIN or not cjk(live[x].memory))
            and value_clash(live[x].memory, live[y].memory) is not None}


def _changes(live: Sequence[MemoryItem], add: Any) -> None:
    by_word: dict[tuple[str, str], list[int]] = defaultdict(list)
    olds: list[tuple[int, str]] = []
    for i, m in enumerate(live):
        old = replaced_value(m.memory)
        if old is not None:
            olds.append((i, old))
        for w in set(words(m.memory)):
            by_word[(m.user_id, w)].append(i)
    for i, old in olds:
        key = words(old)
        if not key:
            continue
        # the rarest word another memory says too ("Confluence", not "server" in "shut down its Confluence server")
        shared = [w for w in key if len(by_word.get((live[i].user_id, w), ())) > 1] or key
        rarest = min(shared, key=lambda w: len(by_word.get((live[i].user_id, w), ())))
        hits = by_word.get((live[i].user_id, rarest), [])
        if len(hits) > 200:
            continue  # the old value is everywhere: a list of mentions, not one statement to retire
        for j in hits:
            other = live[j]
            if j != i and kind_of(other) == kind_of(live[i]) and other.created_at <= live[i].created_at \
                    and retires(live[i].memory, other.memory):
                add(other, live[i], "")


def _moves(live: Sequence[MemoryItem], add: Any) -> None:
    """A change naming only its new value ("The data warehouse moved to BigQuery") retires
    an older statement about the same thing — two content words in common (three Chinese
    characters), one language —
    that names another value and no change ("The data warehouse is Snowflake")."""
    moves = [(i, new) for i, m in enumerate(live) if (new := moved_to(m.memory)) is not None]
    if not moves:
        return
    by_term: dict[tuple[str, str], list[int]] = defaultdict(list)
    for j, m in enumerate(live):
        for t in content(m.memory) - OWNER_WORDS:
            by_term[(block_of(m), t)].append(j)
    for i, new in moves:
        m = live[i]
        near: dict[int, int] = defaultdict(int)
        for t in content(m.memory) - OWNER_WORDS - set(words(new)):
            hits = by_term.get((block_of(m), t), [])
            for j in hits if len(hits) <= 200 else ():
                near[j] += 1
        for j, shared in near.items():
            other = live[j]
            near_enough = shared >= (4 if cjk(m.memory) else 2) and cjk(other.memory) == cjk(m.memory)
            if j == i or not near_enough or other.created_at > m.created_at \
                    or replaced_value(other.memory) is not None or moved_to(other.memory) is not None \
                    or mentions(other.memory, new):
                continue
            named = {v for v in values(other.memory) if not v[:1].isdigit() and ":" not in v
                     and not re.fullmatch(r"n\d+|lang-\w+", v)}  # a count ("一个" is n1) names nothing
            # a move to a date or time ("航班改到了6月19日") retires only another date or time of it
            if moved_time(new, other.memory) or (not special_values(new)[0] and named
                                                 and not any(v in m.memory.casefold() for v in named)):
                add(other, m, "")


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
    return 1 if span and all(CJK.match(t) for t in span) and len(span) <= 3 else len(span)


def _swap(a: MemoryItem, b: MemoryItem, x: list[str], y: list[str]) -> tuple[str, str] | None:
    """How two wordings that differ in one place relate: ``("conflict", topic)``,
    ``("distinct", topic)`` (another value of a many-valued thing), or ``None``
    (a paraphrase or an elaboration: free to merge)."""
    if numbers_spelled_apart(a.memory, b.memory):
        return None  # "twenty-one books" / "21 books": one number, written two ways
    p, q = common_ends(x, y)
    left, right = x[p:len(x) - q], y[p:len(y) - q]
    shared = x[:p] + x[len(x) - q:]
    topic = _topic(shared)
    if not _content(shared):
        return None
    if negated(" ".join(left)) != negated(" ".join(right)):
        # "Never squash commits" / "Always squash commits"; not "Don't pass secrets as build args" /
        # "The app version is passed as a build arg" (the negation governs what only one says)
        return ("conflict", topic) if negated(a.memory) != negated(b.memory) and denies(a.memory, b.memory) \
            else None
    if not left or not right or _synonyms(left, right) or set(left) <= set(right) or set(right) <= set(left):
        return None
    if _DENIAL.search(a.memory) and _DENIAL.search(b.memory) and negated(" ".join(x[:p])):
        return "distinct", topic  # "does not accept [home-cooked food]" / "… [opened packages]": two denials both hold
    if _numbered(left, a.memory) and _numbered(right, b.memory):
        return "distinct", topic  # "Service svc-[36] deploys to Fly.io" / "svc-[218]", "Ticket #[66560]": whose, not what
    if (clash := value_clash(a.memory, b.memory)) is not None and other_dimensions(clash):
        return "distinct", topic  # "outputs 65 [W]" / "outputs 65 [V]": two measures
    if p == 0 and (OWNER_WORDS & set(left) or OWNER_WORDS & set(right)):
        return None  # "[The user] works at FieldLens" / "[Renata] …": the user may be the one named
    if other_attribute(a.memory, b.memory):
        return "distinct", topic  # "favourite [band] is [Myslovitz]" / "favourite [colour] is [teal]"
    if differ(a.memory, b.memory):
        return "conflict", topic  # "最喜欢的颜色是[蓝]色" / "[绿]色": one favourite, whatever verb frames it
    if polarity_only(left, right):
        return None  # "is [not allowed]" / "is [forbidden]", 禁止 / 不要: one prohibition, two wordings
    if opposite(a.memory, b.memory) and max(_span_words(left), _span_words(right)) <= len(_content(shared)):
        return "conflict", topic  # "doesn't mind early meetings" / "hates early meetings"
    if other_holder(a.memory, b.memory):
        return "conflict", topic  # "[Dev] owns the ledger service" / "[Hana] …": one owner at a time
    if other_subjects(a.memory, b.memory) or other_owner(a.memory, b.memory):
        return "distinct", topic  # "[iOS] release builds are uploaded by fastlane" / "[Android] …"
    if max(_span_words(left), _span_words(right)) > len(_content(shared)):
        return None  # more differs than is shared: two different statements
    if different_predicates(left, right):
        return "distinct", topic  # "Mei lives in Denver" / "Mei is a pilot": two facts about one person
    free = relation_key(a.relation) == MEMORY_RELATION
    if free and (not _multi(shared, a.memory, b.memory) or _measures(a.memory, b.memory)):
        return "conflict", topic
    if not free and relation_key(a.relation) == relation_key(b.relation) and _single_valued(a.relation):
        return "conflict", topic
    return "distinct", topic


# a plain "not" ("stops working at 18:00" is no denial, though "stop" reads as one elsewhere)
_DENIAL = re.compile(r"\b(?:not|never|no|don't|doesn't|didn't|cannot|can't|won't|isn't|aren't)\b|不|没|别|勿", re.IGNORECASE)
_NUMBERED = re.compile(r"(?:[A-Za-z][\w.]*[-_]|#)(\d+)\b")


def _numbered(span: Sequence[str], text: str) -> bool:
    """The differing words are the numbers of names ("svc-36", "#66560"), not values."""
    return bool(span) and set(span) <= set(_NUMBERED.findall(text))


def _measures(a: str, b: str) -> bool:
    """What differs is an amount or a share ("needs at least [70%] line coverage" / "[85%]",
    "needs [2 GB]" / "[4 GB]"): one value even after a verb that takes many objects (not a
    day or a time: "likes hiking on Saturdays" / "… Sundays" both hold)."""
    clash = value_clash(a, b)
    return clash is not None and all(v.startswith("q:") or v.endswith("%") for side in clash for v in side)


def _pairs(items: Sequence[Any]) -> Iterator[tuple[Any, Any]]:
    for x in range(len(items)):
        for y in range(x + 1, len(items)):
            yield items[x], items[y]


def _topic(shared: list[str]) -> str:
    return " ".join(shared) if not all(CJK.match(t) for t in shared) else "".join(shared)


def _synonyms(a: list[str], b: list[str]) -> bool:
    ja, jb = "".join(a), "".join(b)
    return any(ja in g and jb in g for g in SYNONYMS)


def _multi(shared: list[str], *texts: str) -> bool:
    """The wording around the swapped part takes many values ("likes …", "去过…")."""
    if any(t in MULTI_VALUED for t in shared):
        return True
    return any(word in text.casefold() for text in texts for word in MULTI_VALUED_PHRASES)


