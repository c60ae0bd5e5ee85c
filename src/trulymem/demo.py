"""The seed's idiom-chain example, run through the real agent runtime.

Three turns — start the game (为所欲为 → 为虎作伥), an interruption about Nagato
Yuki, then the resume. The runtime does the protocol in code: it recalls the
persona and the task chain before the model is called and records each turn in
the chain afterwards. The model is scripted (no LLM needed), but it only sees
what memory recalled: turn 3 finds the paused game and the current idiom in the
system context the runtime built, exactly as a real model would.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from trulymem.agent import Agent, TurnTrace
from trulymem.graph import TrulyMem
from trulymem.llm import Message, ScriptedLLM

PERSONA: dict[str, str | list[str]] = {"role": "catgirl", "character": "cheerful", "tone": "playful",
                                       "speaking_style": "ends sentences with ~"}
USER_TURNS = [
    "Let's play idiom chain! I'll start: 为所欲为",
    "Nagato Yuki",
    "About the idiom chain just now, I don't know how to connect to your idiom, please help me",
]


@dataclass
class Step:
    tool: str
    args: Any
    result: dict[str, Any] | None
    ok: bool = True


@dataclass
class Turn:
    user: str
    steps: list[Step] = field(default_factory=list)
    reply: str = ""
    trace: TurnTrace | None = None


def _tasks_in(messages: list[Message], state: str) -> list[str]:
    """Task ids in ``state`` as the runtime listed them in the system context."""
    return re.findall(rf"^- (\S+) \[{state}\]", str(messages[0]["content"]), flags=re.M)


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def _turn2(messages: list[Message]) -> dict[str, Any]:
    # A new topic: pause whatever is in progress, start a task for it.
    calls = [_call("task_set_state", task_id=t, state="paused") for t in _tasks_in(messages, "in_progress")]
    return {"tool_calls": [*calls, _call("task_create", task_id="Task_nagato_yuki", description="Discuss Nagato Yuki")]}


def _turn3(messages: list[Message]) -> dict[str, Any]:
    # "just now": the game is in the recalled chain, paused; resume it, pause the interruption.
    game = next(t for t in _tasks_in(messages, "paused") if "idiom" in t)
    calls = [_call("task_set_state", task_id=t, state="paused") for t in _tasks_in(messages, "in_progress")]
    return {"tool_calls": [*calls, _call("task_set_state", task_id=game, state="in_progress")]}


def _reply3(messages: list[Message]) -> str:
    found = re.search(r"idiom_chain_current: content (\S+)", str(messages[0]["content"]))
    if not found:
        return "Nya… I can't find our game in my memory ~"
    idiom = found.group(1)
    return f"Okay~! The last idiom was '{idiom}', your turn: {idiom[-1]}鬼害人 ~!"


SCRIPT: list[Any] = [
    {"tool_calls": [
        _call("memory_commit", triplets=[
            {"subject": "idiom_chain_current", "relation": "content", "object": "为所欲为", "type": "session_state"},
            {"subject": "idiom_chain_current", "relation": "game", "object": "idiom_chain", "type": "session_state"}]),
        _call("task_create", task_id="Task_idiom_chain", description="Idiom chain game, current: 为所欲为",
              info_nodes=["idiom_chain_current"]),
        # The AI's move becomes the current idiom; the user's stays in history.
        _call("memory_purge", criteria={"subject": "idiom_chain_current", "relation": "content"},
              mode="supersede", replacement={"object": "为虎作伥"}),
    ]},
    "Okay~! My turn: 为虎作伥 ~!",
    _turn2,
    "Nagato Yuki~! The quiet bookworm of the SOS Brigade, she reads all day ~",
    _turn3,
    _reply3,
]


def run_demo(mem: TrulyMem, emit: Callable[[str], None] = lambda _: None) -> list[Turn]:
    emit("A catgirl persona is given once; the model below is scripted, the memory is real.")
    # The script answers chat turns only: stated facts are extracted by rules, not by a model call.
    agent = Agent(mem, ScriptedLLM(list(SCRIPT)), persona=PERSONA, session_id="demo", extract="rules")
    turns: list[Turn] = []
    for text in USER_TURNS:
        emit("")
        emit(f"User: {text}")
        res = agent.turn(text)
        t = res.trace
        turn = Turn(text, [Step(x.name, x.arguments, x.result if x.ok else x.error, x.ok) for x in t.tools],
                    res.reply, t)
        turns.append(turn)
        r = t.recalled
        emit("  ⋯ in code, before the model: persona " + ", ".join(f"{k}={v}" for k, v in r["persona"].items()))
        emit("  ⋯ in code, before the model: chain " + (" · ".join(r["tasks"]) or "(empty)")
             + (f"  (deep recall: {r['history_reference']!r})" if r["history_reference"] else ""))
        for lines in r["task_info"].values():
            for line in lines:
                emit(f"      {line}")
        for step in turn.steps:
            emit(f"  → {step.tool}({_brief(step.args)})")
            for line in _describe(step.tool, step.result or {}):
                emit(f"      {line}")
        emit(f"AI: {res.reply}")
        topic = f" (topic {t.task})" if t.task else ""
        emit(f"  ⋯ in code, after the reply: turn recorded as {t.record_task}{topic} in the chain "
             f"({t.llm_calls} model call{'s' if t.llm_calls != 1 else ''}, memory {t.latency_ms['memory']:.0f} ms)")
        for fact in t.extracted:
            emit(f"      stated by the user, stored by the runtime: {fact}")
    return turns


def _brief(args: Any) -> str:
    text = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items()) \
        if isinstance(args, dict) else str(args)
    return text if len(text) <= 160 else text[:157] + "..."


def _describe(tool: str, result: dict[str, Any]) -> list[str]:
    if tool == "memory_commit":
        return [f"{f['status']}: {f['text']}" for f in result.get("facts", [])]
    if tool == "memory_purge":
        lines = [f"invalidated: {f['text']}" for f in result.get("matched", [])]
        if result.get("replacement_id"):
            lines.append(f"superseded by fact {result['replacement_id'][:8]}")
        return lines
    if tool == "task_create":
        prev = f", after {result['previous_task']}" if result.get("previous_task") else ""
        return [f"created {result['task_id']} [{result['state']}]{prev}"]
    if tool == "task_set_state":
        return [f"{result['task_id']}: {result['previous_state']} → {result['state']}"]
    if "message" in result:
        return [f"error: {result['message']}"]
    return []
