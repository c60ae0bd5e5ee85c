"""``memory_ingest``: a conversation becomes episodic memory.

Each message becomes an ``EpisodeNode`` (its text, speaker, session, turn id and
time), linked ``(speaker) -said-> (episode)``, ``(episode) -in_session->
(session)``, ``(previous) -next_message-> (episode)`` and ``(episode)
-mentions-> (entity)`` for the names it contains (a deterministic extractor).
Rule-based enrichment, on by default: ``(episode) -about-> (topic X)`` for the
topics of a small lexicon (``text/topics.py``), and a turn in which its speaker
tells something about themselves joins that speaker's profile on each of its topics,
``(speaker · topic) -stated_in-> (episode)``, ``(speaker · topic) -profile_of-> (speaker)``
(``enrich/profiles.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from typing import Any

from pydantic import BaseModel, Field, model_validator

from trulymem.enrich.model_profiles import SOURCE, model_profile_topics
from trulymem.enrich.profiles import (
    PROFILE_OF,
    STATED_IN,
    ProfileIndex,
    profile_keys,
    profile_name,
    profile_topics,
)
from trulymem.errors import InvalidInput
from trulymem.llm.base import json_reply
from trulymem.model import MAX_TEXT, Node, NodeType, Scope, UTCDatetime, as_utc
from trulymem.store.base import FactQuery, NodeQuery
from trulymem.text import name_key, relation_key
from trulymem.text.statements import preference, single_valued
from trulymem.text.stem import stems
from trulymem.text.stopwords import STOPWORDS
from trulymem.text.tokenize import joined, shared_tokens
from trulymem.text.topics import topic_line, topic_node, topics_in
from trulymem.tools.base import InputPart, Tool, ToolContext, ToolInput, embedded_writes, gc_paused, register
from trulymem.tools.commit import Triplet, TripletIn, built_triplet, commit_triplets
from trulymem.tools.fields import Label, Name, Text

MAX_MESSAGES = 5000
CONTEXT_WINDOW = 2  # neighbouring messages on each side indexed with an episode
# A capital not preceded by a word character ("\b[A-Z]" written capital first, so the regex
# engine skips to the next capital in C instead of testing a boundary at every position)
_NAME = re.compile(r"[A-Z](?<!\w.)[\w'’-]*(?:\s+(?:of|de|van|von|the)?\s*[A-Z][\w'’-]*)*")


class MessageIn(InputPart):
    speaker: Name
    text: Text = Field(description=f"The message (at most {MAX_TEXT} characters).")
    id: Label | None = Field(None, description="Message/turn id, e.g. LoCoMo's 'D1:3'; unique per user.")
    session: Label | None = Field(None, description="Session the message belongs to; default the scope's session.")
    timestamp: UTCDatetime | None = Field(None, description="When it was said; default now.")


class IngestInput(ToolInput):
    messages: list[MessageIn] = Field(min_length=1, max_length=MAX_MESSAGES)
    extract_facts: bool = Field(False, description="Also let the configured chat model extract (subject, relation, "
                                                   "object) facts, each with the message that states it.")
    topics: bool = Field(True, description="Link each message to the topics its words belong to (a rule-based "
                                           "lexicon: 'kayaking' is about hobbies) and index it with them.")
    profiles: bool = Field(True, description="Link each message in which its speaker tells something about "
                                             "themselves to that speaker's profile on its topics (rule-based).")
    model_profiles: bool = Field(False, description="Also let the configured chat model name the profile topics "
                                                    "of each message (batched, 50 messages per call).")

    @model_validator(mode="after")
    def _unique_ids(self) -> IngestInput:
        seen: dict[str, int] = {}
        for i, m in enumerate(self.messages):
            if m.id is not None:
                if m.id in seen:
                    raise InvalidInput(f"repeats message {seen[m.id]}'s id {m.id!r}", field=f"messages.{i}.id")
                seen[m.id] = i
        return self


class IngestResult(BaseModel):
    episodes: list[str]
    facts: int
    entities: list[str]


_INTERJECTIONS = frozenset("hey hi hello oh wow yeah yes no ok okay thanks thank sure well haha lol omg aw aww "
                           "great cool nice awesome congrats congratulations sorry please".split())
# Words that open a sentence and name nothing ("Tell me…", "Maybe…", "Let's…").
_OPENERS = frozenset("tell let lets maybe also anyway actually really just still yesterday today tomorrow tonight "
                     "sounds looks seems glad good happy hope guess think wait remember check keep try thank "
                     "definitely totally absolutely honestly luckily hopefully besides plus".split())
_CONTRACTION = re.compile(r"['’](?:s|ll|m|re|ve|d|t)$|n['’]t$", re.IGNORECASE)


def _names_nothing(word: str) -> bool:
    """A sentence's first word that is no name: a function word, an interjection, an opener,
    or one contracted with them ("I'll", "What's", "Don't")."""
    key = name_key(_CONTRACTION.sub("", word))
    return key in STOPWORDS or key in _INTERJECTIONS or key in _OPENERS


def mentioned_names(text: str, exclude: set[str]) -> list[str]:
    """Capitalised names in ``text`` (not sentence-initial function words, not ``exclude``)."""
    out: dict[str, str] = {}
    for m in _NAME.finditer(text):
        words = m.group(0).strip(" '’-").split()
        while words and _names_nothing(words[0]):
            words.pop(0)  # "Wow Caroline" -> "Caroline", "The Beatles" -> "Beatles", "I'll" -> nothing
        name = " ".join(words)
        key = name_key(name)
        if len(name) > 1 and key not in STOPWORDS and key not in exclude:
            out.setdefault(key, name)
    return list(out.values())


def latest_episodes(ctx: ToolContext, ns: Scope, session: str, n: int = CONTEXT_WINDOW) -> list[Node]:
    """The last ``n`` episodes stored in ``session``, oldest first."""
    node = ctx.store.nodes(NodeQuery(scope=ns, keys=[name_key(session)], limit=1))
    if not node:
        return []
    links = ctx.store.facts(FactQuery(scope=ns, object_ids=[node[0].id], relation_keys=["in_session"],
                                      newest_first=True, limit=n))
    ids = [f.subject_id for f in reversed(links)]
    by_id = {n.id: n for n in ctx.store.nodes(NodeQuery(scope=ns, ids=ids, types=[NodeType.EPISODE]))}
    return [by_id[i] for i in ids if i in by_id]


def _ingest(ctx: ToolContext, inp: IngestInput) -> IngestResult:
    extracted = extract_triplets(ctx, inp.messages) if inp.extract_facts else []  # before the write lock
    read: dict[int, list[str]] = {}
    if inp.model_profiles:
        if ctx.llm is None:
            raise InvalidInput("needs a chat model (TRULYMEM_LLM_MODEL)", field="model_profiles")
        read = model_profile_topics(ctx.llm, [(m.speaker, m.text) for m in inp.messages])
    with gc_paused(), shared_tokens(), embedded_writes(ctx.store, ctx.embedder):
        out = _store_messages(ctx, inp, read)
        if extracted:
            _commit_extracted(ctx, inp.messages, extracted)
            out.facts += len(extracted)
    return out


def _commit_extracted(ctx: ToolContext, messages: list[MessageIn], extracted: list[tuple[int, TripletIn]]) -> None:
    """The model's facts, each with its own message as provenance, superseding what they
    replace: one ``commit_triplets`` per run of facts of one session in which no triple and no
    single-valued or preference slot repeats — within such a run the batch stores what fact
    by fact stored (a repeat would reinforce in the batch where fact by fact it re-created a
    value superseded in between)."""
    run: list[tuple[int, TripletIn]] = []
    seen: set[tuple[str, ...]] = set()
    session: str | None = None
    for i, t in extracted:
        m = messages[i]
        keys = _slots(t)
        if run and ((m.session or ctx.scope.session_id) != session or not seen.isdisjoint(keys)):
            _commit_run(ctx, messages, run, session)
            run, seen = [], set()
        session = m.session or ctx.scope.session_id
        run.append((i, t))
        seen.update(keys)
    if run:
        _commit_run(ctx, messages, run, session)


def _slots(t: TripletIn) -> set[tuple[str, ...]]:
    """What a fact can collide with in a batch: its triple, its single-valued slot, its preference pair."""
    subject, obj = name_key(t.subject), name_key(t.object)
    out: set[tuple[str, ...]] = {("triple", subject, relation_key(t.relation), obj)}
    canon = single_valued(t.relation)
    if canon:
        out.add(("slot", subject, canon))
    if preference(t.relation) is not None:
        out.add(("preference", subject, obj))
    return out


def _commit_run(ctx: ToolContext, messages: list[MessageIn], run: list[tuple[int, TripletIn]],
                session: str | None) -> None:
    provenance = [_provenance(messages[i]) for i, _ in run]
    commit_triplets(_session_writer(ctx, session), [t for _, t in run], provenance=provenance, supersede=True)


def _session_writer(ctx: ToolContext, session: str | None) -> ToolContext:
    """A context that writes in ``session`` (a fact's session is its writer's)."""
    writer = ctx.beside(ctx.scope.agent_id, ctx.scope.app_id)
    writer.scope = writer.scope.replace(session_id=session)
    return writer


def _provenance(m: MessageIn) -> tuple[str | None, list[str]]:
    """A fact's turn id and message ids when ``m`` states it."""
    return m.id, [m.id] if m.id else []


EXTRACT_PROMPT = (
    "Extract the facts these messages state, as a JSON list of objects "
    '{{"message": <message number>, "subject": ..., "relation": <snake_case verb>, "object": ...}}. '
    "Use the speaker's name as subject for what they say about themselves. Only facts stated, nothing guessed. "
    "Reply with the JSON list only; [] when there is nothing.\n\n{messages}")


def extract_triplets(ctx: ToolContext, messages: list[MessageIn]) -> list[tuple[int, TripletIn]]:
    """Facts a chat model reads in the messages, each with the index of its message. Items
    the model gets wrong (bad JSON shape, empty fields) are dropped, never guessed at."""
    if ctx.llm is None:
        raise InvalidInput("needs a chat model (TRULYMEM_LLM_MODEL)", field="extract_facts")
    listing = "\n".join(f"{i}. {m.speaker}: {m.text}" for i, m in enumerate(messages))
    reply = ctx.llm.complete([{"role": "user", "content": EXTRACT_PROMPT.format(messages=listing)}]).content
    try:
        items = json_reply(reply)
    except ValueError:
        raise InvalidInput("the model's answer was not JSON; nothing stored", field="extract_facts") from None
    out: list[tuple[int, TripletIn]] = []
    for item in items if isinstance(items, list) else []:
        try:
            i = int(item["message"])
            if 0 <= i < len(messages):
                out.append((i, TripletIn(subject=item["subject"], relation=item["relation"], object=item["object"],
                                         source="llm-extract", valid_at=messages[i].timestamp)))
        except (KeyError, TypeError, ValueError):
            continue
    return out


@dataclass
class _Turn:
    """One message ready to write: its episode name, session, time and the triplets that link it."""

    message: MessageIn
    episode: str
    session: str
    when: datetime
    said: set[str]
    topics: list[str]
    profiles: list[str]
    triplets: list[Triplet]


def _store_messages(ctx: ToolContext, inp: IngestInput, read: dict[int, list[str]]) -> IngestResult:
    """Write the messages; ``read`` holds the profile topics a model named per message."""
    scope = ctx.scope.writable()
    ns = scope.namespace()
    speakers = {name_key(m.speaker) for m in inp.messages}
    previous, recent = _session_tails(ctx, ns, inp.messages, scope.session_id)
    profiles = ProfileIndex(stored={n.key for n in ctx.store.nodes(NodeQuery(
        scope=ns, keys=profile_keys(speakers), types=[NodeType.INFO]))} if inp.profiles or read else set())
    turns, entities = _plan(ctx, inp, read, scope.session_id, previous, speakers, profiles)
    node_ids, total = _commit_turns(ctx, turns)
    changed: dict[str, tuple[str, dict[str, Any]]] = {}  # episode id -> its summary and metadata, written last
    for turn, node_id in zip(turns, node_ids):
        m = turn.message
        for t in turn.profiles:
            profiles.add(m.speaker, t, node_id, turn.said)
        summary = joined(m.speaker, ": ", m.text)  # its tokens are the speaker's and the message's
        # An episode is also found by the messages around it (two before, two after): a reply
        # rarely repeats the question it answers (on LoCoMo: full-text recall@10 +14 points).
        window = recent.setdefault(turn.session, [])
        meta: dict[str, Any] = {"speaker": m.speaker, "session": turn.session, "turn_id": m.id,
                                "time": turn.when.isoformat(),
                                "context": "\n".join([*(s for _, s, _ in window), topic_line(turn.topics)]).strip()}
        changed[node_id] = (summary, meta)
        for before_id, before_summary, before_meta in window:
            before_meta["context"] = f"{before_meta['context']}\n{summary}".strip()
            changed[before_id] = (before_summary, before_meta)
        window.append((node_id, summary, meta))
        del window[:-CONTEXT_WINDOW]
    # Each episode written (and full-text indexed) once, with its whole context window, in one
    # batch: writing it as each neighbour arrived indexed it three times (36% of ingest CPU).
    ctx.store.update_nodes([(node_id, summary, meta) for node_id, (summary, meta) in changed.items()], ctx.now)
    _write_profiles(ctx, ns, profiles)
    return IngestResult(episodes=node_ids, facts=total, entities=sorted(entities))


def _session_tails(ctx: ToolContext, ns: Scope, messages: list[MessageIn], default: str | None,
                   ) -> tuple[dict[str, str], dict[str, list[tuple[str, str, dict[str, Any]]]]]:
    """Per session of ``messages`` already stored: its latest episode name, and its latest
    episodes as (node id, summary, metadata), newest last — a session ingested over several
    calls continues where the last one stopped."""
    previous: dict[str, str] = {}
    recent: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for session in dict.fromkeys(m.session or default or "session" for m in messages):
        stored = latest_episodes(ctx, ns, session)
        if stored:
            recent[session] = [(n.id, n.summary or "", dict(n.metadata)) for n in stored]
            previous[session] = stored[-1].name
    return previous, recent


def _plan(ctx: ToolContext, inp: IngestInput, read: dict[int, list[str]], default: str | None,
          previous: dict[str, str], speakers: set[str], profiles: ProfileIndex) -> tuple[list[_Turn], set[str]]:
    """Each message's episode name and triplets, before anything is written (refusing a
    message id already stored); returns them and the names mentioned."""
    existing = {n.key for n in ctx.store.nodes(NodeQuery(
        scope=ctx.scope.namespace(), keys=[name_key(m.id) for m in inp.messages if m.id], types=[NodeType.EPISODE]))}
    turns: list[_Turn] = []
    entities: set[str] = set()
    met: set[str] = set()  # profile names linked to their speaker in this ingest
    for i, m in enumerate(inp.messages):
        when: datetime = m.timestamp or ctx.now
        session = m.session or default or "session"
        episode = m.id or f"{session}#{when.isoformat()}#{i}"
        if name_key(episode) in existing:
            raise InvalidInput(f"message {episode!r} is already stored for this user", field=f"messages.{i}.id")
        link: dict[str, Any] = {"type": "episode", "valid_at": as_utc(when)}
        triplets = [
            built_triplet(m.speaker, "said", episode, object_type=NodeType.EPISODE, **link),
            built_triplet(episode, "in_session", session, subject_type=NodeType.EPISODE, **link),
        ]
        if session in previous:
            triplets.append(built_triplet(previous[session], "next_message", episode, **link))
        for name in mentioned_names(m.text, speakers):
            triplets.append(built_triplet(episode, "mentions", name, **link))
            entities.add(name)
        said = stems(m.text)
        topics = topics_in(said) if inp.topics else []
        triplets.extend(built_triplet(episode, "about", topic_node(t), **link) for t in topics)
        in_profiles = profile_topics(m.text, said, topics if inp.topics else None) if inp.profiles else []
        by_model = [t for t in read.get(i, []) if t not in in_profiles]
        triplets.extend(_profile_links(m.speaker, episode, in_profiles, met, profiles.stored, link))
        triplets.extend(_profile_links(m.speaker, episode, by_model, met, profiles.stored, {**link, "source": SOURCE}))
        turns.append(_Turn(m, episode, session, when, said, topics, in_profiles + by_model, triplets))
        previous[session] = episode
    return turns, entities


def _commit_turns(ctx: ToolContext, turns: list[_Turn]) -> tuple[list[str], int]:
    """Commit the turns' triplets, one ``commit_triplets`` per run of consecutive turns of a
    session (each fact with its own turn as provenance); returns each turn's episode node id
    and the number of triplets committed."""
    node_ids: list[str] = []
    total = 0
    for session, grouped in groupby(turns, key=lambda turn: turn.session):
        run = list(grouped)
        triplets = [t for turn in run for t in turn.triplets]
        provenance = [p for turn in run for p in [_provenance(turn.message)] * len(turn.triplets)]
        done = commit_triplets(_session_writer(ctx, session), triplets, provenance=provenance)
        total += len(done)
        first = 0
        for turn in run:  # a turn's first triplet is (speaker) -said-> (its episode)
            node_ids.append(done[first][0].object_id)
            first += len(turn.triplets)
    return node_ids, total


def _profile_links(speaker: str, episode: str, topics: list[str], met: set[str], stored: set[str],
                   link: dict[str, Any]) -> list[Triplet]:
    """``(profile) -profile_of-> (speaker)`` when the profile is new (neither ``stored`` nor
    ``met`` earlier in this ingest: a second link would only reinforce it, and ingesting message
    by message would store other facts than one call), and ``(profile) -stated_in-> (episode)``
    for each profile topic of the turn."""
    out: list[Triplet] = []
    for t in topics:
        name = profile_name(speaker, t)
        if name not in met and name_key(name) not in stored:
            out.append(built_triplet(name, PROFILE_OF, speaker, subject_type=NodeType.INFO, **link))
        met.add(name)
        out.append(built_triplet(name, STATED_IN, episode, subject_type=NodeType.INFO, object_type=NodeType.EPISODE,
                                 **link))
    return out


def _write_profiles(ctx: ToolContext, ns: Scope, profiles: ProfileIndex) -> None:
    """Each profile node's turn index and summary, merged with what earlier ingests wrote."""
    if not profiles.turns:
        return
    nodes = {n.key: n for n in ctx.store.nodes(NodeQuery(scope=ns, keys=[name_key(p) for p in profiles.turns]))}
    updates: list[tuple[str, str | None, dict[str, Any] | None]] = []
    for name in profiles.turns:
        node = nodes.get(name_key(name))
        if node is None:
            continue
        meta = profiles.metadata(name, node.metadata)
        updates.append((node.id, profiles.summary(name, meta), meta))
    ctx.store.update_nodes(updates, ctx.now)


memory_ingest = register(Tool(
    name="memory_ingest",
    description=(
        "Store conversation messages as episodes (speaker, text, session, turn id, time), linked to their "
        "speaker, session, neighbouring messages, the names they mention, their topics and, for what a speaker "
        "says about themselves, that speaker's profile."
    ),
    input_model=IngestInput,
    run=_ingest,
    own_transaction=True,
))
