"""``dream``: consolidate a scope's memories — merge near-duplicates, resolve
contradictions, prune stale ones — always showing the diff first, journaled and
reversible. Follows ``mem0-dream-skill.md`` step by step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from trulymem import budget
from trulymem.dream.analyze import Analysis, Contradiction, DreamSettings, Progress, Review, analyze
from trulymem.dream.findings import text_of
from trulymem.dream.llm_merge import merge_with_llm
from trulymem.dream.owner import reading_texts
from trulymem.dream.plan import analysis_json, check_plan, decisions_from, plan_id
from trulymem.dream.policy import Retention, load_retention
from trulymem.dream.report import (
    CANCELLED,
    NOTHING_TO_DO,
    auto_line,
    conflict_line,
    no_memories,
    proposed,
    report,
    review_line,
    summary,
)
from trulymem.dream.run import (
    Applied,
    Choice,
    Decisions,
    ReviewChoice,
    apply_dream,
    dream_lock,
    interrupted,
    kept_apart,
    undo_dream,
)
from trulymem.dream.vectors import CachedEmbedder
from trulymem.embed import Embedder, get_embedder
from trulymem.errors import ConfigError, InvalidInput
from trulymem.graph import TrulyMem
from trulymem.llm.base import LLM
from trulymem.memories import MemoryItem, list_memories

__all__ = ["Analysis", "Applied", "Decisions", "DreamResult", "DreamSettings", "Retention", "analysis_json", "analyze",
           "apply_dream", "check_plan", "current_branch", "decisions_from", "dream_embedder", "kept_apart",
           "load_retention", "plan_id", "result_json", "run_dream", "undo_dream"]

_PAGE = 500  # memories fetched per read transaction
Status = Literal["no_memories", "nothing_to_do", "dry_run", "cancelled", "applied"]


@dataclass
class DreamResult:
    status: Status
    project: str
    analysis: Analysis | None = None
    applied: Applied | None = None
    warnings: list[str] = field(default_factory=list)


def result_json(r: DreamResult) -> dict[str, Any]:
    return {"status": r.status, "project": r.project, "warnings": r.warnings, "analysis": analysis_json(r.analysis),
            "applied": asdict(r.applied) if r.applied else None}


@lru_cache(maxsize=1)
def _encoder() -> Embedder | None:
    try:
        from trulymem.embed.adapters import USEEmbedder

        return USEEmbedder()  # blas_threads(): one by default, as everywhere (a second stalls on busy cores)
    except ConfigError:
        return None


def _cached(semantic: Embedder | None, mem: TrulyMem, items: list[MemoryItem],
            progress: Progress | None) -> Embedder | None:
    """The embedder behind a cache in the store: a database that has lived encodes only its
    new memories; vectors of texts no longer stored are dropped."""
    if semantic is None or not semantic.semantic:
        return semantic
    cached = CachedEmbedder(semantic, mem.store, mem.scope)
    texts = [text_of(m) for m in items] + reading_texts(items)  # "Tomás …" read as "the user …" too
    cached.warm(texts, progress)
    cached.prune(texts)
    return cached


def dream_embedder(choice: Embedder | str | None, memory_embedder: Embedder | None) -> Embedder | None:
    """The embedder that finds paraphrases for the dream. ``auto``: the bundled multilingual
    sentence encoder (LoCoMo dev recall is better with the default hashing embedder, 75.8 vs
    74.9 R@10 at a fraction of the query time, while paraphrase detection needs meaning: so
    the two may differ), else the memory's own embedder when it is a semantic one."""
    if choice is None or isinstance(choice, Embedder):
        return choice
    if choice == "auto":
        found = _encoder()
        return found if found is not None else memory_embedder if memory_embedder and memory_embedder.semantic else None
    return None if choice == "none" else get_embedder(choice)


def current_branch(directory: str | Path | None = None) -> str | None:
    """The git branch checked out in ``directory`` (or a parent), read from ``.git/HEAD``."""
    here = Path(directory or ".").resolve()
    for d in (here, *here.parents):
        head = d / ".git" / "HEAD"
        if head.is_file():
            text = head.read_text(encoding="utf-8", errors="replace").strip()
            return text.rsplit("/", 1)[-1] if text.startswith("ref:") else text[:12]
    return None


def _ask_pair(heading: str, a: MemoryItem, b: MemoryItem, note: str, prompt: str, answers: dict[str, Any],
              retry: str, ask: Callable[[str], str], emit: Callable[[str], None]) -> Any:
    """Show a pair, then ask until an answer in ``answers`` (empty or skip: ``None``)."""
    emit("")
    emit(heading)
    for side, m in (("A", a), ("B", b)):
        emit(f"  {side}: {m.memory}  ({m.created_at.date().isoformat()}, confidence {m.confidence:g})")
    emit(f"  {note}")
    choices = {"": None, "skip": None, "s": None, **answers}
    while True:
        answer = ask(prompt).strip().casefold()
        if answer in choices:
            return choices[answer]
        emit(retry)


def _ask_conflict(c: Contradiction, i: int, n: int, ask: Callable[[str], str], emit: Callable[[str], None]) -> Choice:
    got: Choice = _ask_pair(f"Conflict {i + 1} of {n}: {conflict_line(c)}", c.a, c.b,
                            f"suggested: {c.winner} ({c.why})", "Choose [A/B/skip]: ", {"a": "A", "b": "B"},
                            "Please answer A, B or skip.", ask, emit)
    return got


def _ask_review(r: Review, i: int, n: int, ask: Callable[[str], str], emit: Callable[[str], None]) -> ReviewChoice:
    got: ReviewChoice = _ask_pair(f"Review {i + 1} of {n}: {review_line(r)}", r.a, r.b,
                                  f"merged would read: {r.merge.merged}",
                                  "Merge them, keep both, or skip for now? [merge/keep/skip]: ",
                                  {"merge": "merge", "m": "merge", "keep": "keep", "k": "keep"},
                                  "Please answer merge, keep or skip.", ask, emit)
    return got


def _ask_all(analysis: Analysis, ask: Callable[[str], str], emit: Callable[[str], None]) -> Decisions | None:
    """Each conflict, then each pair to review, one by one, then ``Apply? [Y/n]``; ``None``
    when the person said no. End of input skips what is left and cancels."""
    d = Decisions()
    try:
        for i, c in enumerate(analysis.conflicts):
            d.conflicts[i] = _ask_conflict(c, i, len(analysis.conflicts), ask, emit)
        for i, r in enumerate(analysis.reviews):
            d.reviews[i] = _ask_review(r, i, len(analysis.reviews), ask, emit)
        if analysis.conflicts or analysis.reviews:
            emit("")
        answer = ask(f"{proposed(analysis)} Apply? [Y/n] ").strip().casefold()
        while answer not in ("", "y", "yes", "n", "no"):
            emit("Please answer y or n.")
            answer = ask("Apply? [Y/n] ").strip().casefold()
    except EOFError:
        emit("")
        emit("End of input: the remaining questions are skipped.")
        return None
    return None if answer in ("n", "no") else d


def _fetch(mem: TrulyMem, progress: Progress | None) -> list[MemoryItem]:
    """The scope's memories, a page per read transaction: other requests on the same
    connection (a server's other users) get it between pages, never wait for the whole fetch."""
    items: list[MemoryItem] = []
    cursor: str | None = None
    while True:
        budget.check("the dream's fetch")
        with mem.store.transaction(write=False):
            page = list_memories(mem.store, mem.scope, page_size=_PAGE, cursor=cursor, with_total=False)
        for m in page.results:
            items.append(m)
            if progress is not None and len(items) % 1000 == 0:
                progress("Fetching memories", len(items), None)
        cursor = page.next_cursor
        if cursor is None:
            return items


def run_dream(mem: TrulyMem, *, project_dir: str | Path | None = None, auto: bool = False, dry_run: bool = False,
              ask: Callable[[str], str] | None = None, emit: Callable[[str], None] = print,
              branch: str | None = None, settings: DreamSettings | None = None,
              llm: LLM | None = None, progress: Progress | None = None,
              embedder: Embedder | str | None = "auto") -> DreamResult:
    """The whole pass. Interactive unless ``auto`` or ``dry_run``: ``ask(prompt)`` reads
    one answer (conflict choices, then merge / keep / skip per pair to review, then
    ``Apply? [Y/n]``; ``EOFError`` from it skips the rest and cancels). Without a model
    only memories provably the same are merged; ``auto`` never applies a pair to review. With ``llm`` the merged
    texts are written by the model, and it judges the pairs the rules cannot decide.
    ``progress(what, done, total)`` hears about the fetch and the analysis (a progress bar).
    ``embedder`` finds paraphrases: ``auto`` is the multilingual sentence encoder, whatever
    embedder recall uses (see ``dream_embedder``); ``None`` compares words only."""
    scope = mem.scope
    if scope.user_id is None:
        raise InvalidInput("a dream works on one user's memories: name the user", field="user_id")
    project = scope.app_id or scope.user_id or "-"
    retention = load_retention(project_dir)
    result = DreamResult(status="no_memories", project=project, warnings=list(retention.warnings))
    now = mem.clock()
    branch = branch if branch is not None else current_branch(project_dir)
    if not mem.user_exists():
        emit(no_memories(project))
        return result
    with mem.store.transaction(write=False):
        cut = interrupted(mem.store, scope)
    if cut is not None:
        result.warnings.append(f"dream run {cut.id} was interrupted before it finished: the steps it applied are "
                               f"in place, each whole; `trulymem dream --undo --run-id {cut.id}` puts them back")
    items = _fetch(mem, progress)
    if not items:
        emit(no_memories(project))
        return result
    semantic = _cached(dream_embedder(embedder, mem.embedder), mem, items, progress)
    with mem.store.transaction(write=False):
        kept = kept_apart(mem.store, scope)
    analysis = analyze(items, retention, now, embedder=semantic, settings=settings, progress=progress, llm=llm,
                       kept=kept)
    result.analysis = analysis
    result.warnings += analysis.warnings
    if llm is not None and analysis.merges:
        result.warnings += merge_with_llm(analysis, llm)
    if analysis.empty:
        emit(NOTHING_TO_DO)
        result.status = "nothing_to_do"
        return result
    budget.check("the dream's analysis")  # the last point before anything is written (or a report answered)
    ctx = mem.context()
    if dry_run:
        emit(report(analysis))
        emit(f"{proposed(analysis)} (dry run: nothing applied)")
        result.status = "dry_run"
        return result
    if auto:
        with dream_lock(mem.store, scope):
            result.applied = apply_dream(ctx, analysis, {}, branch=branch, auto=True)
        a = result.applied
        emit(auto_line(project, a.merged, a.pruned, len(analysis.conflicts), len(analysis.reviews)))
        result.status = "applied"
        return result
    if ask is None:
        raise ValueError("an interactive dream needs ask(); use auto=True or dry_run=True otherwise")
    with dream_lock(mem.store, scope):
        emit(report(analysis))
        decided = _ask_all(analysis, ask, emit)
        if decided is None:
            emit(CANCELLED)
            result.status = "cancelled"
            return result
        ctx.now = mem.clock()
        result.applied = apply_dream(ctx, analysis, decided, branch=branch)
    a = result.applied
    emit(summary(a.merged, a.pruned, a.resolved, a.skipped, a.reviewed, len(a.kept)))
    result.status = "applied"
    return result
