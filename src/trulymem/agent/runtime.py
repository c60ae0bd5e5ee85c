"""The turn runtime: every turn follows the memory protocol, enforced in code.

1. and 2. persona and task chain are recalled before the model is called (no
round trip); 3. the model answers, using memory tools as it decides, inside
per-turn limits; 4. the turn is recorded in the chain afterwards, whatever the
model did. No message history is carried between turns.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from trulymem.agent.context import DEFAULT_IDENTITY, ContextBudget, Recalled, recall_context, system_prompt
from trulymem.agent.extract import Statement, rule_statements
from trulymem.agent.post import PostTurn
from trulymem.agent.record import TurnRecord, record_turn, write_statements, writing
from trulymem.errors import InvalidInput
from trulymem.graph import TrulyMem
from trulymem.llm.base import LLM, LLMResponse, Message, OnText, ToolCall
from trulymem.model import TaskState, new_id
from trulymem.text.speculation import speculation_reason
from trulymem.text.tokenize import count_tokens
from trulymem.tools import ToolResult, call_tool, get_tool
from trulymem.tools.fields import MAX_MESSAGE
from trulymem.tools.tasks import list_tasks

# Tool families and how many calls of each a turn may make.
FAMILIES: dict[str, tuple[str, ...]] = {
    "read": ("memory_recall", "task_list", "persona_get"),
    "write": ("memory_commit", "memory_purge", "task_create", "task_set_state", "persona_set"),
    "rewrite": ("context_rewrite",),
}
AGENT_TOOLS = tuple(t for names in FAMILIES.values() for t in names)
FAMILY_OF = {t: fam for fam, names in FAMILIES.items() for t in names}


@dataclass(frozen=True)
class Limits:
    per_family: dict[str, int] = field(default_factory=lambda: {"read": 6, "write": 10, "rewrite": 2})
    max_iterations: int = 6  # model round trips per turn; the last one is offered no tools

    def __post_init__(self) -> None:
        if self.max_iterations < 1:
            raise InvalidInput("must be at least 1", field="max_iterations")
        unknown = set(self.per_family) - set(FAMILIES)
        if unknown:
            raise InvalidInput(f"unknown tool families {sorted(unknown)}; known: {sorted(FAMILIES)}",
                               field="per_family")
        if any(n < 0 for n in self.per_family.values()):
            raise InvalidInput("limits must be 0 or more", field="per_family")


class ToolTrace(BaseModel):
    name: str
    arguments: Any
    ok: bool
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    ms: float = 0.0


def _empty_written() -> dict[str, list[str]]:
    return {"facts": [], "tasks": [], "states": [], "episodes": [], "nodes": []}


Extract = Literal["auto", "model", "rules", "off"]


class TurnTrace(BaseModel):
    """Everything a turn did, for logs, the CLI and UIs."""

    turn_id: str
    user: str
    reply: str = ""
    llm_calls: int = 0
    tools: list[ToolTrace] = Field(default_factory=list)
    recalled: dict[str, Any] = Field(default_factory=dict)
    written: dict[str, list[str]] = Field(default_factory=_empty_written)
    task: str | None = Field(None, description="The topic task this turn belongs to (created, resumed or running).")
    record_task: str | None = Field(None, description="This turn's own TaskNode in the chain (step 4).")
    extracted: list[str] = Field(default_factory=list, description="Stated facts the runtime wrote itself.")
    resumed: list[str] = Field(default_factory=list, description="Tasks set back in progress this turn.")
    rewrites: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    prompt_tokens: list[int] = Field(default_factory=list, description="Per model call.")
    latency_ms: dict[str, float] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)


class TurnResult(BaseModel):
    reply: str
    trace: TurnTrace


class Agent:
    """A chat agent whose only memory is the graph.

    >>> agent = Agent(TrulyMem("mem.db", user_id="alice"), ScriptedLLM(["Hi!"]))  # doctest: +SKIP
    >>> agent.turn("hello").reply  # doctest: +SKIP
    """

    def __init__(self, memory: TrulyMem, llm: LLM, *, persona: dict[str, str | list[str]] | None = None,
                 user_id: str | None = None, session_id: str | None = None, identity: str = DEFAULT_IDENTITY,
                 limits: Limits | None = None, budget: ContextBudget | None = None, extract: Extract = "auto",
                 post_llm: LLM | None = None, post_batch: int = 4) -> None:
        """``extract``: what the user states is written by the runtime when the model does not
        commit it — ``rules`` (explicit statements, English and Chinese, at once), ``model``/``auto``
        (the rules, then ``post_llm`` or the chat model after the reply, in batches of
        ``post_batch`` turns, which also summarizes each turn), or ``off``."""
        if extract not in ("auto", "model", "rules", "off"):
            raise InvalidInput("must be auto, model, rules or off", field="extract")
        fields: dict[str, Any] = {}
        if user_id is not None:
            fields["user_id"] = user_id
        fields["session_id"] = session_id or memory.scope.session_id or "chat"
        self.memory = memory.with_scope(**fields)
        self.memory.scope.writable()  # an agent writes: refuse read-only scopes now, not mid-turn
        self.llm = llm
        self.identity = identity
        self.limits = limits or Limits()
        self.budget = budget or ContextBudget()
        self.memory.ensure_user()
        if persona and not self.memory.persona_get().attributes:
            self.memory.persona_set(persona)  # a default: a persona already in memory wins
        self.tools = [get_tool(name).openai_schema(compact=True) for name in AGENT_TOOLS]
        self.extract = extract
        self.post = PostTurn(self.memory, post_llm or llm, self._checked, batch=post_batch) \
            if extract in ("auto", "model") else None

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until the work after earlier replies (summaries, extraction) is done."""
        return self.post.flush(timeout) if self.post else True

    def close(self, timeout: float | None = None) -> None:
        """Finish the work after the replies; what cannot finish stays pending in memory and
        is picked up by the next agent on this memory. The memory itself stays open."""
        if self.post:
            self.post.close(timeout)

    def __enter__(self) -> Agent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def session(self) -> str:
        return self.memory.scope.session_id or "chat"

    # --- the turn -------------------------------------------------------------
    def turn(self, text: str, *, on_text: OnText | None = None) -> TurnResult:
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("the user message is empty", field="text")
        t_start = time.perf_counter()
        trace = TurnTrace(turn_id=new_id(), user=text)
        recalled = recall_context(self.memory, self.memory.context(), text, self.session, self.budget)
        messages: list[Message] = [{"role": "system", "content": system_prompt(recalled, self.identity)},
                                   {"role": "user", "content": text}]
        trace.recalled = _recalled_summary(recalled)
        state = _Loop(messages=messages, said=_said(text, recalled))
        reply = self._loop(state, text, trace, on_text)
        t_rec = time.perf_counter()
        self._record(text, reply, trace, recalled)
        trace.reply = reply
        trace.latency_ms = {"recall": round(recalled.ms, 2), "llm": round(state.llm_ms, 2),
                            "tools": round(state.tools_ms, 2), "record": round((time.perf_counter() - t_rec) * 1000, 2),
                            "total": round((time.perf_counter() - t_start) * 1000, 2)}
        trace.latency_ms["memory"] = round(trace.latency_ms["recall"] + trace.latency_ms["tools"]
                                           + trace.latency_ms["record"], 2)
        return TurnResult(reply=reply, trace=trace)

    def _loop(self, st: _Loop, text: str, trace: TurnTrace, on_text: OnText | None) -> str:
        for i in range(self.limits.max_iterations):
            last = i == self.limits.max_iterations - 1
            if last and i > 0:
                st.messages.append({"role": "system", "content": "Tool budget for this turn is used up: "
                                                                 "answer the user now, without tools."})
            res = self.llm.complete(st.messages, [] if last else self.tools, on_text=on_text)
            self._count(res, trace, st)
            if not res.tool_calls or last:
                if res.tool_calls:
                    trace.warnings.append("the model asked for tools after the iteration cap; ignored")
                return (res.content or "").strip()
            st.messages.append(res.as_message())
            self._run_calls(res.tool_calls, st, text, trace)
        trace.warnings.append("no reply within the iteration cap")
        return ""

    def _count(self, res: LLMResponse, trace: TurnTrace, st: _Loop) -> None:
        trace.llm_calls += 1
        trace.tokens_in += res.usage.prompt_tokens
        trace.tokens_out += res.usage.completion_tokens
        trace.prompt_tokens.append(res.usage.prompt_tokens)
        st.llm_ms += res.latency_ms

    def _run_calls(self, calls: list[ToolCall], st: _Loop, text: str, trace: TurnTrace) -> None:
        for call in calls:
            t0 = time.perf_counter()
            out, args = self._one_call(call, calls, st, text, trace)
            ms = (time.perf_counter() - t0) * 1000
            st.tools_ms += ms
            trace.tools.append(ToolTrace(name=call.name, arguments=args, ok=out.ok, result=out.result,
                                         error=out.error, ms=round(ms, 2)))
            content = json.dumps(out.to_dict(), ensure_ascii=False, default=str)
            if out.ok and call.name == "context_rewrite":
                # Keep [system, user] and the accepted summary (as the call that made it) only.
                st.messages[:] = [*st.messages[:2], {"role": "assistant", "content": None,
                                                     "tool_calls": [call.as_message_part()]}]
                st.since_rewrite = []
                trace.rewrites += 1
            # Every call gets its result, refused or failed: strict APIs reject dangling calls.
            st.messages.append({"role": "tool", "tool_call_id": call.id, "content": content})

    def _one_call(self, call: ToolCall, batch: list[ToolCall], st: _Loop, text: str,
                  trace: TurnTrace) -> tuple[ToolResult, Any]:
        def refuse(message: str, fld: str | None = None) -> ToolResult:
            return ToolResult(tool=call.name, ok=False,
                              error={"type": "refused" if fld is None else "invalid_input", "field": fld,
                                     "message": message})

        family = FAMILY_OF.get(call.name)
        if family is None:
            return refuse(f"unknown tool {call.name!r}; available: {', '.join(AGENT_TOOLS)}", "name"), call.arguments
        try:
            args = json.loads(call.arguments or "{}")
        except json.JSONDecodeError as exc:
            return refuse(f"arguments are not valid JSON ({exc.msg} at char {exc.pos}); send one JSON object",
                          "arguments"), call.arguments
        if not isinstance(args, dict):
            return refuse("arguments must be a JSON object", "arguments"), args
        st.used[family] += 1
        cap = self.limits.per_family.get(family, 0)
        if st.used[family] > cap:
            return refuse(f"limit reached: at most {cap} {family} tool calls per turn; answer with what you have"), args
        if call.name == "context_rewrite" and len(batch) > 1:
            return refuse("call context_rewrite on its own, after the calls it summarizes"), args
        run_args = args
        if call.name == "memory_commit":
            args.setdefault("turn_id", trace.turn_id)
            args.setdefault("message_ids", [f"{trace.turn_id}:user"])
            # what the model commits stands as stated only if the user said it (the tool's check),
            # whatever message the model passed or marks it gave
            run_args = {**args, "user_message": st.said[-MAX_MESSAGE:] if st.said.strip() else None}
        # What a rewrite would replace: the calls and results since [system, user], not its own call.
        replaced = count_tokens(json.dumps(st.messages[2:-1], ensure_ascii=False, default=str)) \
            if call.name == "context_rewrite" else None
        result = call_tool(call.name, self.memory.context(list(st.since_rewrite), replaced), run_args)
        if call.name == "memory_commit" and result.ok and result.result is not None:
            trace.warnings += result.result.get("warnings") or []
        if call.name != "context_rewrite":
            st.since_rewrite.append(call.name)
        if result.ok and result.result is not None:
            self._note_write(call.name, args, result.result, trace)
        return result, args

    def _checked(self, said: str, s: Statement) -> Statement:
        """A model-extracted statement, marked as a guess unless the user said it."""
        if s.stated and speculation_reason(s.subject, s.relation, s.object, said, self.memory.scope.user_id):
            return Statement(s.relation, s.object, stated=False, subject=s.subject)
        return s

    @staticmethod
    def _note_write(name: str, args: dict[str, Any], result: dict[str, Any], trace: TurnTrace) -> None:
        w = trace.written
        if name == "memory_commit":
            w["facts"] += [*result.get("created", []), *result.get("reinforced", [])]
            w["nodes"] += [str(t.get("subject")) for t in args.get("triplets", []) if isinstance(t, dict)]
        elif name == "task_create":
            w["tasks"].append(str(result.get("task_id")))
            w["nodes"] += [str(i) for i in result.get("info_nodes", [])]
        elif name == "task_set_state":
            w["states"].append(f"{result.get('task_id')}: {result.get('previous_state')} → {result.get('state')}")
            if result.get("state") == TaskState.IN_PROGRESS.value:
                trace.resumed.append(str(result.get("task_id")))

    # --- step 4 -----------------------------------------------------------------
    def _record(self, text: str, reply: str, trace: TurnTrace, recalled: Recalled) -> None:
        """Record the turn in the chain and write what the user stated, whatever the model
        did, in one transaction; then queue it for the model's summary and extraction."""
        ctx = self.memory.context()
        created, resumed = trace.written["tasks"], trace.resumed
        topic: str | None = (created or resumed)[-1] if created or resumed else None
        if topic is None:
            running = list_tasks(ctx, 1, TaskState.IN_PROGRESS)
            topic = running[0].task_id if running else None
        rec = TurnRecord(turn_id=trace.turn_id, session=self.session, user=text, reply=reply, at=self.memory.clock(),
                         topic=topic, touched=trace.written["nodes"], pending=self.post is not None)
        with writing(self.memory):  # the record is all or nothing
            trace.record_task = record_turn(self.memory, rec)
            if self.extract != "off":
                said = _said(text, recalled)
                stated = [self._checked(said, s) for s in rule_statements(text)]
                written = write_statements(self.memory, stated, turn_id=trace.turn_id,
                                           message_ids=rec.message_ids[:1], source="rule-extract", session=self.session)
                trace.extracted = [f.render() for f in written]
        trace.written["episodes"] += rec.episodes
        trace.written["tasks"].append(trace.record_task)
        trace.task = topic
        if self.post is not None:
            self.post.submit(trace.record_task)


def _said(text: str, recalled: Recalled) -> str:
    """What the user said that a claim may rest on: this message and their latest ones."""
    mine = [t.split(": ", 1)[1] for t in recalled.last_turns if t.startswith("user: ")]
    return "\n".join([*mine, text])


@dataclass
class _Loop:
    messages: list[Message]
    used: Counter[str] = field(default_factory=Counter)
    since_rewrite: list[str] = field(default_factory=list)
    said: str = ""  # this message and the user's latest ones: what a stated fact may rest on
    llm_ms: float = 0.0
    tools_ms: float = 0.0


def _recalled_summary(r: Recalled) -> dict[str, Any]:
    return {"persona": r.persona, "tasks": [f"{t.task_id} [{t.state}]" for t in r.tasks],
            "chain": [t.task_id for t in r.chain], "task_info": r.task_info, "last_turns": r.last_turns,
            "previous_session": r.previous_session, "memories": r.memories,
            "history_reference": r.history_reference, "tokens": r.tokens}


__all__ = ["AGENT_TOOLS", "Agent", "Limits", "ToolTrace", "TurnResult", "TurnTrace"]
