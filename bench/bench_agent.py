"""Agent runtime benchmark: a 50-turn scripted conversation.

Prints, per run and as medians over runs:
- model round trips per turn (the seed's prompt-driven protocol needs at least
  3: persona recall, chain recall, answer; here 1 when the model needs no tool),
- prompt tokens per turn as the conversation grows, beside what a growing
  messages array would have cost,
- memory overhead per turn, excluding the model (recall before, tools during,
  recording after): p50 / p95.

The model is :class:`ScriptedLLM` in-process (no network, no sleeping), so the
times are the runtime's own. ``--http`` puts the local scripted OpenAI-compatible
server and the real ``openai`` client in between instead.

    python bench/bench_agent.py [--turns 50] [--runs 3] [--http] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from trulymem import TrulyMem
from trulymem.agent import Agent
from trulymem.llm import LLM, ScriptedLLM, estimate_tokens

TOPICS = ["jazz", "hiking", "Lisbon", "sourdough", "chess", "Rust", "gardening", "Kyoto", "cycling", "poetry"]


def conversation(turns: int) -> tuple[list[str], list[Any]]:
    """User messages and the model's script: a fact every 5th turn, a topic switch
    every 10th, a history question every 7th, plain replies otherwise."""
    users: list[str] = []
    steps: list[Any] = []
    for i in range(turns):
        topic = TOPICS[(i // 10) % len(TOPICS)]
        if i % 10 == 0:
            users.append(f"Let's talk about {topic}.")
            calls = []
            if i:
                calls.append({"name": "task_set_state", "arguments": {"task_id": f"Task_{TOPICS[(i // 10 - 1) % 10]}",
                                                                       "state": "paused"}})
            calls.append({"name": "task_create", "arguments": {"task_id": f"Task_{topic}",
                                                               "description": f"Talk about {topic}"}})
            steps += [{"tool_calls": calls}, f"Sure, {topic} it is."]
        elif i % 5 == 0:
            users.append(f"I really like {topic} on weekends, number {i}.")
            steps += [{"tool_calls": [{"name": "memory_commit", "arguments": {"triplets": [
                {"subject": "user", "relation": "likes", "object": f"{topic} on weekends {i}"}]}}]}, "Noted!"]
        elif i % 7 == 0:
            users.append("What did we talk about just now?")
            steps.append("We were talking about " + topic + ".")
        else:
            users.append(f"Tell me something about {topic}, part {i}.")
            steps.append(f"Here is a thought about {topic} number {i}: it rewards patience and practice.")
    return users, steps


def run_once(turns: int, http: bool) -> dict[str, Any]:
    users, steps = conversation(turns)
    with tempfile.TemporaryDirectory() as tmp, TrulyMem(Path(tmp) / "agent.db", user_id="bench") as mem:
        server = None
        llm: LLM
        if http:
            from trulymem.llm.openai_chat import OpenAIChat
            from trulymem.llm.scripted_server import ScriptedServer

            server = ScriptedServer(steps, model="m", api_key="k").start()
            llm = OpenAIChat("m", base_url=server.base_url, api_key="k")
        else:
            llm = ScriptedLLM(steps)
        agent = Agent(mem, llm, persona={"role": "helpful guide", "tone": "warm"}, extract="rules")
        rows = []
        history: list[dict[str, Any]] = []  # what a messages-array agent would send
        try:
            for text in users:
                res = agent.turn(text)
                history += [{"role": "user", "content": text}, {"role": "assistant", "content": res.reply}]
                t = res.trace
                rows.append({"llm_calls": t.llm_calls, "tools": len(t.tools), "prompt_tokens": t.prompt_tokens[0],
                             "context_tokens": t.recalled["tokens"],
                             "history_tokens": estimate_tokens(history),
                             "memory_ms": t.latency_ms["memory"], "recall_ms": t.latency_ms["recall"],
                             "record_ms": t.latency_ms["record"]})
        finally:
            if server:
                server.stop()
    no_tool = [r["llm_calls"] for r in rows if r["tools"] == 0]
    mem_ms = sorted(r["memory_ms"] for r in rows)
    return {
        "round_trips_per_turn": statistics.mean(r["llm_calls"] for r in rows),
        "round_trips_no_tool_turns": statistics.mean(no_tool) if no_tool else None,
        "prompt_tokens_max": max(r["prompt_tokens"] for r in rows),
        "prompt_tokens_at": {n: rows[n - 1]["prompt_tokens"] for n in (1, 10, 25, 50) if n <= len(rows)},
        "context_tokens_at": {n: rows[n - 1]["context_tokens"] for n in (1, 10, 25, 50) if n <= len(rows)},
        "history_tokens_last": rows[-1]["history_tokens"],
        "memory_ms_p50": statistics.median(mem_ms),
        "memory_ms_p95": mem_ms[max(0, int(round(0.95 * len(mem_ms))) - 1)],
        "recall_ms_median": statistics.median(r["recall_ms"] for r in rows),
        "record_ms_median": statistics.median(r["record_ms"] for r in rows),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=50)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--http", action="store_true", help="Through the openai client and a local scripted server.")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.turns < 1 or args.runs < 1:
        ap.error("--turns and --runs must be at least 1")
    runs = [run_once(args.turns, args.http) for _ in range(args.runs)]
    summary = {
        "turns": args.turns, "runs": args.runs, "transport": "http+openai" if args.http else "in-process",
        "round_trips_per_turn": round(statistics.median(r["round_trips_per_turn"] for r in runs), 2),
        "round_trips_no_tool_turns": runs[0]["round_trips_no_tool_turns"],
        "seed_protocol_round_trips_min": 3,
        "prompt_tokens_at_turn": runs[0]["prompt_tokens_at"],
        "memory_context_tokens_at_turn": runs[0]["context_tokens_at"],
        "prompt_tokens_max": max(r["prompt_tokens_max"] for r in runs),
        "messages_array_history_tokens_at_last_turn": runs[0]["history_tokens_last"],
        "memory_ms_p50": round(statistics.median(r["memory_ms_p50"] for r in runs), 2),
        "memory_ms_p95": round(statistics.median(r["memory_ms_p95"] for r in runs), 2),
        "memory_ms_p95_runs": [round(r["memory_ms_p95"], 2) for r in runs],
        "recall_ms_median": round(statistics.median(r["recall_ms_median"] for r in runs), 2),
        "record_ms_median": round(statistics.median(r["record_ms_median"] for r in runs), 2),
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"{args.turns}-turn scripted conversation, {args.runs} runs, {summary['transport']}")
    print(f"  model round trips per turn: {summary['round_trips_per_turn']} "
          f"(turns with no tool: {summary['round_trips_no_tool_turns']}; the seed's protocol: >= 3)")
    at, ctx = summary["prompt_tokens_at_turn"], summary["memory_context_tokens_at_turn"]
    print("  prompt tokens per turn (first call; tool schemas included) at turn "
          + ", ".join(f"{k}: {v}" for k, v in at.items()) + f"; max {summary['prompt_tokens_max']}")
    print("    of which the recalled memory context (system prompt) " + ", ".join(f"{k}: {v}" for k, v in ctx.items())
          + " — bounded by its budget")
    print(f"    a messages array would add the whole history on top: {summary['messages_array_history_tokens_at_last_turn']}"
          f" tokens by turn {args.turns}, growing every turn")
    print(f"  memory overhead per turn (no model): p50 {summary['memory_ms_p50']} ms, "
          f"p95 {summary['memory_ms_p95']} ms (runs {summary['memory_ms_p95_runs']}; target p95 <= 25 ms)")
    print(f"  of which recall (median) {summary['recall_ms_median']} ms, record {summary['record_ms_median']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
