"""``trulymem bench``: benchmarks that print figures (LoCoMo evidence recall, answer accuracy)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from trulymem.cli.base import err, fail, main
from trulymem.config import Settings
from trulymem.errors import InvalidInput, TrulyMemError
from trulymem.limits import RECALL_LIMIT_MAX


@main.group()
def bench() -> None:
    """Benchmarks (figures, not tests)."""


@bench.command("locomo")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--embedder", envvar="TRULYMEM_EMBEDDER", default="auto", show_default=True,
              help="auto, hashing, use, openai:<model>, st:<path>, model2vec:<path>, or none.")
@click.option("--conversations", type=int, help="Only the first N conversations (of the split).")
@click.option("--split", type=click.Choice(["tune", "heldout", "all"]), default="all", show_default=True,
              help="Conversations to run: tune (conv-26/30/41/42, tuned on), heldout (conv-43/44, only reported) "
                   "or all.")
@click.option("--dump", type=click.Path(dir_okay=False, writable=True),
              help="Write one JSON line per question and variant (evidence, top 10 with scores and reasons, "
                   "hit or miss).")
@click.option("--limit", type=click.IntRange(1, RECALL_LIMIT_MAX), default=100, show_default=True,
              help="Nodes each recall returns (R@k is not measured past it); 20 is the memory_recall tool's "
                   "default.")
@click.option("--answer", is_flag=True, help="Answer accuracy instead: answer each question from recalled memories "
                                             "and grade it with an LLM judge (J score).")
@click.option("--answer-model", help="With --answer: the model that answers [default: the chat model, "
                                     "env TRULYMEM_LLM_MODEL].")
@click.option("--judge-model", help="With --answer: the model that grades [default: the answer model].")
@click.option("--base-url", help="With --answer: OpenAI-compatible endpoint of both models "
                                 "[env TRULYMEM_LLM_BASE_URL, default api.openai.com].")
@click.option("--api-key", help="With --answer: API key [env TRULYMEM_LLM_API_KEY or OPENAI_API_KEY].")
@click.option("--questions", type=click.IntRange(min=1), help="With --answer: only the first N questions.")
@click.option("--include-adversarial", is_flag=True,
              help="With --answer: also category 5 (adversarial), left out by default as in Mem0's evaluation.")
@click.option("--memory-tokens", type=click.IntRange(min=1), default=1500, show_default=True,
              help="With --answer: token budget of recalled turns shown to the answer model.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
def bench_locomo(path: str, embedder: str, conversations: int | None, split: str, dump: str | None, limit: int,
                 answer: bool,
                 answer_model: str | None,
                 judge_model: str | None, base_url: str | None, api_key: str | None, questions: int | None,
                 include_adversarial: bool, memory_tokens: int, as_json: bool) -> None:
    """Evidence recall@k on a LoCoMo-format file, with ablations, budgets and latency;
    with --answer, answer accuracy graded by an LLM judge."""
    from contextlib import ExitStack

    from click.core import ParameterSource
    from rich.progress import Progress

    from trulymem.bench.locomo import run_locomo
    from trulymem.bench.locomo_answer import benchmark_llms, run_locomo_answers
    from trulymem.embed import get_embedder

    click_ctx = click.get_current_context()
    answer_only = [f"--{n.replace('_', '-')}" for n in ("answer_model", "judge_model", "base_url", "api_key",
                                                        "questions", "include_adversarial", "memory_tokens")
                   if click_ctx.get_parameter_source(n) == ParameterSource.COMMANDLINE]
    try:
        if answer_only and not answer:
            raise InvalidInput(f"{', '.join(answer_only)} {'is' if len(answer_only) == 1 else 'are'} only used "
                               "with --answer")
        recall_only = [f"--{n}" for n in ("split", "dump", "limit") if click_ctx.get_parameter_source(n) ==
                       ParameterSource.COMMANDLINE]
        if recall_only and answer:
            raise InvalidInput(f"{', '.join(recall_only)} {'is' if len(recall_only) == 1 else 'are'} not used "
                               "with --answer")
        with ExitStack() as stack:
            if answer:
                llm = Settings.load(llm_base_url=base_url, llm_api_key=api_key).llm
                answer_model = answer_model or llm.model
                if not answer_model:  # before anything is loaded or ingested
                    err.print("Error: --answer needs a model: pass --answer-model (and --judge-model), or set "
                              "TRULYMEM_LLM_MODEL (llm_model in the config file)", markup=False)
                    sys.exit(2)
                answerer, judge = stack.enter_context(benchmark_llms(llm, answer_model, judge_model or answer_model))
            emb = None if embedder == "none" else get_embedder(embedder)
            with Progress(console=err.rich, transient=True) as bar:
                task = bar.add_task("LoCoMo", total=None)

                def step(label: str, done: int, total: int) -> None:
                    bar.update(task, description=label, completed=done, total=total)

                if answer:
                    report = run_locomo_answers(path, answerer=answerer, judge=judge, embedder=emb,
                                                conversations=conversations, questions=questions,
                                                adversarial=include_adversarial, memory_tokens=memory_tokens,
                                                progress=step)
                else:
                    report = run_locomo(path, embedder=emb, conversations=conversations, split=split, dump=dump,
                                        limit=limit, progress=step)
    except TrulyMemError as exc:
        fail(exc)
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    if answer:
        _print_locomo_answers(report)
    else:
        _print_locomo(report)


def _shown(value: float | None) -> str:
    return "—" if value is None else str(value)  # None: past the recall's limit


def _print_locomo(report: dict[str, Any]) -> None:
    out = Console(highlight=False, markup=False, width=max(140, Console().width))  # tables need the room
    ing = report["ingest"]
    out.print(f"LoCoMo ({report['split']}: {', '.join(report['conversation_ids'])}): {report['questions']} questions "
              f"with evidence; embedder {report['embedder']}; ingest {ing['messages']} messages at "
              f"{ing['messages_per_s']}/s wall, {ing['messages_per_cpu_s']}/s CPU")
    table = Table("variant", "R@1", "R@5", "R@10", "R@25", "R@50", "≤500t", "≤1000t", "≤2000t", "sess@10",
                  "p50 ms", "p95 ms", "p99 ms")
    for name, v in report["variants"].items():
        r, b, lat = v["recall_at"], v["recall_within_tokens"], v["latency_ms"]
        table.add_row(name, *(_shown(r[k]) for k in (1, 5, 10, 25, 50)), *(str(b[k]) for k in (500, 1000, 2000)),
                      _shown(v["session_recall_at"][10]), str(lat["p50"]), str(lat["p95"]), str(lat["p99"]))
    out.print(table)
    cats = Table("variant", *next(iter(report["variants"].values()))["recall_at_10_by_category"])
    for name, v in report["variants"].items():
        cats.add_row(name, *(_shown(x) for x in v["recall_at_10_by_category"].values()))
    out.print("Recall@10 by category (LoCoMo numbering):")
    out.print(cats)


def _print_locomo_answers(report: dict[str, Any]) -> None:
    out = Console(highlight=False, markup=False, soft_wrap=True)
    skipped = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in report["skipped"].items() if n) or "none"
    m = report["memory"]
    out.print(f"LoCoMo answers: {report['conversations']} conversations, {report['questions']} questions answered "
              f"(skipped: {skipped}); embedder {report['embedder']}")
    out.print(f"answer model {report['answer_model']}, judge model {report['judge_model']}; memories: "
              f"{report['recall']} within {report['memory_tokens_budget']} tokens (mean {m['tokens_mean']} tokens, "
              f"{m['turns_mean']} turns; evidence shown {m['evidence_shown']}%)")
    out.print(f"J {report['j_score']}: {report['correct']} correct, {report['wrong']} wrong "
              f"({report['judge_errors']} of them unparseable judge replies)")
    cats = Table("category", "questions", "correct", "J")
    for name, c in report["by_category"].items():
        cats.add_row(name, str(c["questions"]), str(c["correct"]), str(c["j_score"]))
    out.print(cats)
    calls = Table("calls", "n", "prompt tokens", "completion tokens", "p50 ms", "p95 ms")
    for name in ("answer", "judge"):
        c = report[name]
        calls.add_row(name + (" (estimated)" if c["tokens_estimated"] else ""), str(c["calls"]),
                      f"{c['prompt_tokens']} (mean {c['prompt_tokens_mean']})",
                      f"{c['completion_tokens']} (mean {c['completion_tokens_mean']})",
                      str(c["latency_ms"]["p50"]), str(c["latency_ms"]["p95"]))
    lat = report["recall_latency_ms"]
    calls.add_row("recall", str(report["questions"]), "", "", str(lat["p50"]), str(lat["p95"]))
    out.print(calls)
