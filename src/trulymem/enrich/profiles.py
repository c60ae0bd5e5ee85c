"""Per-speaker profiles: who said what about themselves, grouped by topic.

A question about a person and a kind of thing ("What hobbies does Ola have?",
"What pets does Ines have?") is answered by turns that name instances ("I went
kayaking", "our dog Max") spread over many sessions, often sharing no word with the
question. At ingest every turn in which a speaker tells something about themselves
(first person, not a question) is linked to a profile node per topic of the
lexicon (``text.topics``), or ``other``:

    (Ola · hobbies) -profile_of-> (Ola)
    (Ola · hobbies) -stated_in-> (episode S3:4)

each ``stated_in`` fact carrying the turn as its provenance. The profile points at
its person, not the other way round: a person's own facts (``history("user")``)
stay what was said about them. The profile node's
metadata keeps, per turn, the stems of what was said, so recall ranks a person's
statements on a question's words and topics with one node read
(``rank_statements``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trulymem.text.normalize import name_key
from trulymem.text.topics import TOPICS, instance_stems, topic_node, topics_in
from trulymem.text.turns import is_self_statement

OTHER = "other"  # the profile of self-statements no lexicon topic covers
PROFILE_TOPICS: tuple[str, ...] = (*TOPICS, OTHER)
PROFILE_OF = "profile_of"
STATED_IN = "stated_in"


def profile_name(speaker: str, topic: str) -> str:
    return f"{speaker} · {topic}"


_TOPIC_KEYS = frozenset(name_key(topic_node(t)) for t in TOPICS)


def is_enrichment_node(name: str, meta: Mapping[str, Any]) -> bool:
    """A node the rule-based enrichment made to link turns — a speaker's profile on a topic
    (its metadata indexes turns by topic) or a topic — not a memory in itself: recall walks
    through it and does not return it."""
    if isinstance(meta.get("turns"), dict) and isinstance(meta.get("topic"), str):
        return True
    return name_key(name) in _TOPIC_KEYS


def profile_keys(speaker_keys: Iterable[str]) -> list[str]:
    """The keys of every profile node the speakers (name keys) may have."""
    return [name_key(profile_name(s, t)) for s in speaker_keys for t in PROFILE_TOPICS]


def profile_topics(text: str, text_stems: set[str], topics: list[str] | None = None) -> list[str]:
    """The profiles a turn belongs to: its topics (``topics``, when the caller has them
    already, else read from ``text_stems``), or ``other``, when it is a statement about its
    speaker; none otherwise."""
    if not is_self_statement(text):
        return []
    return (topics_in(text_stems) if topics is None else topics) or [OTHER]


@dataclass
class ProfileIndex:
    """Profile turns gathered during one ingest: profile name -> episode id -> stems."""

    stored: set[str] = field(default_factory=set)            # keys of the profile nodes stored before
    speakers: dict[str, str] = field(default_factory=dict)   # profile name -> speaker
    topics: dict[str, str] = field(default_factory=dict)     # profile name -> topic
    turns: dict[str, dict[str, str]] = field(default_factory=dict)

    def add(self, speaker: str, topic: str, episode_id: str, text_stems: set[str]) -> None:
        name = profile_name(speaker, topic)
        self.speakers[name], self.topics[name] = speaker, topic
        self.turns.setdefault(name, {})[episode_id] = " ".join(sorted(text_stems))

    def metadata(self, name: str, before: dict[str, Any] | None) -> dict[str, Any]:
        """The profile node's metadata: ``before`` (from earlier ingests) with this one's turns."""
        old = before.get("turns") if before else None
        turns = {**(old if isinstance(old, dict) else {}), **self.turns[name]}
        return {"speaker": self.speakers[name], "topic": self.topics[name], "turns": turns}

    def summary(self, name: str, meta: dict[str, Any]) -> str:
        return profile_summary(name, self.topics[name], meta["turns"])


def profile_summary(name: str, topic: str, turns: dict[str, str]) -> str:
    """What the profile is about, for full text: the topic's most said stems."""
    counts = Counter(s for said in turns.values() for s in str(said).split())
    on_topic = None if topic == OTHER else instance_stems(topic)
    words = [s for s in sorted(counts, key=lambda s: (-counts[s], s)) if on_topic is None or s in on_topic][:12]
    return f"{name}: {' '.join(words)}" if words else name


def without_turns(name: str, meta: dict[str, Any], episode_ids: set[str]) -> tuple[str, dict[str, Any]] | None:
    """A profile's summary and metadata once the turns ``episode_ids`` are forgotten, or
    None when it held none of them: the stems it kept of them go with them."""
    turns = meta.get("turns")
    if not isinstance(turns, dict) or not episode_ids & set(turns):
        return None
    kept = {e: said for e, said in turns.items() if e not in episode_ids}
    return profile_summary(name, str(meta.get("topic", OTHER)), kept), {**meta, "turns": kept}


@dataclass(frozen=True)
class Profile:
    """One profile node's turns, indexed: stem -> episode ids, and the episode ids."""

    topic: str
    turns: frozenset[str]
    by_stem: dict[str, frozenset[str]]


_PARSED: dict[tuple[str, str], Profile] = {}  # (node id, updated_at) -> parsed; a changed node has a new key
_PARSED_MAX = 512


def parsed_profile(node_id: str, updated_at: str, meta: dict[str, Any]) -> Profile | None:
    """``meta`` (a profile node's metadata) indexed by stem, cached per node version:
    recall ranks the same profiles question after question."""
    key = (node_id, updated_at)
    hit = _PARSED.get(key)
    if hit is not None:
        return hit
    turns, topic = meta.get("turns"), meta.get("topic")
    if not isinstance(turns, dict) or not isinstance(topic, str):
        return None
    by_stem: dict[str, set[str]] = {}
    for episode_id, stems_text in turns.items():
        for s in str(stems_text).split():
            by_stem.setdefault(s, set()).add(episode_id)
    parsed = Profile(topic, frozenset(turns), {s: frozenset(ids) for s, ids in by_stem.items()})
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.clear()
    _PARSED[key] = parsed
    return parsed


def rank_statements(profiles: Sequence[Profile], query_stems: set[str], question_topics: Sequence[str],
                    topic_weight: float, limit: int, *, on_topic: bool = False) -> list[tuple[str, float]]:
    """Turns of the given profiles (``parsed_profile``) ranked for a question: the summed
    rarity (among the profiled turns) of the question's stems a turn says, plus
    ``topic_weight`` × the rarity of a profile topic the question is about. Best first,
    only turns with a positive score; with ``on_topic`` only turns on such a topic."""
    every: set[str] = set()
    topic_turns: dict[str, set[str]] = {}
    for p in profiles:
        every |= p.turns
        topic_turns.setdefault(p.topic, set()).update(p.turns)
    n = len(every)
    if not n:
        return []
    with_stem: dict[str, set[str]] = {}
    for s in query_stems:
        ids = set().union(*(p.by_stem.get(s, ()) for p in profiles))
        if ids:
            with_stem[s] = ids
    asked = {t: math.log(1 + n / len(topic_turns[t])) for t in question_topics if t in topic_turns}
    score: dict[str, float] = {}
    for ids in with_stem.values():
        w = math.log(1 + n / len(ids))
        for e in ids:
            score[e] = score.get(e, 0.0) + w
    if asked:
        best_topic: dict[str, float] = {}
        for t, w in asked.items():
            for e in topic_turns[t]:
                best_topic[e] = max(best_topic.get(e, 0.0), w)
        if on_topic:
            score = {e: v for e, v in score.items() if e in best_topic}
        for e, w in best_topic.items():
            score[e] = score.get(e, 0.0) + topic_weight * w
    elif on_topic:
        return []
    ranked = sorted(((e, v) for e, v in score.items() if v > 0), key=lambda x: (-x[1], x[0]))
    return ranked[:limit]
