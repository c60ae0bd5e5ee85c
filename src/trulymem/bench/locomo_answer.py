"""LoCoMo answer accuracy with an LLM judge: the "J" score Mem0 and Zep report.

Each conversation is ingested as its own user, as in the recall benchmark
(:mod:`trulymem.bench.locomo`). Per question: recall with the question text
(hybrid + graph expansion; full text + graph without an embedder), render the
top-ranked turns with their date and speaker within a token budget, ask the
answer model for a brief answer from those memories only, then ask the judge
model to label it CORRECT or WRONG against the gold answer. J is the percentage
labelled CORRECT; a judge reply with no label counts as WRONG and is also
counted in ``judge_errors``. Category 5 (adversarial) is left out unless asked
for, as in Mem0's evaluation.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from trulymem.bench.locomo import Variant, _ingest, _pct, _percentile, variants
from trulymem.bench.locomo_data import CATEGORIES, Conversation, Question, load_locomo
from trulymem.bench.locomo_prompts import NOT_MENTIONED, answer_messages, judge_messages, parse_answer, parse_judge
from trulymem.config import LLMSettings
from trulymem.embed import Embedder
from trulymem.graph import TrulyMem
from trulymem.llm import get_llm
from trulymem.llm.base import LLM, LLMResponse
from trulymem.llm.openai_chat import OpenAIChat
from trulymem.model import NodeType
from trulymem.recall import RecallQuery, recall
from trulymem.recall.render import episode_line
from trulymem.text.tokenize import count_tokens

ADVERSARIAL = 5
MEMORY_TOKENS = 1500


@dataclass
class _Calls:
    """Usage and latency of one kind of model call (answer or judge)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False
    latency_ms: list[float] = field(default_factory=list)

    def add(self, res: LLMResponse) -> None:
        self.prompt_tokens += res.usage.prompt_tokens
        self.completion_tokens += res.usage.completion_tokens
        self.estimated = self.estimated or res.usage.estimated
        self.latency_ms.append(res.latency_ms)

    def summary(self) -> dict[str, Any]:
        n = len(self.latency_ms)
        return {"calls": n, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "prompt_tokens_mean": round(self.prompt_tokens / n, 1) if n else 0.0,
                "completion_tokens_mean": round(self.completion_tokens / n, 1) if n else 0.0,
                "tokens_estimated": self.estimated,
                "latency_ms": {"p50": _percentile(self.latency_ms, 0.5), "p95": _percentile(self.latency_ms, 0.95)}}


def gold_answer(q: Question) -> str | None:
    """What the judge compares with: adversarial questions are about things never said."""
    if q.category == ADVERSARIAL:
        return q.answer or NOT_MENTIONED
    return q.answer


def pick_questions(convs: list[Conversation], *, adversarial: bool = False,
                   limit: int | None = None) -> tuple[list[tuple[Conversation, list[Question]]], dict[str, int]]:
    """The questions to answer, in file order, per conversation (conversations left with none are
    dropped, so they are not ingested), and how many were skipped for which reason."""
    skipped = {"adversarial": 0, "no_gold_answer": 0, "over_limit": 0}
    picked: list[tuple[Conversation, list[Question]]] = []
    taken = 0
    for conv in convs:
        mine = []
        for q in conv.questions:
            if q.category == ADVERSARIAL and not adversarial:
                skipped["adversarial"] += 1
            elif gold_answer(q) is None:
                skipped["no_gold_answer"] += 1
            elif limit is not None and taken >= limit:
                skipped["over_limit"] += 1
            else:
                mine.append(q)
                taken += 1
        if mine:
            picked.append((conv, mine))
    return picked, skipped


def within_budget(lines: list[str], budget: int) -> list[str]:
    """The leading lines whose tokens fit in ``budget``, in rank order."""
    kept, used = [], 0
    for line in lines:
        cost = count_tokens(line)
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    return kept


@dataclass
class _Tally:
    answer: _Calls = field(default_factory=_Calls)
    judge: _Calls = field(default_factory=_Calls)
    recall_ms: list[float] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)


def memories(mem: TrulyMem, question: str, variant: Variant, embedder: Embedder | None,
             budget: int) -> tuple[list[str], list[str]]:
    """The recalled turns shown to the answer model, rendered (id, date, speaker, text) in rank
    order within ``budget`` tokens, and their turn ids."""
    with mem.store.transaction(write=False):
        res = recall(mem.store, mem.scope, RecallQuery(question, depth=variant.depth, limit=100),
                     mem.clock(), variant.config, embedder=embedder)
    episodes = [n for n in res.nodes if n.type == NodeType.EPISODE]
    shown = within_budget([episode_line(n) for n in episodes], budget)
    return shown, [str(n.metadata.get("turn_id")) for n in episodes[: len(shown)]]


def run_locomo_answers(path: str | Path, *, answerer: LLM, judge: LLM, embedder: Embedder | None,
                       db_dir: str | Path | None = None, conversations: int | None = None,
                       questions: int | None = None, adversarial: bool = False,
                       memory_tokens: int = MEMORY_TOKENS,
                       progress: Callable[[str, int, int], None] | None = None) -> dict[str, Any]:
    """Answer and judge the picked questions; :class:`LLMError` from either model stops the run."""
    picked, skipped = pick_questions(load_locomo(path)[:conversations], adversarial=adversarial, limit=questions)
    variant = next(v for v in variants() if v.name == ("hybrid+graph" if embedder is not None else "bm25+graph"))
    tally = _Tally()
    total, done = sum(len(c.turns) + len(qs) for c, qs in picked), 0
    with tempfile.TemporaryDirectory(prefix="trulymem-locomo-answer-") as tmp:
        folder = Path(db_dir or tmp)
        for conv, qs in picked:
            with TrulyMem(folder / f"{conv.id}.db", user_id=conv.id, embedder=embedder) as mem:
                _ingest(mem, conv)
                done += len(conv.turns)
                if progress:
                    progress(f"{conv.id}: ingested", done, total)
                for q in qs:
                    t0 = time.perf_counter()
                    shown, turns = memories(mem, q.text, variant, embedder, memory_tokens)
                    tally.recall_ms.append((time.perf_counter() - t0) * 1000)
                    reply = answerer.complete(answer_messages(q.text, "\n".join(shown)))
                    tally.answer.add(reply)
                    answer, gold = parse_answer(reply.content), gold_answer(q) or ""
                    verdict = judge.complete(judge_messages(q.text, gold, answer))
                    tally.judge.add(verdict)
                    label = parse_judge(verdict.content)
                    wanted = set(q.evidence)
                    tally.results.append({
                        "conversation": conv.id, "question": q.text, "category": q.category, "gold": gold,
                        "answer": answer, "label": {True: "CORRECT", False: "WRONG", None: "UNPARSEABLE"}[label],
                        "memory_turns": len(shown), "memory_tokens": sum(count_tokens(x) for x in shown),
                        "evidence_shown": len(wanted & set(turns)) / len(wanted) if wanted else None,
                    })
                    done += 1
                    if progress:
                        progress(f"{conv.id}: answered {len(tally.results)}", done, total)
    head = {"file": str(path), "embedder": embedder.name if embedder else None, "answer_model": answerer.model,
            "judge_model": judge.model, "conversations": len(picked),  # only those with a question are ingested
            "recall": variant.name, "memory_tokens_budget": memory_tokens}
    return {**head, **_summary(tally, skipped)}


def _summary(t: _Tally, skipped: dict[str, int]) -> dict[str, Any]:
    results = t.results
    correct = [r["label"] == "CORRECT" for r in results]
    by_category: dict[int, list[bool]] = {}
    for r, ok in zip(results, correct):
        by_category.setdefault(r["category"], []).append(ok)
    evidence = [r["evidence_shown"] for r in results if r["evidence_shown"] is not None]

    def mean(key: str) -> float:
        return round(statistics.fmean(r[key] for r in results), 1) if results else 0.0

    return {
        "questions": len(results),
        "skipped": skipped,
        "j_score": _pct([float(x) for x in correct]),
        "correct": sum(correct),
        "wrong": len(results) - sum(correct),
        "judge_errors": sum(r["label"] == "UNPARSEABLE" for r in results),
        "by_category": {f"{c} {CATEGORIES.get(c, '?')}": {"questions": len(oks), "correct": sum(oks),
                                                          "j_score": _pct([float(x) for x in oks])}
                        for c, oks in sorted(by_category.items())},
        "memory": {"turns_mean": mean("memory_turns"), "tokens_mean": mean("memory_tokens"),
                   "evidence_shown": _pct(evidence)},
        "recall_latency_ms": {"p50": _percentile(t.recall_ms, 0.5), "p95": _percentile(t.recall_ms, 0.95)},
        "answer": t.answer.summary(),
        "judge": t.judge.summary(),
        "results": results,
    }


@contextmanager
def benchmark_llms(settings: LLMSettings, answer_model: str, judge_model: str) -> Iterator[tuple[LLM, LLM]]:
    """The answer and judge clients from the configured endpoint, at temperature 0 so reruns
    agree; their connections are closed on exit."""
    clients = [get_llm(replace(settings, model=m)) for m in (answer_model, judge_model)]
    for llm in clients:
        if isinstance(llm, OpenAIChat):
            llm.temperature = 0.0
    try:
        yield clients[0], clients[1]
    finally:
        for llm in clients:
            if isinstance(llm, OpenAIChat):
                llm.client.close()
