"""Memory-agent evaluation against any OpenAI-compatible chat endpoint.

Runs the multi-session conversations of ``bench/agent_eval/*.json`` (English and
Chinese; sessions on different days, one Agent per session on one database) and
scores what the seed's memory design asks for: the per-turn protocol (persona
and task chain recalled before the model, the turn recorded in the chain), the
must-write facts, corrections and negations, guesses stored as speculation,
memory questions ("last time", "just now", 上次, 之前) answered — plus tokens,
model round trips and memory overhead per turn.

    python bench/bench_agent_llm.py --base-url URL --model M [--api-key K] [--runs N] [--json] [--lang en|zh|all]
    python bench/bench_agent_llm.py --scripted    # the local scripted server, real HTTP + openai client

The endpoint can also come from TRULYMEM_LLM_BASE_URL / TRULYMEM_LLM_MODEL /
TRULYMEM_LLM_API_KEY (or OPENAI_BASE_URL / OPENAI_API_KEY, or the config file).
Figures are medians over --runs (default 1 for a real model, 3 scripted).
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import statistics
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from agent_eval_lib import FIXTURE_DIR, Conversation, MemoryView, SimClock, Turn, load_conversations, scripted_policy, show

from trulymem import TrulyMem
from trulymem.agent import Agent
from trulymem.agent import context as agent_context
from trulymem.config import Settings
from trulymem.errors import ConfigError, LLMError, TrulyMemError
from trulymem.llm import LLM, Script, get_llm

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # session n starts at 09:00 on day n
NO_ENDPOINT = ("set an endpoint: --base-url/--model (and --api-key), or TRULYMEM_LLM_BASE_URL / TRULYMEM_LLM_MODEL / "
               "TRULYMEM_LLM_API_KEY (OPENAI_BASE_URL / OPENAI_API_KEY also work); or --scripted for the local "
               "scripted model")
SETUP_FIELDS = {"api_key", "model", "base_url"}


@dataclass
class Check:
    kind: str  # persona, chain, recorded, must_write, correction, negation, guess, answer, question
    ok: bool
    where: str
    detail: str = ""
    matched: int = 0  # guesses: stored facts matching it


@dataclass
class TurnRecord:
    where: str
    user: str
    reply: str = ""
    turn_id: str | None = None
    error: str | None = None
    llm_calls: int = 0
    tools: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    memory_ms: float | None = None
    record_task: str | None = None
    checks: list[Check] = field(default_factory=list)


@dataclass
class ConvRun:
    lang: str
    turns: list[TurnRecord]
    wall_s: float


@dataclass(frozen=True)
class Options:
    embedder: str = "hashing"
    extract: str | None = None
    verbose: bool = False


class SetupError(Exception):
    """The endpoint refused the first turn: nothing to evaluate."""


# --- running ------------------------------------------------------------------
def agent_kwargs(extract: str | None) -> dict[str, Any]:
    """``extract=`` if this runtime's Agent takes it."""
    if extract and "extract" in inspect.signature(Agent).parameters:
        return {"extract": extract}
    return {}


def run_turn(agent: Agent, mem: TrulyMem, conv: Conversation, turn: Turn, where: str, opts: Options,
             first: bool = False) -> TurnRecord:
    """One turn and the checks that need only its trace (``first``: a setup error ends the eval)."""
    rec = TurnRecord(where=where, user=turn.user)
    head = [t.task_id for t in mem.task_list(limit=1).tasks]  # the chain's newest task before the turn
    try:
        res = agent.turn(turn.user)
    except LLMError as exc:
        if first and exc.field in SETUP_FIELDS:
            raise SetupError(str(exc)) from exc
        rec.error = f"LLMError: {exc}"
    except Exception as exc:  # a runtime failure is a result here, not the end of the eval
        rec.error = f"{type(exc).__name__}: {exc}"
        if opts.verbose:
            traceback.print_exc()
    if rec.error is None:
        t = res.trace
        rec.reply, rec.turn_id = res.reply, t.turn_id
        rec.llm_calls, rec.tools = t.llm_calls, len(t.tools)
        rec.tokens_in, rec.tokens_out = t.tokens_in, t.tokens_out
        rec.memory_ms = t.latency_ms.get("memory")
        rec.record_task = getattr(t, "record_task", None)
        persona = t.recalled.get("persona") or {}
        rec.checks.append(Check("persona", set(conv.persona) <= set(persona), where, f"recalled {persona}"))
        # "chain" (every entry) where the runtime has it, else "tasks" ("Task_x [state]")
        shown = [str(x).split(" [")[0] for x in [*t.recalled.get("chain", []), *t.recalled.get("tasks", [])]]
        rec.checks.append(Check("chain", not head or head[0] in shown, where,
                                f"newest task {head[0] if head else None} not among recalled {shown[:6]}"))
    else:
        rec.checks += [Check("persona", False, where, rec.error), Check("chain", False, where, rec.error)]
    if turn.answer_contains:
        ok = any(s.casefold() in rec.reply.casefold() for s in turn.answer_contains)
        rec.checks.append(Check("answer", ok, where, f"wanted any of {turn.answer_contains}; got {rec.reply[:300]!r}"))
    if opts.verbose:
        print(f"[{where}] {turn.user!r} -> {rec.reply[:160]!r} ({rec.llm_calls} calls, {rec.tools} tools, "
              f"recorded under {rec.record_task})"
              + (f" ERROR {rec.error}" if rec.error else ""), file=sys.stderr)
    return rec


def score_memory(turn: Turn, rec: TurnRecord, view: MemoryView) -> None:
    """The turn's memory expectations against what memory holds at the end of its session."""
    w = rec.where
    rec.checks.append(Check("recorded", rec.record_task is not None and rec.record_task in view.tasks, w,
                            f"record task {rec.record_task!r}"))
    for p in turn.must_write:
        found = view.current(p)
        near = [show(f) for f in view.any_version(p)]
        rec.checks.append(Check("must_write", bool(found), w, f"{p.describe()}: "
                                + (show(found[0]) if found else f"missing; similar: {near or 'none'}")))
    for p in turn.must_not_current:
        cur, old = view.current(p), view.replaced(p)
        why = (f"still current: {show(cur[0])}" if cur else "") + ("" if old else " not in history")
        rec.checks.append(Check("correction", not cur and bool(old), w, f"{p.describe()}: {why.strip() or 'ok'}"))
    for p in turn.must_not_write:
        cur = view.current(p)
        rec.checks.append(Check("negation", not cur, w, f"{p.describe()}: " + (show(cur[0]) if cur else "ok")))
    for g in turn.guess:
        found = view.any_version(g.pattern())
        plain = [f for f in found if not f.speculation]
        rec.checks.append(Check("guess", not plain, w, f"guess {g.relation} {g.object}: "
                                + (f"stored unmarked: {show(plain[0])}" if plain else f"{len(found)} stored, marked"),
                                matched=len(found)))
    if turn.answer_contains:  # a question states nothing about the user
        said = [f for f in view.facts if rec.turn_id and f.turn_id == rec.turn_id and not f.speculation
                and rec.turn_id not in (f.object or "")]  # the turn's own message links aside
        rec.checks.append(Check("question", not said, w, f"a question stored {[show(f) for f in said]}"))


def run_conversation(conv: Conversation, llm: LLM, opts: Options, first: bool = False) -> ConvRun:
    """Each session on its day, with its own Agent on one database; memory scored after each."""
    records: list[TurnRecord] = []
    clock = SimClock(START)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="trulymem-eval-") as tmp:
        db = Path(tmp) / "eval.db"
        for n, s in enumerate(conv.sessions):
            clock.jump_to(START + timedelta(days=s.day))
            mem = TrulyMem(db, user_id=conv.user_id, clock=clock, embedder=opts.embedder)
            try:
                agent = Agent(mem, llm, persona=dict(conv.persona), session_id=s.id, **agent_kwargs(opts.extract))
                session = [run_turn(agent, mem, conv, t, f"{conv.lang} {s.id} t{i + 1}", opts, first and n == i == 0)
                           for i, t in enumerate(s.turns)]
                for name in ("flush", "close"):  # background post-turn work done, then stopped
                    done = getattr(agent, name, None)
                    if callable(done):
                        done()
            finally:
                mem.close()
            with TrulyMem(db, user_id=conv.user_id, clock=clock, embedder=opts.embedder) as fresh:
                view = MemoryView(fresh, conv.user_id)
            for turn, rec in zip(s.turns, session):
                score_memory(turn, rec, view)
            records += session
            if opts.verbose:
                facts = [show(f) for f in view.facts if f.relation != "said"]  # not the turn-record links
                print(f"[{conv.lang} {s.id}] facts about the user: " + "; ".join(facts), file=sys.stderr)
    return ConvRun(conv.lang, records, time.perf_counter() - t0)


@contextmanager
def model_for(conv: Conversation, llm: LLM | None) -> Iterator[LLM]:
    """The given model, or a scripted one behind a local OpenAI-compatible server."""
    if llm is not None:
        yield llm
        return
    from trulymem.llm.openai_chat import OpenAIChat
    from trulymem.llm.scripted_server import ScriptedServer

    policy = scripted_policy(conv, getattr(agent_context, "RULES", ""))
    steps = [policy] * (4 * len(conv.turns()) + 50)  # one per request; the policy finds its turn itself
    with ScriptedServer(Script(steps), model="scripted-eval", api_key="eval-key") as srv:
        yield OpenAIChat("scripted-eval", base_url=srv.base_url, api_key="eval-key", timeout=30, max_retries=0)


# --- scoring ------------------------------------------------------------------
def pct(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile."""
    if not values:
        return None
    s = sorted(values)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def summarize(runs: list[ConvRun]) -> dict[str, Any]:
    """One run's figures over the given conversations."""
    recs = [r for c in runs for r in c.turns]
    checks = [c for r in recs for c in r.checks]

    def count(kind: str) -> dict[str, int]:
        mine = [c for c in checks if c.kind == kind]
        return {"ok": sum(c.ok for c in mine), "total": len(mine)}

    ran = [r for r in recs if r.error is None]
    no_tool = [r for r in ran if r.tools == 0]
    guesses = [c for c in checks if c.kind == "guess"]
    steps = ("persona", "chain", "recorded")
    return {
        "turns": len(recs),
        "errors": len(recs) - len(ran),
        "protocol": {**{k: count(k) for k in steps},
                     "all_steps": {"ok": sum(all(c.ok for c in r.checks if c.kind in steps) for r in recs),
                                   "total": len(recs)}},
        "must_write": count("must_write"),
        "corrections": count("correction"),
        "negations": count("negation"),
        "speculation": {"guesses": len(guesses), "stored": sum(c.matched > 0 for c in guesses),
                        "unmarked": sum(not c.ok for c in guesses)},
        "answers": count("answer"),
        "questions_clean": count("question"),
        "prompt_tokens": {"p50": pct([r.tokens_in for r in ran], 0.5), "p95": pct([r.tokens_in for r in ran], 0.95)},
        "completion_tokens": {"p50": pct([r.tokens_out for r in ran], 0.5),
                              "p95": pct([r.tokens_out for r in ran], 0.95)},
        "round_trips": {"p50": pct([r.llm_calls for r in ran], 0.5), "no_tool_turns": len(no_tool),
                        "no_tool_one_trip": sum(r.llm_calls == 1 for r in no_tool),
                        "no_tool_one_trip_share": (round(sum(r.llm_calls == 1 for r in no_tool) / len(no_tool), 3)
                                                   if no_tool else None)},
        "memory_ms": {"p50": pct([r.memory_ms for r in ran if r.memory_ms is not None], 0.5),
                      "p95": pct([r.memory_ms for r in ran if r.memory_ms is not None], 0.95)},
        "wall_s": round(sum(c.wall_s for c in runs), 2),
    }


def median_tree(trees: list[Any]) -> Any:
    """The median of every numeric leaf across runs (same shapes)."""
    first = trees[0]
    if isinstance(first, dict):
        return {k: median_tree([t[k] for t in trees]) for k in first}
    nums = [t for t in trees if isinstance(t, int | float)]
    if not nums:
        return first
    m = statistics.median(nums)
    return int(m) if all(isinstance(t, int) for t in nums) and m == int(m) else round(m, 2)


def run_all(convs: list[Conversation], llm: LLM | None, runs: int, opts: Options) -> list[list[ConvRun]]:
    """Every conversation ``runs`` times, a fresh database each time (``llm`` None: scripted)."""
    all_runs: list[list[ConvRun]] = []
    for r in range(runs):
        one: list[ConvRun] = []
        for conv in convs:
            with model_for(conv, llm) as model:
                one.append(run_conversation(conv, model, opts, first=r == 0 and not one))
            print(f"  {conv.lang}: {len(one[-1].turns)} turns in {one[-1].wall_s:.1f} s", file=sys.stderr)
        all_runs.append(one)
    return all_runs


def build_report(all_runs: list[list[ConvRun]]) -> dict[str, Any]:
    """Medians over runs per language and overall; the failed checks of the first run."""
    langs = [c.lang for c in all_runs[0]]
    groups = {lang: [lang] for lang in langs} | ({"all": langs} if len(langs) > 1 else {})
    results = {name: median_tree([summarize([c for c in one if c.lang in members]) for one in all_runs])
               for name, members in groups.items()}
    failures = [f"{c.where} {c.kind}: {c.detail}" for c0 in all_runs[0] for r in c0.turns for c in r.checks
                if not c.ok]
    return {"runs": len(all_runs), "langs": langs, "results": results, "failures": failures,
            "wall_s": round(sum(c.wall_s for one in all_runs for c in one), 2)}


# --- the report -------------------------------------------------------------------
def _frac(d: dict[str, int]) -> str:
    return f"{d['ok']}/{d['total']}"


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:g}"


ROWS: list[tuple[str, Any]] = [
    ("turns (errors)", lambda r: f"{r['turns']} ({r['errors']})"),
    ("protocol: persona recalled first", lambda r: _frac(r["protocol"]["persona"])),
    ("protocol: task chain recalled first", lambda r: _frac(r["protocol"]["chain"])),
    ("protocol: turn recorded in chain", lambda r: _frac(r["protocol"]["recorded"])),
    ("protocol: all steps", lambda r: _frac(r["protocol"]["all_steps"])),
    ("must-write facts current", lambda r: _frac(r["must_write"])),
    ("corrections applied", lambda r: _frac(r["corrections"])),
    ("negations not stored as positive", lambda r: _frac(r["negations"])),
    ("guesses stored unmarked (target 0)", lambda r: f"{r['speculation']['unmarked']} of {r['speculation']['guesses']}"),
    ("memory questions answered", lambda r: _frac(r["answers"])),
    ("memory questions that stored no fact", lambda r: _frac(r["questions_clean"])),
    ("prompt tokens/turn p50 / p95", lambda r: f"{_num(r['prompt_tokens']['p50'])} / {_num(r['prompt_tokens']['p95'])}"),
    ("completion tokens/turn p50 / p95",
     lambda r: f"{_num(r['completion_tokens']['p50'])} / {_num(r['completion_tokens']['p95'])}"),
    ("round trips/turn p50", lambda r: _num(r["round_trips"]["p50"])),
    ("no-tool turns in 1 round trip", lambda r: f"{r['round_trips']['no_tool_one_trip']}/{r['round_trips']['no_tool_turns']}"),
    ("memory ms/turn p50 / p95", lambda r: f"{_num(r['memory_ms']['p50'])} / {_num(r['memory_ms']['p95'])}"),
    ("wall s", lambda r: _num(r["wall_s"])),
]


def render(report: dict[str, Any]) -> str:
    res = report["results"]
    cols = list(res)
    lines = [f"memory-agent eval: model {report['model']} at {report['base_url']}"
             f"{' (scripted)' if report['scripted'] else ''}; {report['runs']} run(s), medians; "
             f"extract={report['extract'] or 'default'}",
             f"{'':38}" + "".join(f"{c:>14}" for c in cols)]
    lines += [f"{label:38}" + "".join(f"{fn(res[c]):>14}" for c in cols) for label, fn in ROWS]
    lines.append(f"total wall time {report['wall_s']} s")
    if report["failures"]:
        lines.append(f"\nfailed checks (run 1): {len(report['failures'])}")
        lines += [f"  {f}" for f in report["failures"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1")
    ap.add_argument("--model", help="Model name at that endpoint.")
    ap.add_argument("--api-key", help="API key (local servers take any).")
    ap.add_argument("--scripted", action="store_true", help="Use the local scripted server instead of a real model.")
    ap.add_argument("--runs", type=int, help="Runs to take medians over (default 1; 3 with --scripted).")
    ap.add_argument("--lang", choices=["en", "zh", "all"], default="all")
    ap.add_argument("--extract", choices=["auto", "rules", "model", "off"],
                    help="The Agent's fact extraction (if it has the option; --scripted: rules).")
    ap.add_argument("--embedder", default="hashing", help="Memory embedder (default: hashing, no downloads).")
    ap.add_argument("--fixtures", type=Path, default=FIXTURE_DIR, help="Folder of fixture JSON files.")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true", help="Every turn and the stored facts on stderr.")
    args = ap.parse_args(argv)
    runs = args.runs or (3 if args.scripted else 1)
    if runs < 1:
        ap.error("--runs must be at least 1")
    llm: LLM | None = None
    if args.scripted:
        model, base_url, extract = "scripted-eval", "local scripted server", args.extract or "rules"
    else:
        try:
            settings = Settings.load(llm_model=args.model, llm_base_url=args.base_url, llm_api_key=args.api_key).llm
        except TrulyMemError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if not settings.model:
            print(NO_ENDPOINT, file=sys.stderr)
            return 2
        try:
            llm = get_llm(settings)
        except ConfigError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        model, base_url, extract = settings.model, settings.base_url or "https://api.openai.com/v1", args.extract
    if extract and not agent_kwargs(extract):
        print(f"note: this runtime's Agent has no extract= option; --extract {extract} ignored", file=sys.stderr)
    try:
        convs = load_conversations(None if args.lang == "all" else [args.lang], args.fixtures)
    except (OSError, ValueError) as exc:
        print(f"error: cannot load fixtures: {exc}", file=sys.stderr)
        return 2
    opts = Options(embedder=args.embedder, extract=extract, verbose=args.verbose)
    try:
        report = build_report(run_all(convs, llm, runs, opts))
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    report = {"model": model, "base_url": base_url, "scripted": args.scripted, "extract": extract, **report}
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
