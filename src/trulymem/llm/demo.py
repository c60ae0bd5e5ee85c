"""A built-in chat model for trying the agent with no API key (`trulymem chat --model scripted`).

The settings name it with the model ``scripted`` and no base URL (``chat`` and ``serve`` take
``--model scripted``). It is a :class:`ScriptedLLM` whose script never runs out: each request is answered from
what the request holds. A question first calls ``memory_recall`` with the question, then
answers with the facts the tool returned; a statement is acknowledged (the runtime's rule
extractor stores what the user states). Asked for facts with no tools offered (``add_memory``
with ``infer``), it answers with what the same rules find in the user's lines. The memory is real; only the wording is canned.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from trulymem.config import LLMSettings
from trulymem.llm.base import Message
from trulymem.llm.scripted import Script, ScriptedLLM
from trulymem.text.first_person import rule_statements  # the agent's rules

NAME = "scripted"
_QUESTION = re.compile(r"\?\s*$|？\s*$|^\s*(what|where|who|when|which|how|why|do|does|did|is|are|can)\b|吗|什么|哪|谁",
                       re.IGNORECASE)


class _Endless(Script):
    """A script that adds the demo step before each request, so it never runs out."""

    def __init__(self) -> None:
        super().__init__([])
        self._lock = threading.Lock()  # a server asks from many threads: each request pops its own step

    def next(self, messages: list[Message], tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        with self._lock:
            # the agent's turns come with a system prompt; one lone user message asking with no tools is
            # a request for facts (add_memory with infer)
            alone = not tools and len(messages) == 1 and messages[0].get("role") == "user"
            self.steps.append(_facts if alone else _step)
            self.requests.clear()  # an interactive session is long: keep no transcript
            return super().next(messages, tools)


def demo_llm() -> ScriptedLLM:
    """The demo model: no network, no key, answers from memory."""
    return ScriptedLLM(_Endless(), model=NAME)


def wanted(settings: LLMSettings) -> bool:
    """Whether settings name the demo model: ``scripted`` with no endpoint (with one, it is
    a real server's model of that name, e.g. the scripted model server's)."""
    return settings.model == NAME and not settings.base_url


def is_demo(llm: object) -> bool:
    """Whether ``llm`` is the demo model (a test's ScriptedLLM is not, though named alike)."""
    return isinstance(llm, ScriptedLLM) and isinstance(llm.script, _Endless)


def _step(messages: list[Message]) -> str | dict[str, Any]:
    last = messages[-1]
    if last.get("role") == "tool":
        return _answer(str(last.get("content") or ""))
    said = str(last.get("content") or "").strip()
    if _QUESTION.search(said):
        return {"tool_calls": [{"name": "memory_recall", "arguments": {"query_intent": said, "depth": 1}}]}
    return f"Noted: “{said}”. (demo model: what you state is stored by the memory's own rules; ask me about it.)"


def _facts(messages: list[Message]) -> str:
    """The user's stated facts in the conversation asked about, found by the runtime's rules, as the
    JSON list of sentences a fact-extraction prompt asks for."""
    text = str(messages[-1].get("content") or "")
    said = [line.split(":", 1)[1] for line in text.splitlines() if line.lower().startswith("user:")]
    found = [s for line in said or [text] for s in rule_statements(line)]
    return json.dumps([f"{s.subject} {s.relation} {s.object}" for s in dict.fromkeys(found)], ensure_ascii=False)


def _answer(result: str) -> str:
    try:
        data = json.loads(result)
    except ValueError:
        return "I could not read my memory just now."
    body = data.get("result", data) if isinstance(data, dict) else {}
    # the messages themselves are episode nodes: their facts say who said what, not what is known
    episodes = {n.get("id") for n in body.get("nodes") or [] if n.get("type") == "EpisodeNode"}
    facts = [f"{f.get('subject')} {f.get('relation')} {f.get('object')}" for f in body.get("facts") or []
             if f.get("kind") == "FACT" and not {f.get("subject_id"), f.get("object_id")} & episodes][:5]
    if not facts:
        return "I have nothing in memory about that yet."
    return "From memory: " + "; ".join(facts) + "."
