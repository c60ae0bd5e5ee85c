"""Per-speaker profiles: who said what about themselves, grouped by topic.

A question about a person and a kind of thing ("What hobbies does Ola have?",
"What pets does Ines have?") is answered by turns that name instances ("I went
kayaking", "our dog Max") spread over many sessions, often sharing no word with the
question. At ingest every turn in which a speaker tells something about themselves
(first person, not a question) is linked to a profile node per topic of the
lexicon (``text.topics``), or ``other``:

    (Ola) -has_profile-> (Ola · hobbies) -stated_in-> (episode S3:4)

each ``stated_in`` fact carrying the turn as its provenance. The profile node's
metadata keeps, per turn, the stems of what was said, so recall ranks a person's
statements on a question's words and topics with one node read
(``rank_statements``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from trulymem.text.normalize import name_key
from trulymem.text.topics import TOPICS, topics_in
from trulymem.text.turns import is_self_statement

OTHER = "other"  # the profile of self-statements no lexicon topic covers
PROFILE_TOPICS: tuple[str, ...] = (*TOPICS, OTHER)
HAS_PROFILE = "has_profile"
STATED_IN = "stated_in"


def profile_name(speaker: str, topic: str) -> str:
    return f"{speaker} · {topic}"


def profile_keys(speaker_keys: Iterable[str]) -> list[str]:
    """The keys of every profile node the speakers (name keys) may have."""
    return [name_key(profile_name(s, t)) for s in speaker_keys for t in PROFILE_TOPICS]


def profile_topics(text: str, text_stems: set[str]) -> list[str]:
    """The profiles a turn belongs to: its topics (or ``other``) when it is a statement
    about its speaker, none otherwise."""
    if not is_self_statement(text):
        return []
    return topics_in(text_stems) or [OTHER]


@dataclass
class ProfileIndex:
    """Profile turns gathered during one ingest: profile name -> episode id -> stems."""

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
        """What the profile is about, for full text: the topic's most said stems."""
        counts: dict[str, int] = {}
        for said in meta["turns"].values():
            for s in said.split():
                counts[s] = counts.get(s, 0) + 1
        topic = self.topics[name]
        words = [s for s in sorted(counts, key=lambda s: (-counts[s], s))
                 if topic == OTHER or topic in topics_in({s})][:12]
        return f"{name}: {' '.join(words)}" if words else name


def rank_statements(profiles: Sequence[dict[str, Any]], query_stems: set[str], question_topics: Sequence[str],
                    topic_weight: float, limit: int, *, on_topic: bool = False) -> list[tuple[str, float]]:
    """Turns of the given profiles (node metadata) ranked for a question: the summed
    rarity (among the profiled turns) of the question's stems a turn says, plus
    ``topic_weight`` × the rarity of a profile topic the question is about. Best first,
    only turns with a positive score; with ``on_topic`` only turns on such a topic."""
    said: dict[str, set[str]] = {}
    in_topics: dict[str, set[str]] = {}
    topic_size: dict[str, int] = {}
    for meta in profiles:
        turns, topic = meta.get("turns"), meta.get("topic")
        if not isinstance(turns, dict) or not isinstance(topic, str):
            continue
        topic_size[topic] = topic_size.get(topic, 0) + len(turns)
        for episode_id, stems_text in turns.items():
            if episode_id not in said:
                said[episode_id] = set(str(stems_text).split())
            in_topics.setdefault(episode_id, set()).add(topic)
    n = len(said)
    if not n:
        return []
    df: dict[str, int] = {}
    for s in query_stems:
        df[s] = sum(1 for words in said.values() if s in words)
    idf = {s: math.log(1 + n / d) for s, d in df.items() if d}
    asked = {t: math.log(1 + n / topic_size[t]) for t in question_topics if t in topic_size}
    scored: list[tuple[str, float]] = []
    for episode_id, words in said.items():
        if on_topic and in_topics[episode_id].isdisjoint(asked):
            continue
        score = sum(w for s, w in idf.items() if s in words)
        if asked:
            score += topic_weight * max((asked.get(t, 0.0) for t in in_topics[episode_id]), default=0.0)
        if score > 0:
            scored.append((episode_id, score))
    scored.sort(key=lambda x: (-x[1], x[0]))
    return scored[:limit]
