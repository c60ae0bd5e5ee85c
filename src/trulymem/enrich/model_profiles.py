"""Profile topics read by a chat model (optional; only with a model configured).

The rule-based profiles (``profiles``) see a statement about its speaker only in the
first person and a topic only through a small lexicon's words. A model reads more:
"Luna and Oliver are so playful!" is about the speaker's pets. Messages go to the
model in batches of ``BATCH`` (one call each); it names, from the profile topics
(``profiles.PROFILE_TOPICS``, so recall finds every profile by key), the topics of
each message that tells something about its speaker, and ingest links those as
profile statements like the rule-based ones, the model's ``stated_in`` facts marked
``source = "llm-profile"``. Items the model gets wrong (bad JSON shape, unknown
message or topic) are dropped, never guessed at.
"""

from __future__ import annotations

from collections.abc import Sequence

from trulymem.enrich.profiles import PROFILE_TOPICS
from trulymem.errors import InvalidInput
from trulymem.llm.base import LLM, json_reply

BATCH = 50
SOURCE = "llm-profile"

PROFILE_PROMPT = (
    "Below are numbered chat messages. For each message in which its speaker tells something about "
    "themselves (what they do, like, own, plan, feel; their family, friends, work, places), name one to three "
    "topics it is about, from: {topics}. Leave out messages that say nothing about their speaker. Reply with "
    'a JSON list of {{"message": <number>, "topics": [...]}} only; [] when there is nothing.\n\n{messages}')


def profile_prompt(lines: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """The chat messages asking for the profile topics of ``lines`` ((speaker, text), numbered from 0)."""
    listing = "\n".join(f"{i}. {speaker}: {text}" for i, (speaker, text) in enumerate(lines))
    prompt = PROFILE_PROMPT.format(topics=", ".join(PROFILE_TOPICS), messages=listing)
    return [{"role": "user", "content": prompt}]


def parse_topics(reply: str | None, n: int) -> dict[int, list[str]]:
    """Message index -> its profile topics (known ones only, deduplicated) from a model's reply
    to ``profile_prompt`` over ``n`` messages; a reply that is not JSON is one ``InvalidInput``."""
    try:
        items = json_reply(reply)
    except ValueError:
        raise InvalidInput("the model's answer was not JSON; nothing stored", field="model_profiles") from None
    out: dict[int, list[str]] = {}
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("topics"), list):
            continue
        try:
            i = int(item["message"])
        except (KeyError, TypeError, ValueError):
            continue
        labels = [t.strip().casefold() for t in item["topics"] if isinstance(t, str)]
        labels = [t for t in labels if t in PROFILE_TOPICS][:3]
        if 0 <= i < n and labels:
            out[i] = list(dict.fromkeys([*out.get(i, []), *labels]))
    return out


def model_profile_topics(llm: LLM, lines: Sequence[tuple[str, str]]) -> dict[int, list[str]]:
    """The profile topics a model reads in ``lines`` ((speaker, text)), ``BATCH`` lines per call."""
    out: dict[int, list[str]] = {}
    for start in range(0, len(lines), BATCH):
        chunk = lines[start : start + BATCH]
        reply = llm.complete(profile_prompt(chunk)).content
        out.update({start + i: topics for i, topics in parse_topics(reply, len(chunk)).items()})
    return out
