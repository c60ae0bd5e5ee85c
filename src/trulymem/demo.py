"""The seed's idiom-chain example, replayed through the real tool layer.

Three turns — start the game (为所欲为 → 为虎作伥), an interruption about Nagato
Yuki, then the resume — each following the per-turn protocol: recall the
persona, recall the task chain, act, record the turn. Every step is a real tool
call against a real database; the replies quote what was recalled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from trulymem.errors import TrulyMemError
from trulymem.graph import TrulyMem

PERSONA_INTENT = "AI,persona,role,character,tone,speaking_style"
CHAIN_INTENT = "TaskNode,working_memory,task_chain"


@dataclass
class Step:
    tool: str
    args: dict[str, Any]
    result: dict[str, Any]


@dataclass
class Turn:
    user: str
    steps: list[Step] = field(default_factory=list)
    reply: str = ""


def run_demo(mem: TrulyMem, emit: Callable[[str], None] = lambda _: None) -> list[Turn]:
    turns: list[Turn] = []

    def call(turn: Turn, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        res = mem.call(tool, args)
        if not res.ok:
            raise TrulyMemError(f"demo step {tool} failed: {res.error}")
        assert res.result is not None
        turn.steps.append(Step(tool, args, res.result))
        emit(f"  → {tool}({_brief(args)})")
        for line in _describe(tool, res.result):
            emit(f"      {line}")
        return res.result

    def begin(user: str) -> Turn:
        turn = Turn(user)
        turns.append(turn)
        emit("")
        emit(f"User: {user}")
        call(turn, "memory_recall", {"query_intent": PERSONA_INTENT, "depth": 2})
        return turn

    def finish(turn: Turn, reply: str) -> None:
        turn.reply = reply
        emit(f"AI: {reply}")

    emit("Setting the persona once: a catgirl who ends sentences with ~")
    mem.persona_set({"role": "catgirl", "character": "cheerful", "tone": "playful", "speaking_style": "ends sentences with ~"})

    # Turn 1: the user starts the game.
    t = begin("Let's play idiom chain! I'll start: 为所欲为")
    call(t, "memory_recall", {"query_intent": CHAIN_INTENT, "depth": 2})
    call(t, "memory_commit", {"triplets": [
        {"subject": "idiom_chain_current", "relation": "content", "object": "为所欲为", "type": "session_state"},
        {"subject": "idiom_chain_current", "relation": "game", "object": "idiom_chain", "type": "session_state"},
    ]})
    call(t, "task_create", {"task_id": "Task_idiom_chain", "description": "Idiom chain game, current: 为所欲为",
                            "info_nodes": ["idiom_chain_current"]})
    # The AI's move becomes the current idiom; the user's stays in history.
    call(t, "memory_purge", {"criteria": {"subject": "idiom_chain_current", "relation": "content"},
                             "mode": "supersede", "replacement": {"object": "为虎作伥"}})
    finish(t, "Okay~! My turn: 为虎作伥 ~!")

    # Turn 2: the topic is interrupted.
    t = begin("Nagato Yuki")
    chain = call(t, "memory_recall", {"query_intent": CHAIN_INTENT, "depth": 2})
    active = [f["subject"] for f in chain["facts"] if f["relation"] == "HAS_STATE" and f["object"] == "in_progress"]
    for task in active:
        call(t, "task_set_state", {"task_id": task, "state": "paused"})
    call(t, "task_create", {"task_id": "Task_nagato_yuki", "description": "Discuss Nagato Yuki"})
    finish(t, "Nagato Yuki~! The quiet bookworm of the SOS Brigade, she reads all day ~")

    # Turn 3: "just now" — the user returns to the paused game.
    t = begin("About the idiom chain just now, I don't know how to connect to your idiom, please help me")
    chain = call(t, "memory_recall", {"query_intent": CHAIN_INTENT, "depth": 2})
    paused = [f["subject"] for f in chain["facts"] if f["relation"] == "HAS_STATE" and f["object"] == "paused"]
    active = [f["subject"] for f in chain["facts"] if f["relation"] == "HAS_STATE" and f["object"] == "in_progress"]
    game = next(p for p in paused if "idiom" in p)
    for task in active:  # the interruption is over: pause it, as turn 2 paused the game
        call(t, "task_set_state", {"task_id": task, "state": "paused"})
    call(t, "task_set_state", {"task_id": game, "state": "in_progress"})
    info = call(t, "memory_recall", {"query_intent": "idiom_chain_current", "depth": 1})
    current = next(f["object"] for f in info["facts"] if f["relation"] == "content")
    finish(t, f"Okay~! The last idiom was '{current}', your turn: {current[-1]}鬼害人 ~!")
    return turns


def _brief(args: dict[str, Any]) -> str:
    import json

    text = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    return text if len(text) <= 160 else text[:157] + "..."


def _describe(tool: str, result: dict[str, Any]) -> list[str]:
    if tool == "memory_recall":
        return result["text"].splitlines() or ["(nothing)"]
    if tool == "memory_commit":
        return [f"{f['status']}: {f['text']}" for f in result["facts"]]
    if tool == "memory_purge":
        lines = [f"invalidated: {f['text']}" for f in result["matched"]]
        if result.get("replacement_id"):
            lines.append(f"superseded by fact {result['replacement_id'][:8]}")
        return lines
    if tool == "task_create":
        prev = f", after {result['previous_task']}" if result.get("previous_task") else ""
        return [f"created {result['task_id']} [{result['state']}]{prev}"]
    if tool == "task_set_state":
        return [f"{result['task_id']}: {result['previous_state']} → {result['state']}"]
    return []
