"""The memory-agent eval's fixture, fact matching and scripted model (used by
``bench_agent_llm.py``).

A fixture (``agent_eval/<lang>.json``) is one user's conversation over several
sessions on different days. Each turn says what memory must hold afterwards:

- ``must_write``: current, non-speculative facts about the user;
- ``must_not_current``: facts a correction replaced (not current, but in history);
- ``must_not_write``: facts that must not be current at all (a negation stored as its opposite);
- ``answer_contains``: any of these strings in the reply (memory questions);
- ``guess``: triplets a model might infer; every stored fact matching one must be speculation;
- ``scripted``: what the scripted model does on that turn (tool calls, reply).

Facts are matched by strings, case-insensitively: the relation must contain one of
``relation_any`` (English entries as whole words in their present forms, "live"
matching live/lives/living but not lived; Chinese entries as substrings) and none of
``relation_none``, the object must contain ``object_contains``, and the polarity must
agree (``negated``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trulymem import TrulyMem
from trulymem.llm import Message
from trulymem.model import Fact

FIXTURE_DIR = Path(__file__).parent / "agent_eval"

_CJK = re.compile(r"[\u3400-\u9fff]")
_NEG_WORDS = {"not", "no", "never", "dont", "don't", "doesnt", "doesn't", "isnt", "isn't", "stopped", "non"}
_NEG_PREFIXES = ("dislike", "hate")
_NEG_ZH = re.compile(r"不|没|讨厌|厌恶|再也")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def relation_words(relation: str) -> list[str]:
    """``livesIn`` / ``lives_in`` / ``Lives-In`` -> ``["lives", "in"]``."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", relation)
    return [w for w in re.split(r"[\s_\-:/.,;]+", spaced.casefold()) if w]


def _forms(word: str) -> set[str]:
    """A word's present forms: like -> like, likes, liking (doubled consonants, "planning", are listed apart)."""
    forms = {word, word + "s", word + "es", word + "ing"}
    if word.endswith("e"):
        forms.add(word[:-1] + "ing")
    return forms


def relation_matches(relation: str, wanted: list[str]) -> bool:
    words = relation_words(relation)
    joined = " " + " ".join(words) + " "
    for entry in wanted:
        e = entry.casefold().strip()
        if _CJK.search(e):
            if e in relation:
                return True
        elif " " in e:
            if f" {e} " in joined:
                return True
        elif any(w in _forms(e) for w in words):
            return True
    return False


def negative(fact: Fact) -> bool:
    """Whether a fact states the opposite: "does_not_like", "dislikes", "不喜欢", object "not rock"."""
    words = relation_words(fact.relation)
    obj = (fact.object or "").casefold().strip()
    return (any(w in _NEG_WORDS or w.startswith(_NEG_PREFIXES) for w in words)
            or bool(_NEG_ZH.search(fact.relation))
            or obj.startswith(("not ", "no ", "不", "没")))


class Pattern(_Strict):
    relation_any: list[str] = Field(min_length=1)
    relation_none: list[str] = Field(default_factory=list, description="Wordings that say something else.")
    object_contains: str = Field(min_length=1)
    negated: bool = False

    def matches(self, fact: Fact, *, any_polarity: bool = False) -> bool:
        return (self.object_contains.casefold() in (fact.object or "").casefold()
                and relation_matches(fact.relation, self.relation_any)
                and not relation_matches(fact.relation, self.relation_none)
                and (any_polarity or negative(fact) == self.negated))

    def describe(self) -> str:
        return f"{'NOT ' if self.negated else ''}{self.relation_any[0]} ~{self.object_contains}"


class Guess(_Strict):
    subject: str
    relation: str
    object: str
    relation_any: list[str] | None = Field(None, description="Relation wordings that count as this guess.")

    def pattern(self) -> Pattern:
        return Pattern(relation_any=self.relation_any or [self.relation], object_contains=self.object)

    def triplet(self) -> dict[str, str]:
        return {"subject": self.subject, "relation": self.relation, "object": self.object}


class ToolCallSpec(_Strict):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ScriptedTurn(_Strict):
    tool_calls: list[ToolCallSpec] = Field(default_factory=list)
    reply: str | None = None


class Turn(_Strict):
    user: str = Field(min_length=1)
    must_write: list[Pattern] = Field(default_factory=list)
    must_not_current: list[Pattern] = Field(default_factory=list)
    must_not_write: list[Pattern] = Field(default_factory=list)
    answer_contains: list[str] = Field(default_factory=list)
    guess: list[Guess] = Field(default_factory=list)
    scripted: ScriptedTurn = Field(default_factory=ScriptedTurn)


class Session(_Strict):
    id: str
    day: int = Field(ge=0)
    turns: list[Turn] = Field(min_length=1)


class Conversation(_Strict):
    lang: str
    about: str = ""
    user_id: str
    persona: dict[str, str]
    sessions: list[Session] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> Conversation:
        days = [s.day for s in self.sessions]
        if days != sorted(set(days)):
            raise ValueError("sessions must be on increasing days")
        if len({s.id for s in self.sessions}) != len(self.sessions):
            raise ValueError("session ids repeat")
        texts = [t.user for t in self.turns()]
        if len(set(texts)) != len(texts):
            raise ValueError("user messages repeat (the scripted model finds its turn by the message)")
        return self

    def turns(self) -> list[Turn]:
        return [t for s in self.sessions for t in s.turns]


def load_conversations(langs: list[str] | None = None, folder: Path = FIXTURE_DIR) -> list[Conversation]:
    """The fixtures for ``langs`` (all of them when None), in file-name order."""
    files = sorted(folder.glob("*.json"))
    convs = [Conversation.model_validate_json(f.read_text(encoding="utf-8")) for f in files]
    if langs is not None:
        missing = set(langs) - {c.lang for c in convs}
        if missing:
            raise ValueError(f"no fixture for {sorted(missing)} in {folder}")
        convs = [c for c in convs if c.lang in langs]
    return convs


# --- what memory holds after a session ----------------------------------------
USER_ALIASES = ("user", "the user", "i", "me", "my", "myself", "我", "用户")


class MemoryView:
    """Every version of every fact about the user, and the task ids, read once."""

    def __init__(self, mem: TrulyMem, user_id: str) -> None:
        seen: dict[str, Fact] = {}
        for name in (*USER_ALIASES, user_id):
            for f in mem.history(name):
                seen.setdefault(f.id, f)
        self.facts = list(seen.values())
        self.tasks = {t.task_id for t in mem.task_list(limit=500).tasks}

    def current(self, p: Pattern) -> list[Fact]:
        return [f for f in self.facts if f.is_valid and not f.speculation and p.matches(f)]

    def replaced(self, p: Pattern) -> list[Fact]:
        return [f for f in self.facts if not f.is_valid and p.matches(f)]

    def any_version(self, p: Pattern) -> list[Fact]:
        return [f for f in self.facts if p.matches(f, any_polarity=True)]


def show(f: Fact) -> str:
    marks = [m for m, on in (("speculation", f.speculation), ("invalid", not f.is_valid)) if on]
    return f"{f.subject} {f.relation} {f.object}" + (f" [{', '.join(marks)}]" if marks else "")


# --- a clock that the eval moves between sessions --------------------------------
class SimClock:
    """1 ms per reading (so writes are ordered), jumped forward to each session's day; thread-safe."""

    def __init__(self, start: datetime) -> None:
        self._t = start
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            self._t += timedelta(milliseconds=1)
            return self._t

    def jump_to(self, when: datetime) -> None:
        with self._lock:
            self._t = max(self._t, when)


# --- the scripted model -------------------------------------------------------------
_DEFAULT_REPLY = {"en": "Got it~", "zh": "好的~"}
_QUOTE = {"en": "From memory: ", "zh": "我记得："}
_UNKNOWN = {"en": "Sorry, I don't remember that.", "zh": "抱歉，我不记得了。"}


def recalled_lines(system: str, rules: str = "") -> list[str]:
    """What memory put in the system prompt: the sections after the identity, except the persona
    and the fixed rules (the whole prompt if it has no '## ' sections)."""
    if rules:
        system = system.replace(rules, "")
    lines = [ln.strip() for ln in system.splitlines()]
    if not any(ln.startswith("## ") for ln in lines):
        return [ln for ln in lines if ln]
    out: list[str] = []
    keep = False
    for ln in lines:
        if ln.startswith("## "):
            keep = "persona" not in ln.casefold()
        elif keep and ln:
            out.append(ln)
    return out


def _excerpt(line: str, hit: int, width: int = 160) -> str:
    if len(line) <= width:
        return line
    start = max(0, min(hit - width // 2, len(line) - width))
    return ("…" if start else "") + line[start : start + width] + ("…" if start + width < len(line) else "")


def quote_answer(system: str, wanted: list[str], lang: str, rules: str = "") -> str:
    """A perfect reader: the recalled lines (at most 3) that hold any wanted string, else "I don't
    remember". The reply comes only from the prompt: it is right exactly when memory recalled it."""
    found: list[str] = []
    for line in recalled_lines(system, rules):
        hits = [line.casefold().find(w.casefold()) for w in wanted]
        hit = min((h for h in hits if h >= 0), default=-1)
        if hit >= 0:
            found.append(_excerpt(line, hit))
        if len(found) == 3:
            break
    if not found:
        return _UNKNOWN.get(lang, _UNKNOWN["en"])
    return _QUOTE.get(lang, "") + " / ".join(found)


def scripted_policy(conv: Conversation, rules: str = "") -> Callable[[list[Message]], str | dict[str, Any]]:
    """One step function for every request: a lazy but realistic model. It finds its turn by the
    user's message, makes the turn's scripted tool calls plus the fixture's guesses (committed
    without speculation), then replies; it never commits what the user states (the runtime must).
    Memory questions are answered by quoting the system prompt (see ``quote_answer``)."""
    turns = {t.user: t for t in conv.turns()}

    def find(messages: list[Message]) -> Turn | None:
        said = next((str(m.get("content") or "") for m in messages if m.get("role") == "user"), "")
        if said in turns:
            return turns[said]
        inside = [t for text, t in turns.items() if text in said]  # the runtime may decorate the message
        return max(inside, key=lambda t: len(t.user)) if inside else None

    def step(messages: list[Message]) -> str | dict[str, Any]:
        turn = find(messages)
        if turn is None:
            return _DEFAULT_REPLY.get(conv.lang, "OK.")
        calls = [{"name": c.name, "arguments": c.arguments} for c in turn.scripted.tool_calls]
        if turn.guess:
            calls.append({"name": "memory_commit", "arguments": {"triplets": [g.triplet() for g in turn.guess]}})
        if calls and not any(m.get("role") == "tool" for m in messages):
            return {"content": None, "tool_calls": calls}
        if turn.answer_contains:
            system = str(messages[0].get("content") or "") if messages and messages[0].get("role") == "system" else ""
            return quote_answer(system, turn.answer_contains, conv.lang, rules)
        return turn.scripted.reply or _DEFAULT_REPLY.get(conv.lang, "OK.")

    return step
