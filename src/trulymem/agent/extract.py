"""Must-write statements: what the user said about themselves, as triplets.

Two extractors with one output shape: a rule-based one for explicit first-person
statements in English and Chinese (preferences, projects, plans, whereabouts,
home, work, names, favourites, birthdays …; ``trulymem.text.first_person``), run
on every turn; and a prompt for the configured chat model, run after the reply in
batches, which also writes the per-turn summaries. Both only ever produce facts about the user; a model's item
that is not stated is kept as speculation, never as fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trulymem.llm.base import Message, json_reply
from trulymem.text.first_person import MAX_OBJECT, Statement, rule_statements

__all__ = ["Statement", "TurnText", "extract_messages", "parse_extraction", "rule_statements"]


# --- the model --------------------------------------------------------------
@dataclass(frozen=True)
class TurnText:
    """One recorded turn, as the post-turn model sees it."""

    index: int
    user: str
    reply: str


EXTRACT_SYSTEM = (
    "You maintain an assistant's long-term memory. For each conversation turn below, write a one-line summary "
    "(at most 20 words, in the language of the turn) and list the facts the USER states about themselves: "
    "preferences, what they work on, plans, where they are or live, work, names, dates, relationships. "
    "Use subject \"user\", a snake_case relation in English (likes, dislikes, lives_in, works_at, is_at, "
    "working_on, plans_to, favorite_<thing>, birthday, name …) and the object in the user's own words. "
    "A denial is a fact too (\"I don't like rock\" -> dislikes rock). Set \"stated\": false for anything you infer "
    "rather than read. Nothing the assistant said is a fact about the user. Reply with JSON only: "
    '{"turns": [{"turn": <number>, "summary": "...", "facts": [{"subject": "user", "relation": "...", '
    '"object": "...", "stated": true}]}]}')


def extract_messages(turns: Sequence[TurnText]) -> list[Message]:
    listing = "\n\n".join(f"Turn {t.index}\nUser: {t.user}\nAssistant: {t.reply}" for t in turns)
    return [{"role": "system", "content": EXTRACT_SYSTEM}, {"role": "user", "content": listing}]


def parse_extraction(reply: str | None, turns: Sequence[TurnText]) -> dict[int, tuple[str | None, list[Statement]]]:
    """Per turn index: its summary and statements. ``ValueError`` when the reply is not the
    JSON asked for; malformed items inside it are dropped, never guessed at."""
    data = json_reply(reply)
    items = data.get("turns") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ValueError("no 'turns' list in the model's reply")
    known = {t.index for t in turns}
    out: dict[int, tuple[str | None, list[Statement]]] = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("turn"), int) or item["turn"] not in known:
            continue
        summary = item.get("summary")
        facts: list[Statement] = []
        for f in item.get("facts") or []:
            if not isinstance(f, dict):
                continue
            rel, obj = f.get("relation"), f.get("object")
            if isinstance(rel, str) and isinstance(obj, str) and rel.strip() and obj.strip():
                facts.append(Statement(rel.strip()[:100], obj.strip()[:MAX_OBJECT], stated=f.get("stated") is not False))
        out[item["turn"]] = (summary.strip()[:300] if isinstance(summary, str) and summary.strip() else None, facts)
    return out
