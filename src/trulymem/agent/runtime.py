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
from typing import Any

from pydantic import BaseModel, Field

from trulymem.agent.context import DEFAULT_IDENTITY, ContextBudget, Recalled, about_user, recall_context, stated_by, system_prompt
from trulymem.errors import InvalidInput
from trulymem.graph import TrulyMem
from trulymem.llm.base import LLM, LLMResponse, Message, OnText, ToolCall
from trulymem.model import EdgeKind, TaskState, new_id
from trulymem.tools.base import ToolResult, call_tool, get_tool
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
    return {"facts": [], "tasks": [], "states": [], "episodes": []}


class TurnTrace(BaseModel):
    """Everything a turn did, for logs, the CLI and UIs."""

    turn_id: str
    user: str
    reply: str = ""
    llm_calls: int = 0
    tools: list[ToolTrace] = Field(default_factory=list)
    recalled: dict[str, Any] = Field(default_factory=dict)
    written: dict[str, list[str]] = Field(default_factory=_empty_written)
    task: str | None = Field(None, description="The task this turn was recorded under.")
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
                 limits: Limits | None = None, budget: ContextBudget | None = None) -> None:
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
        self.tools = [get_tool(name).openai_schema() for name in AGENT_TOOLS]

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
        state = _Loop(messages=messages)
        reply = self._loop(state, text, trace, on_text)
        t_rec = time.perf_counter()
        self._record(text, reply, trace)
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
        if call.name == "memory_commit":
            args = self._mark_speculation(args, text, trace)
            args.setdefault("turn_id", trace.turn_id)
        result = call_tool(call.name, self.memory.context(list(st.since_rewrite)), args)
        if call.name != "context_rewrite":
            st.since_rewrite.append(call.name)
        if result.ok and result.result is not None:
            self._note_write(call.name, args, result.result, trace)
        return result, args

    def _mark_speculation(self, args: dict[str, Any], text: str, trace: TurnTrace) -> dict[str, Any]:
        """A fact about the user that the user did not state is stored as speculation,
        unless the model explicitly says otherwise."""
        triplets = args.get("triplets")
        if not isinstance(triplets, list):
            return args
        marked = []
        for t in triplets:
            if isinstance(t, dict) and "speculation" not in t and isinstance(t.get("subject"), str) \
                    and about_user(t["subject"], self.memory.scope.user_id) \
                    and not stated_by(text, str(t.get("object", ""))):
                t = {**t, "speculation": True}
                trace.warnings.append(f"stored as speculation (not stated by the user): "
                                      f"{t['subject']} {t.get('relation')} {t.get('object')}")
            marked.append(t)
        return {**args, "triplets": marked}

    @staticmethod
    def _note_write(name: str, args: dict[str, Any], result: dict[str, Any], trace: TurnTrace) -> None:
        w = trace.written
        if name == "memory_commit":
            w["facts"] += [*result.get("created", []), *result.get("reinforced", [])]
        elif name == "task_create":
            w["tasks"].append(str(result.get("task_id")))
        elif name == "task_set_state":
            w["states"].append(f"{result.get('task_id')}: {result.get('previous_state')} → {result.get('state')}")
            if result.get("state") == TaskState.IN_PROGRESS.value:
                trace.resumed.append(str(result.get("task_id")))

    # --- step 4 -----------------------------------------------------------------
    def _record(self, text: str, reply: str, trace: TurnTrace) -> None:
        """Record the turn under a task, whatever the model did: the task it created this
        turn, else the one it resumed, else the newest in progress, else a new one."""
        ctx = self.memory.context()
        created = list(trace.written["tasks"])
        resumed = trace.resumed
        task: str | None = (created or resumed)[-1] if created or resumed else None
        if task is None:
            running = list_tasks(ctx, 1, TaskState.IN_PROGRESS)
            task = running[0].task_id if running else None
        now = self.memory.clock()
        msgs = [{"speaker": "user", "text": text, "id": f"{trace.turn_id}:user", "session": self.session,
                 "timestamp": now.isoformat()}]
        if reply:
            msgs.append({"speaker": "AI", "text": reply, "id": f"{trace.turn_id}:AI", "session": self.session,
                         "timestamp": now.isoformat()})
        with self.memory.store.transaction():  # the record is all or nothing
            if task is None:
                task = f"Task_{trace.turn_id}"
                first = " ".join(text.split())
                self.memory.task_create(task, first[:200] + ("…" if len(first) > 200 else ""))
                trace.written["tasks"].append(task)
            self.memory.run("memory_ingest", {"messages": msgs})
            self.memory.commit([{"subject": task, "relation": EdgeKind.CONTAINS_INFO.value, "object": m["id"]}
                                for m in msgs], turn_id=trace.turn_id)
        trace.written["episodes"] += [m["id"] for m in msgs]
        trace.task = task


@dataclass
class _Loop:
    messages: list[Message]
    used: Counter[str] = field(default_factory=Counter)
    since_rewrite: list[str] = field(default_factory=list)
    llm_ms: float = 0.0
    tools_ms: float = 0.0


def _recalled_summary(r: Recalled) -> dict[str, Any]:
    return {"persona": r.persona, "tasks": [f"{t.task_id} [{t.state}]" for t in r.tasks],
            "task_info": r.task_info, "last_turns": r.last_turns, "memories": r.memories,
            "history_reference": r.history_reference, "tokens": r.tokens}


__all__ = ["AGENT_TOOLS", "Agent", "Limits", "ToolTrace", "TurnResult", "TurnTrace"]
