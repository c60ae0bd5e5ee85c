"""Graph recall: seeds from names, full text and type intents, expanded over
valid facts hop by hop with capped fan-out, then ranked and cut.

Hubs (``user``, ``AI``) cannot flood the result: each reached node contributes
at most ``fanout_hop`` facts per direction, state nodes reached on the way are
not expanded, and only the best ``frontier`` nodes of a hop go on to the next.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from trulymem import budget
from trulymem.embed.base import Embedder
from trulymem.enrich.profiles import Profile, is_enrichment_node, parsed_profile, profile_keys, rank_statements
from trulymem.model import EdgeKind, Fact, Node, NodeType, Scope, as_utc
from trulymem.recall.cache import NodeCache, whole_facts
from trulymem.recall.chain import open_chain
from trulymem.recall.collect import Collector, add_why
from trulymem.recall.config import RecallConfig
from trulymem.recall.query import FRAME_WORDS, ParsedQuery, is_set_question, parse_query, topic_terms
from trulymem.recall.rank import rank_order, rrf
from trulymem.recall.render import render_text
from trulymem.recall.rerank import Candidate, rerank
from trulymem.recall.results import RecalledFact, RecalledNode, RecallResult, recalled_facts, recalled_nodes
from trulymem.recall.timeref import time_range_in
from trulymem.store.base import FactQuery, NodeQuery, Store, When
from trulymem.text import name_key, phrases, query_terms, relation_key
from trulymem.text.answers import expected_answer
from trulymem.text.related import related_words
from trulymem.text.statements import relations_named
from trulymem.text.stem import stems
from trulymem.text.stopwords import STOPWORDS, content_terms
from trulymem.text.tokenize import count_tokens, tokens
from trulymem.text.topics import asked_topics, topics_of

_TURN_NO = re.compile(r"(\d+)$")
TASK_INTENTS = {"tasknode", "task", "tasks", "task_chain", "taskchain", "working_memory", "workingmemory",
                "工作记忆", "任务", "任务链"}
PERSONA_INTENTS = {"personanode", "persona", "人设", "人格"}
TYPE_INTENTS = {"statenode": NodeType.STATE, "infonode": NodeType.INFO, "entitynode": NodeType.ENTITY}


@dataclass
class RecallQuery:
    query_intent: str = ""
    depth: int = 2
    seed_entities: list[str] = field(default_factory=list)
    limit: int = 20
    time_from: datetime | None = None
    time_to: datetime | None = None
    as_of: datetime | None = None
    include_invalid: bool = False
    max_tokens: int | None = None


def recall(store: Store, scope: Scope, q: RecallQuery, now: datetime, cfg: RecallConfig | None = None,
           embedder: Embedder | None = None) -> RecallResult:
    cfg = cfg or RecallConfig()
    when = When("all" if q.include_invalid else "current", q.as_of, q.time_from, q.time_to)
    user_scope = scope.user_wide()

    parsed = parse_query(q.query_intent) if cfg.parse_questions else None
    terms = parsed.terms if parsed is not None else query_terms(q.query_intent)
    text_terms: list[str] = []
    want_tasks = want_persona = not terms and not q.seed_entities
    type_seeds: list[NodeType] = []
    for t in terms:
        k = relation_key(t)
        if k in TASK_INTENTS:
            want_tasks = True
        elif k in PERSONA_INTENTS:
            want_persona = True
        elif k in TYPE_INTENTS:
            type_seeds.append(TYPE_INTENTS[k])
        else:
            text_terms.append(t)
    c = Collector(cfg, q.as_of or now, chain=want_tasks or NodeType.STATE in type_seeds)

    # --- seeds ---------------------------------------------------------------
    names = text_terms + list(q.seed_entities)
    if len(text_terms) > 1 and "," not in q.query_intent:
        names.append(q.query_intent)  # "New York" is one name as well as two words
    named = store.nodes(NodeQuery(scope=scope, keys=list({name_key(x) for x in names}),
                                  created_before=q.as_of)) if names else []
    known = NodeCache(store, user_scope, q.as_of)
    known.add(named)  # read whole already: persons are endpoints of the facts returned
    speakers = _speakers(store, scope, named, parsed)
    if speakers:
        # A speaker's name is in every turn they said: as a search word it ranks the turns that
        # address them ("Wow, Caroline!"), not theirs. The reranker boosts their turns instead.
        text_terms = [t for t in text_terms if name_key(t) not in speakers] or text_terms
    if parsed is not None and parsed.question:
        text_terms = topic_terms(text_terms)
    # a question names a relation in other words (我住在哪里 → lives_in, "my job" → works_at)
    match = phrases(content_terms(text_terms) + relations_named(" ".join(text_terms)))
    rankings: dict[str, list[str]] = {}
    if match and cfg.lexical:
        rankings["text"] = [nid for nid, _ in store.search_nodes(scope, match, cfg.seed_nodes)]
    if match and cfg.lexical and cfg.related_weight and parsed is not None and parsed.question and (
            related := related_words(text_terms)):
        # the question's words and the words an answer may use instead ("destress": "therapy")
        rankings["related"] = _search_also(store, scope, text_terms, related, cfg)
    hint = None if (q.time_from or q.time_to) else time_range_in(q.query_intent, q.as_of or now)
    if match and cfg.lexical and hint is not None and cfg.time_seeds:
        # What was said at the time the query names, ranked by the same words: a date
        # often carries more of the question than its words do ("on 7 July, 2023").
        rankings["time"] = [nid for nid, _ in store.search_nodes(scope, match, cfg.time_seeds,
                                                                 during=(hint[0], hint[1]))]
    if text_terms and cfg.vectors and embedder is not None:
        query_vec = embedder.embed_query(" ".join(text_terms))
        rankings["vector"] = [nid for nid, _ in store.vector_search(scope, query_vec, cfg.vector_seeds,
                                                                    model=embedder.name)]
    is_question = parsed is not None and parsed.question
    if speakers and is_question and (cfg.profile_seeds or cfg.own_weight):
        profiles = _speaker_profiles(store, scope, speakers, q.as_of, known)
        if cfg.profile_seeds:
            # The named people's own statements on the question's words and topics (enrich/profiles.py).
            rankings["profile"] = _profile_ranking(profiles, text_terms, q.query_intent, cfg)
        if cfg.own_weight and rankings.get("text") and is_set_question(q.query_intent):
            # A set asked of a person who says the best-matching thing: their other statements among
            # the text hits, fused again (a question naming the wrong person rarely passes that gate).
            own = frozenset().union(*(p.turns for p in profiles))
            if rankings["text"][0] in own:
                rankings["own"] = [i for i in rankings["text"] if i in own]
    if when.validity != "all":
        # A node whose every fact was invalidated (a forgotten message, a retracted value) is
        # not recalled; include_invalid (history) still finds it.
        live = store.live_nodes(list({*(n.id for n in named), *(i for r in rankings.values() for i in r)}), when)
        named = [n for n in named if n.id in live]
        rankings = {k: [i for i in ranked if i in live] for k, ranked in rankings.items()}
    if cfg.feedback_docs and cfg.feedback_weight and match and cfg.lexical and is_question and rankings:
        # after the live filter: a forgotten turn's words must not steer the search
        rankings["feedback"] = _feedback_ranking(store, scope, rankings, text_terms, speakers, known, cfg, when)
    for n in named:
        c.node(n.id, 1.0, 0, f"name:{n.name}")
    weights = {"vector": cfg.vector_weight, "time": cfg.time_weight, "profile": cfg.profile_weight,
               "feedback": cfg.feedback_weight, "related": cfg.related_weight, "own": cfg.own_weight}
    fused = rrf(list(rankings.values()), cfg.fusion_k, [weights.get(name, 1.0) for name in rankings])
    top = max(fused.values(), default=0.0)
    members = {name: set(ranked) for name, ranked in rankings.items()}
    for nid, s in fused.items():
        how = "+".join(name for name, ranked in members.items() if nid in ranked)
        c.node(nid, 0.85 * s / top, 0, how)
    hits_f: list[Fact] = []
    if match and cfg.lexical:
        hits_f = store.search_facts(scope, match, cfg.seed_facts, when=when)
        for f, s in zip(hits_f, rank_order(len(hits_f), 0.7, 0.97)):
            c.fact(f, s, 0, f"relation:{f.relation}")
            c.node(f.subject_id, s * cfg.hop_decay, 1, f"relation:{f.relation}")
            c.node(f.object_id, s * cfg.hop_decay, 1, f"relation:{f.relation}")
    required: list[str] = []  # facts returned whatever the limit: the persona, the open tasks' chain
    if want_persona:
        persona = store.facts(FactQuery(scope=scope, kinds=[EdgeKind.HAS_PERSONA], validity=when.validity,
                                        as_of=q.as_of, valid_from=q.time_from, valid_to=q.time_to, limit=50))
        for f in persona:
            c.fact(f, 0.9, 0, "persona")
            c.node(f.subject_id, 0.9 * cfg.hop_decay, 1, "persona")
        required += [f.id for f in persona]  # step 1 of the protocol: the persona is always shown whole
    if want_tasks:
        tasks = store.nodes(NodeQuery(scope=scope, types=[NodeType.TASK], limit=cfg.seed_tasks, created_before=q.as_of))
        for n, s in zip(tasks, rank_order(len(tasks), 0.9, 0.85)):
            c.node(n.id, s, 0, "task chain")
        chain = open_chain(store, scope, When(when.validity, q.as_of), cfg.info_facts)
        known.add(chain.tasks)
        for n in chain.tasks:
            c.node(n.id, 1.0, 0, "open task")
        for f in chain.facts:
            c.fact(f, 1.0, 0, "open task")
        required += [f.id for f in chain.facts]
    for t in type_seeds:
        typed = store.nodes(NodeQuery(scope=scope, types=[t], limit=cfg.seed_nodes, created_before=q.as_of))
        for n, s in zip(typed, rank_order(len(typed), 0.6, 0.95)):
            c.node(n.id, s, 0, f"type:{t.value}")

    # --- expansion -----------------------------------------------------------
    # Hop 0 is the facts of the seed nodes themselves (a fact's text includes its
    # endpoints' names); each further hop walks one edge beyond. A hop expands the
    # best ``frontier`` nodes first reached at that hop; state nodes reached on the
    # way are leaves (expanding "in_progress" would list every task).
    expanded: set[str] = set()
    # A speaker the question names links to every turn they said: they are not expanded (their
    # newest turns are no answer; the reranker's speaker feature favours their turns among the
    # matches instead), which also saves reading their edges.
    hubs = {n.id for n in named if n.key in speakers}
    direct_seeds = {n.id for n in named}  # named by the query (not a vector's resemblance)
    for hop in range(0, max(0, min(q.depth, 3)) + 1):
        budget.check("recall")  # recall only reads: it can stop between any two steps
        if len(c.facts) >= cfg.max_facts:
            break
        fresh = [n for n, h in c.node_hop.items() if h == hop and n not in expanded and n not in hubs]
        frontier = _frontier(c, fresh, known, hop, cfg.frontier)
        if not frontier:
            break
        expanded.update(frontier)
        fanout = cfg.fanout_seed if hop == 0 else cfg.fanout_hop
        found = store.neighbor_edges(scope, frontier, per_node=fanout, when=when)
        known.learn(found)
        front = set(frontier)
        why, next_why = ("match" if hop == 0 else f"hop {hop}"), f"hop {hop + 1}"
        for e in found:
            for src, dst in ((e.subject_id, e.object_id), (e.object_id, e.subject_id)):
                if src in front:
                    # pinned counts where the query named the fact's node, not the user it resembles
                    c.fact(e, c.node_score[src], hop, why, direct=hop == 0 and src in direct_seeds)
                    c.node(dst, c.node_score[src] * cfg.hop_decay, hop + 1, next_why)

    # --- what the query names: above the facts reached through a hub ------------
    for f in hits_f:
        if f.id in c.fact_score:
            c.fact_score[f.id] *= cfg.match_boost

    # --- time named in the query: boost what happened then ---------------------
    if hint is not None:
        start, end, words = hint
        for fid, e in c.facts.items():
            if start <= e.valid_at <= end:
                c.fact_score[fid] *= cfg.time_boost
                add_why(c.fact_why, fid, f"time:{words}")
        # Only nodes the boost could lift into the best ``reach`` need their time read: loading
        # every reached node (~250, with their metadata) was the slowest part of a dated question.
        near = _may_rise(c.node_score, max(q.limit, cfg.rerank_depth), cfg.time_boost)
        known.load(near)
        for nid in near:
            node = known.get(nid)
            said_at = node.metadata.get("time") if node is not None else None
            if isinstance(said_at, str) and start <= as_utc(datetime.fromisoformat(said_at)) <= end:
                c.node_score[nid] *= cfg.time_boost
                add_why(c.node_why, nid, f"time:{words}")

    # --- rerank: speaker, question turns, coverage ------------------------------
    if not cfg.rerank.off:
        many = cfg.rerank.set_aware and is_question and is_set_question(q.query_intent)
        expects = expected_answer(q.query_intent) if cfg.rerank.kind and is_question else None
        _rerank(c, known, speakers, many, expects)

    # --- rank and cut --------------------------------------------------------
    budget.check("recall")
    if required:  # above everything else, so a token budget cuts them last
        required = list(dict.fromkeys(required))
        top = max(c.fact_score.values())
        for fid in required:
            c.fact_score[fid] += top
    kept_facts = _returned_facts(store, scope, c, known, max(q.limit, len(required)))
    node_ids = _returned_nodes(c, known, q.limit)
    for f in kept_facts:  # endpoints of kept facts are always described
        for nid in (f.subject_id, f.object_id):
            if nid not in c.node_score:
                c.node(nid, c.fact_score[f.id] * cfg.hop_decay, c.fact_hop[f.id] + 1, "endpoint")
            if nid not in node_ids:
                node_ids.append(nid)
    known.load(node_ids)
    rnodes = recalled_nodes(node_ids, known.full, c.node_score, c.node_hop, c.node_why)
    rfacts = recalled_facts(kept_facts, c.fact_score, c.fact_hop, c.fact_why, q.as_of, known.full)
    if q.max_tokens is not None:
        rnodes, rfacts = fit_budget(rnodes, rfacts, q.max_tokens)
    text = render_text(rnodes, rfacts)
    return RecallResult(query_intent=q.query_intent, nodes=rnodes, facts=rfacts, text=text, tokens=count_tokens(text))


_MIN_CHUNK = 16  # a refill reads at least this many more, not one query per node left out


def _returned_facts(store: Store, scope: Scope, c: Collector, known: NodeCache, limit: int) -> list[Fact]:
    """The best ``limit`` facts, read whole, leaving out those that touch an enrichment node
    (``_returned_nodes``) and reading further down the ranking in their place. Endpoints are
    judged from the light edges (types first; episodes are never enrichment, so only other
    nodes are read whole): a fact left out is never read."""
    def memories(chunk: list[str]) -> list[str]:
        ends = {n for i in chunk for n in (c.facts[i].subject_id, c.facts[i].object_id)}
        known.load_types(ends)
        known.load([n for n in ends if known.types.get(n, NodeType.EPISODE) != NodeType.EPISODE])
        return [i for i in chunk if not _enrichment(known, c.facts[i].subject_id)
                and not _enrichment(known, c.facts[i].object_id)]

    kept = _best_kept(sorted(c.facts, key=lambda i: (-c.fact_score[i], i)), limit, memories)
    whole = whole_facts(store, scope, kept, c.whole)
    return [whole[i] for i in kept]


def _returned_nodes(c: Collector, known: NodeCache, limit: int) -> list[str]:
    """The best ``limit`` nodes that exist and are memories: the profile and topic nodes the
    enrichment made are how recall reaches turns, not what it returns."""
    def memories(chunk: list[str]) -> list[str]:
        known.load(chunk)
        return [n for n in chunk if known.get(n) is not None and not _enrichment(known, n)]

    return _best_kept(sorted(c.node_score, key=lambda i: (-c.node_score[i], i)), limit, memories)


def _best_kept(ranked: list[str], limit: int, keep: Callable[[list[str]], list[str]]) -> list[str]:
    """The first ``limit`` of ``ranked`` that ``keep`` keeps, judged a chunk at a time: the
    ``limit`` best first, then at least ``_MIN_CHUNK`` more for each shortfall."""
    out: list[str] = []
    start = 0
    while len(out) < limit and start < len(ranked):
        missing = limit - len(out)
        chunk = ranked[start : start + (missing if start == 0 else max(missing, _MIN_CHUNK))]
        start += len(chunk)
        out += keep(chunk)[:missing]
    return out


def _enrichment(known: NodeCache, node_id: str) -> bool:
    # asked ~400 times per recall at limit 100 of ~100 nodes: judged once per node
    seen = known.enrichment.get(node_id)
    if seen is None:
        node = known.get(node_id)
        seen = known.enrichment[node_id] = (node is not None and node.type != NodeType.EPISODE
                                            and is_enrichment_node(node.name, node.metadata))
    return seen


def fit_budget(nodes: list[RecalledNode], facts: list[RecalledFact],
               max_tokens: int) -> tuple[list[RecalledNode], list[RecalledFact]]:
    """The best-scored prefix of facts and episodes whose rendered text fits ``max_tokens``."""
    items = sorted([(f.score, "f", i) for i, f in enumerate(facts)]
                   + [(n.score, "n", i) for i, n in enumerate(nodes) if n.type == NodeType.EPISODE],
                   key=lambda x: -x[0])
    keep_f: list[int] = []
    keep_n: list[int] = []
    for _, kind, i in items:
        trial_f, trial_n = (keep_f + [i], keep_n) if kind == "f" else (keep_f, keep_n + [i])
        kept_nodes = _with_endpoints(nodes, [facts[j] for j in trial_f], trial_n)
        if count_tokens(render_text(kept_nodes, [facts[j] for j in trial_f])) > max_tokens:
            break
        keep_f, keep_n = trial_f, trial_n
    kept_facts = [facts[j] for j in keep_f]
    return _with_endpoints(nodes, kept_facts, keep_n), kept_facts


def _with_endpoints(nodes: list[RecalledNode], facts: list[RecalledFact], episodes: list[int]) -> list[RecalledNode]:
    """Kept episodes plus the non-episode nodes the kept facts mention, in the original order."""
    wanted = {f.subject_id for f in facts} | {f.object_id for f in facts} | {nodes[i].id for i in episodes}
    return [n for n in nodes if n.id in wanted and (n.type != NodeType.EPISODE or n.id in
                                                    {nodes[i].id for i in episodes})]


def _speakers(store: Store, scope: Scope, named: list[Node], parsed: ParsedQuery | None) -> set[str]:
    """Name keys of the people a question names who said something (a ``said`` edge)."""
    if parsed is None or not parsed.question:
        return set()
    caps = {name_key(w) for w in parsed.capitalised}
    # a count capped at one walks the (subject, relation) index to the first turn; facts(limit=1)
    # sorted every turn they said by age, an uncapped count read them all
    return {n.key for n in named if n.key in caps and store.count_facts(FactQuery(
        scope=scope, subject_ids=[n.id], relation_keys=["said"], limit=1))}


def _speaker_profiles(store: Store, scope: Scope, speakers: set[str], as_of: datetime | None,
                      known: NodeCache) -> list[Profile]:
    """The speakers' profiles (enrich/profiles.py), parsed; their nodes kept in ``known``: they
    are endpoints of the facts expansion finds, and leaving those out reads them again."""
    nodes = store.nodes(NodeQuery(scope=scope, keys=profile_keys(sorted(speakers)), types=[NodeType.INFO],
                                  created_before=as_of))
    known.add(nodes)
    return [p for n in nodes if (p := parsed_profile(n.id, n.updated_at.isoformat(), n.metadata)) is not None]


def _profile_ranking(parsed: list[Profile], text_terms: list[str], question: str, cfg: RecallConfig) -> list[str]:
    """Episodes of the speakers' profiles, best first, by ``profiles.rank_statements``."""
    topics = [*asked_topics(question), *(t for t in topics_of(question) if cfg.profile_instance_topics)]
    ranked = rank_statements(parsed, stems(" ".join(text_terms)), list(dict.fromkeys(topics)),
                             cfg.profile_topic_weight, cfg.profile_seeds, on_topic=cfg.profile_on_topic)
    return [episode_id for episode_id, _ in ranked]


def _feedback_ranking(store: Store, scope: Scope, rankings: dict[str, list[str]], text_terms: list[str],
                      speakers: set[str], known: NodeCache, cfg: RecallConfig, when: When) -> list[str]:
    """Pseudo-relevance feedback: search again with the question's words and what the best
    first-pass turns share (``_feedback_terms``); live nodes only, as the first pass."""
    extra = _feedback_terms(rankings, text_terms, speakers, known, cfg)
    if not extra:
        return []
    again = _search_also(store, scope, text_terms, extra, cfg)
    if when.validity != "all":
        alive = store.live_nodes(again, when)
        again = [i for i in again if i in alive]
    return again


def _search_also(store: Store, scope: Scope, text_terms: list[str], extra: list[str], cfg: RecallConfig) -> list[str]:
    """Nodes found by the question's content words with ``extra`` words beside them, best first."""
    return [nid for nid, _ in store.search_nodes(scope, phrases(content_terms(text_terms) + extra), cfg.seed_nodes)]


def _feedback_terms(rankings: dict[str, list[str]], text_terms: list[str], speakers: set[str], known: NodeCache,
                    cfg: RecallConfig) -> list[str]:
    """Pseudo-relevance feedback: the words that several of the best ``feedback_docs`` first-pass
    episodes say and the question does not (every first-pass ranking weighted alike here). An
    answer spread over turns often shares words with the turns the question found, not with
    the question."""
    first = rrf(list(rankings.values()), cfg.fusion_k, [1.0] * len(rankings))
    top = sorted(first, key=lambda i: -first[i])[: cfg.feedback_docs]
    known.load(top)
    asked = {t for term in text_terms for t in tokens(term)} | speakers
    df: dict[str, int] = {}
    for nid in top:
        node = known.get(nid)
        if node is None or node.type != NodeType.EPISODE:
            continue
        said = node.summary or node.name
        for t in dict.fromkeys(tokens(said.split(": ", 1)[-1])):  # in order: ties go to the best turns
            if len(t) > 2 and t not in STOPWORDS and t not in FRAME_WORDS and t not in asked and not t.isdigit():
                df[t] = df.get(t, 0) + 1
    return [t for t in sorted(df, key=lambda t: -df[t]) if df[t] > 1][: cfg.feedback_terms]


def _rerank(c: Collector, known: NodeCache, speakers: set[str],
            many: bool = False, expects: str | None = None) -> None:
    """Rescore the best ``rerank_depth`` episode candidates with ``rerank.rerank``."""
    top = sorted(c.node_score, key=lambda i: -c.node_score[i])[: c.cfg.rerank_depth]
    known.load_types(top)  # only episodes are reranked: the rest are not read whole here
    known.load([n for n in top if known.types.get(n) == NodeType.EPISODE])
    cands = []
    for nid in top:
        node = known.get(nid)
        if node is None or node.type != NodeType.EPISODE:
            continue
        speaker = node.metadata.get("speaker")
        text = node.summary or node.name
        if isinstance(speaker, str) and text.startswith(f"{speaker}: "):
            text = text[len(speaker) + 2 :]
        cands.append(Candidate(nid, c.node_score[nid], text, speaker if isinstance(speaker, str) else None,
                               _place(node.metadata)))
    for nid, (score, why) in rerank(cands, speakers, c.cfg.rerank, many=many,
                                    expects=expects).items():
        c.node_score[nid] = score
        for w in why:
            add_why(c.node_why, nid, w)


def _place(meta: dict[str, object]) -> tuple[str, int] | None:
    """(session, position) from an episode's metadata: the number ending its turn id ("D3:14")."""
    session, turn = meta.get("session"), meta.get("turn_id")
    m = _TURN_NO.search(turn) if isinstance(turn, str) else None
    return (session, int(m.group(1))) if isinstance(session, str) and m else None


def _may_rise(scores: dict[str, float], reach: int, boost: float) -> list[str]:
    """Nodes that a ``boost`` could lift into the best ``reach``: those scoring at least the
    ``reach``-th best over ``boost`` (with a margin for the reranker's penalties)."""
    if len(scores) <= reach:
        return list(scores)
    floor = sorted(scores.values(), reverse=True)[reach - 1] * 0.8 / boost
    return [n for n, s in scores.items() if s >= floor]


def _frontier(c: Collector, fresh: list[str], known: NodeCache, hop: int, k: int) -> list[str]:
    """The best ``k`` of ``fresh`` that exist (as of ``as_of``) and may be expanded (past hop 0,
    not a state node). Nodes are loaded best first, ``k`` at a time, until ``k`` qualify: at
    depth 2 a hop reaches ~100 nodes and expands 16, so most are never read."""
    out: list[str] = []
    ranked = sorted(fresh, key=lambda i: -c.node_score[i])
    for start in range(0, len(ranked), k):
        chunk = ranked[start : start + k]
        known.load_types(chunk)
        types = known.types
        out += [n for n in chunk if n in types and (hop == 0 or types[n] != NodeType.STATE)]
        if len(out) >= k:
            break
    return out[:k]
