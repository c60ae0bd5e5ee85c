"""The ``trulymem`` command line. Every command takes ``--db``, ``--user``,
``--agent``, ``--app``, ``--session`` and ``--json`` (each also from a
``TRULYMEM_*`` environment variable or the config file)."""

from __future__ import annotations

import functools
import json
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import click
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from trulymem import __version__
from trulymem.config import DEFAULT_USER, Settings
from trulymem.errors import Conflict, InvalidInput, TrulyMemError
from trulymem.graph import TrulyMem
from trulymem.model import to_json
from trulymem.tools import anthropic_tools, openai_tools
from trulymem.transfer import read_jsonl

out = Console(highlight=False, soft_wrap=True, markup=False)
err = Console(stderr=True, highlight=False, soft_wrap=True)


class Ctx:
    def __init__(self, settings: Settings, session: str | None, as_json: bool) -> None:
        self.settings, self.as_json = settings, as_json
        self.session = session

    def mem(self) -> TrulyMem:
        s = self.settings
        return TrulyMem(s.db, user_id=s.user, agent_id=s.agent, app_id=s.app, session_id=self.session,
                        embedder=None if s.embedder == "none" else s.embedder)


def common(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Shared options; the wrapped command receives a ``Ctx`` as ``ctx`` and errors print as one line."""

    @click.option("--db", envvar="TRULYMEM_DB", help="Database file (default: config file, then the user data dir).")
    @click.option("--user", "user", envvar="TRULYMEM_USER", help="User id whose memory to use [default: default].")
    @click.option("--agent", envvar="TRULYMEM_AGENT", help="Agent id (scope).")
    @click.option("--app", envvar="TRULYMEM_APP", help="App/project id (scope).")
    @click.option("--session", envvar="TRULYMEM_SESSION", help="Session id recorded on every write (provenance).")
    @click.option("--embedder", envvar="TRULYMEM_EMBEDDER",
                  help="auto (default: best installed), hashing, use, openai:<model>, st:<path>, model2vec:<path>, none.")
    @click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
    @functools.wraps(fn)
    def wrapper(db: str | None, user: str | None, agent: str | None, app: str | None, session: str | None,
                embedder: str | None, as_json: bool, **kwargs: Any) -> None:
        try:
            ctx = Ctx(Settings.load(db=db, user=user, agent=agent, app=app, embedder=embedder), session, as_json)
            fn(ctx=ctx, **kwargs)
        except TrulyMemError as exc:
            if as_json:
                click.echo(json.dumps({"error": exc.to_dict()}, ensure_ascii=False))
            else:
                err.print(f"Error: {exc}", markup=False)
            sys.exit(2 if isinstance(exc, InvalidInput) else 1)

    return wrapper


def emit(ctx: Ctx, result: BaseModel | dict[str, Any] | list[Any], human: Callable[[], None]) -> None:
    if ctx.as_json:
        data = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
        click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    else:
        human()


def _json_arg(value: str | None, name: str) -> dict[str, Any]:
    if not value:
        return {}
    try:
        data = json.loads(value)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"is not valid JSON: {exc.msg}", field=name) from None
    if not isinstance(data, dict):
        raise InvalidInput("must be a JSON object", field=name)
    return data


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trulymem")
def main() -> None:
    """trulymem: long-term graph memory for LLM agents.

    Memories are triplets (subject) -[relation]-> (object) in one SQLite file.
    Try `trulymem demo` for the idiom-chain walkthrough.
    """


@main.command()
@click.argument("subject", required=False)
@click.argument("relation", required=False)
@click.argument("object_", metavar="OBJECT", required=False)
@click.option("--file", "file_", type=click.File("r", encoding="utf-8"),
              help="JSON lines (or a JSON list) of triplets to commit in one transaction; '-' for stdin.")
@click.option("--confidence", type=float, help="0 to 1 [default: 1].")
@click.option("--speculation", is_flag=True, help="Mark as inferred, not stated.")
@click.option("--type", "type_", help="Category label, e.g. preference or session_state.")
@click.option("--pinned", is_flag=True, help="Pin the fact.")
@click.option("--subject-type", help="Node type of the subject (default EntityNode).")
@click.option("--object-type", help="Node type of the object (default EntityNode).")
@click.option("--metadata", help="JSON object of metadata.")
@common
def commit(ctx: Ctx, subject: str | None, relation: str | None, object_: str | None, file_: Any,
           confidence: float | None, speculation: bool, type_: str | None, pinned: bool,
           subject_type: str | None, object_type: str | None, metadata: str | None) -> None:
    """Store a fact: SUBJECT RELATION OBJECT (or many with --file)."""
    if file_ is not None:
        if subject or relation or object_:
            raise InvalidInput("give either SUBJECT RELATION OBJECT or --file, not both", field="file")
        triplets = _read_triplets(_read_text(file_))
    else:
        if not (subject and relation and object_):
            raise InvalidInput("needs SUBJECT RELATION OBJECT (or --file)", field="triplet")
        t: dict[str, Any] = {"subject": subject, "relation": relation, "object": object_,
                             "speculation": speculation, "pinned": pinned}
        for k, v in (("confidence", confidence), ("type", type_), ("subject_type", subject_type),
                     ("object_type", object_type)):
            if v is not None:
                t[k] = v
        if metadata:
            t["metadata"] = _json_arg(metadata, "metadata")
        triplets = [t]
    with ctx.mem() as mem:
        res = mem.commit(triplets)
    def human() -> None:
        for f in res.facts:
            out.print(f"{f.status:>10}  {f.text}  ({f.id})")
    emit(ctx, res, human)


def _read_text(file: Any) -> str:
    try:
        return str(file.read())
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"is not UTF-8 text ({exc.reason} at byte {exc.start})", field="file") from None


def _read_triplets(text: str) -> list[dict[str, Any]]:
    text = text.strip()
    if text.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"is not valid JSON: {exc.msg}", field="file") from None
        return data if isinstance(data, list) else [data]
    return [row for _, row in read_jsonl(text.splitlines(), "file")]


def _when(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"{value!r} is not an ISO date/time (e.g. 2026-05-01 or 2026-05-01T12:00)", field=name) from None


@main.command()
@click.argument("query", required=False, default="")
@click.option("--depth", type=int, default=2, show_default=True, help="Graph hops (0-3).")
@click.option("--limit", type=int, default=20, show_default=True, help="Most facts to return.")
@click.option("--seed", "seeds", multiple=True, help="Start from this node name (repeatable).")
@click.option("--as-of", help="What was valid at this ISO time.")
@click.option("--from", "from_", help="Only facts whose event time is at or after this ISO time.")
@click.option("--to", help="Only facts whose event time is at or before this ISO time.")
@click.option("--include-invalid", is_flag=True, help="Also show corrected/forgotten facts.")
@click.option("--preset", type=click.Choice(["fast", "balanced", "deep"]), default="balanced", show_default=True)
@click.option("--max-tokens", type=int, help="Cut the result to fit this many tokens, best first.")
@common
def recall(ctx: Ctx, query: str, depth: int, limit: int, seeds: tuple[str, ...], as_of: str | None,
           from_: str | None, to: str | None, include_invalid: bool, preset: str, max_tokens: int | None) -> None:
    """Recall memories for QUERY (comma/space separated intents; empty: persona and tasks)."""
    time_range = None
    if from_ or to:
        time_range = {"start": _when(from_, "from"), "end": _when(to, "to")}
    with ctx.mem() as mem:
        res = mem.recall(query, depth=depth, limit=limit, seed_entities=list(seeds) or None,
                         as_of=_when(as_of, "as_of"), include_invalid=include_invalid, time_range=time_range,
                         preset=preset, max_tokens=max_tokens)
    emit(ctx, res, lambda: out.print(res.text))


@main.command()
@click.option("--id", "ids", multiple=True, help="Exact fact id (repeatable).")
@click.option("--subject", help="Exact subject name.")
@click.option("--relation", help="Exact relation.")
@click.option("--object", "object_", help="Exact object name.")
@click.option("--subject-contains", help="Substring of the subject.")
@click.option("--relation-contains", help="Substring of the relation.")
@click.option("--object-contains", help="Substring of the object.")
@click.option("--kind", help="Edge kind, e.g. FACT or HAS_STATE.")
@click.option("--type", "type_", help="Category label.")
@click.option("--source", help="Source label.")
@click.option("--in-session", help="Only facts written in this session.")
@click.option("--include-invalid", is_flag=True, help="Also match already-invalid facts (hard mode).")
@click.option("--mode", type=click.Choice(["soft", "supersede", "hard"]), default="soft", show_default=True)
@click.option("--replace-object", help="supersede: the corrected object.")
@click.option("--replace-subject", help="supersede: subject of the replacement (default: the matched one).")
@click.option("--replace-relation", help="supersede: relation of the replacement (default: the matched one).")
@click.option("--confirm", is_flag=True, help="Required for --mode hard: rows are deleted for good.")
@click.option("--dry-run", is_flag=True, help="Only show what would be affected.")
@common
def purge(ctx: Ctx, ids: tuple[str, ...], subject: str | None, relation: str | None, object_: str | None,
          subject_contains: str | None, relation_contains: str | None, object_contains: str | None,
          kind: str | None, type_: str | None, source: str | None, in_session: str | None,
          include_invalid: bool, mode: str,
          replace_object: str | None, replace_subject: str | None, replace_relation: str | None,
          confirm: bool, dry_run: bool) -> None:
    """Invalidate (soft), correct (supersede) or delete (hard) facts matching ALL criteria."""
    criteria: dict[str, Any] = {k: v for k, v in dict(
        ids=list(ids) or None, subject=subject, relation=relation, object=object_,
        subject_contains=subject_contains, relation_contains=relation_contains, object_contains=object_contains,
        kind=kind, type=type_, source=source, session_id=in_session).items() if v is not None}
    if include_invalid:
        criteria["include_invalid"] = True
    replacement = None
    if any(v is not None for v in (replace_object, replace_subject, replace_relation)):
        replacement = {k: v for k, v in dict(object=replace_object, subject=replace_subject,
                                            relation=replace_relation).items() if v is not None}
    with ctx.mem() as mem:
        res = mem.purge(criteria, mode=mode, replacement=replacement, confirm=confirm, dry_run=dry_run)

    def human() -> None:
        verb = {"soft": "invalidate", "supersede": "supersede", "hard": "delete"}[res.mode]
        head = f"would {verb}" if res.dry_run else {"soft": "invalidated", "supersede": "superseded",
                                                      "hard": "deleted"}[res.mode]
        out.print(f"{head} {len(res.matched)} fact(s)")
        for f in res.matched:
            out.print(f"  {f.text}  ({f.id})")
        if res.replacement_id:
            out.print(f"replacement: {res.replacement_id}")
    emit(ctx, res, human)


@main.group()
def task() -> None:
    """The working-memory task chain."""


@task.command("create")
@click.argument("task_id")
@click.argument("description")
@click.option("--info", "info", multiple=True, help="Related memory node (repeatable).")
@common
def task_create(ctx: Ctx, task_id: str, description: str, info: tuple[str, ...]) -> None:
    """Add TASK_ID to the chain, in state in_progress."""
    with ctx.mem() as mem:
        res = mem.task_create(task_id, description, list(info) or None)
    emit(ctx, res, lambda: out.print(
        f"created {res.task_id} [{res.state}]" + (f" after {res.previous_task}" if res.previous_task else "")))


@task.command("state")
@click.argument("task_id")
@click.argument("state")
@common
def task_state(ctx: Ctx, task_id: str, state: str) -> None:
    """Set TASK_ID's STATE (in_progress, paused, completed, cancelled, archived)."""
    with ctx.mem() as mem:
        res = mem.task_set_state(task_id, state)
    emit(ctx, res, lambda: out.print(f"{res.task_id}: {res.previous_state} → {res.state}"
                                     + ("" if res.changed else " (unchanged)")))


@task.command("list")
@click.option("--limit", type=int, default=20, show_default=True)
@click.option("--state", help="Only tasks in this state.")
@common
def task_list(ctx: Ctx, limit: int, state: str | None) -> None:
    """The task chain, newest first."""
    with ctx.mem() as mem:
        res = mem.task_list(limit=limit, state=state)

    def human() -> None:
        if not res.tasks:
            out.print("no tasks")
            return
        table = Table("task", "state", "description", "info", "after")
        for t in res.tasks:
            table.add_row(t.task_id, t.state or "?", t.description or "", ", ".join(t.info_nodes), t.previous_task or "")
        out.print(table)
    emit(ctx, res, human)


@main.group()
def persona() -> None:
    """The AI's persona."""


@persona.command("set")
@click.argument("pairs", nargs=-1, required=True, metavar="KEY=VALUE...")
@click.option("--replace", is_flag=True, help="The given attributes become the whole persona.")
@common
def persona_set(ctx: Ctx, pairs: tuple[str, ...], replace: bool) -> None:
    """Set persona attributes; repeat a KEY for a list (catchphrases=nya~ catchphrases=喵)."""
    attrs: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise InvalidInput(f"{pair!r} is not KEY=VALUE", field="attributes")
        if key in attrs:
            attrs[key] = (attrs[key] if isinstance(attrs[key], list) else [attrs[key]]) + [value]
        else:
            attrs[key] = value
    with ctx.mem() as mem:
        res = mem.persona_set(attrs, mode="replace" if replace else "merge")
    emit(ctx, res, lambda: _print_persona(res.attributes))


@persona.command("show")
@common
def persona_show(ctx: Ctx) -> None:
    """Show the current persona."""
    with ctx.mem() as mem:
        res = mem.persona_get()
    emit(ctx, res, lambda: _print_persona(res.attributes))


def _print_persona(attrs: dict[str, Any]) -> None:
    if not attrs:
        out.print("no persona set")
    for k, v in attrs.items():
        out.print(f"{k}: {', '.join(v) if isinstance(v, list) else v}")


@main.command()
@common
def stats(ctx: Ctx) -> None:
    """Counts by node type, fact kind and validity."""
    with ctx.mem() as mem:
        res = mem.stats()

    def human() -> None:
        out.print(f"nodes: {res.nodes}   facts: {res.facts_valid} valid, {res.facts_invalid} invalid")
        for t, n in res.nodes_by_type.items():
            out.print(f"  {t}: {n}")
        for k, v in res.facts_by_kind.items():
            out.print(f"  {k}: {v['valid']} valid, {v['invalid']} invalid")
    emit(ctx, res, human)


@main.command()
@click.argument("subject")
@click.argument("relation", required=False)
@common
def history(ctx: Ctx, subject: str, relation: str | None) -> None:
    """Every version of SUBJECT's facts (optionally one RELATION), oldest first."""
    for name, value in (("subject", subject), ("relation", relation)):
        if value is not None and not value.strip():
            raise InvalidInput("must not be empty", field=name)
    with ctx.mem() as mem:
        facts = mem.history(subject, relation)
    data = [to_json(f) for f in facts]

    def human() -> None:
        for f in facts:
            status = "valid" if f.is_valid else f"invalid since {f.invalid_at:%Y-%m-%d %H:%M:%S}"
            out.print(f"{f.created_at:%Y-%m-%d %H:%M:%S}  {f.render()}  ({status})")
    emit(ctx, data, human)


@main.command("export")
@click.argument("file", type=click.File("w", encoding="utf-8"), default="-")
@click.option("--all-users", is_flag=True, help="Export every user, not just --user.")
@common
def export_cmd(ctx: Ctx, file: Any, all_users: bool) -> None:
    """Write memories as JSON lines to FILE (default stdout)."""
    with ctx.mem() as mem:
        n = mem.export_jsonl(file, all_users=all_users)
    if file is not sys.stdout and getattr(file, "name", "-") != "<stdout>":
        emit(ctx, {"rows": n}, lambda: err.print(f"exported {n} rows"))


@main.command("import")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--all-users", is_flag=True, help="Allow rows of every user (a whole-database restore).")
@common
def import_cmd(ctx: Ctx, file: Any, all_users: bool) -> None:
    """Read JSON lines written by `export` (all or nothing; identical rows are skipped)."""
    with ctx.mem() as mem:
        counts = mem.import_jsonl(_read_text(file).splitlines(), all_users=all_users)
    emit(ctx, counts, lambda: out.print(", ".join(f"{k}: {v}" for k, v in counts.items())))


@main.command()
@click.option("--missing", is_flag=True, help="Only embed nodes that have no vector yet.")
@common
def reindex(ctx: Ctx, missing: bool) -> None:
    """(Re-)embed every node with the chosen embedder (one model per database)."""
    from rich.progress import Progress

    s = ctx.settings
    if s.embedder == "none":
        raise InvalidInput("reindex needs an embedder, not 'none'", field="embedder")
    mem = TrulyMem(TrulyMem(s.db, user_id=s.user).store, user_id=s.user, embedder=s.embedder)
    with mem, Progress(console=err, transient=True) as bar:
        task = bar.add_task(f"embedding with {mem.embedder.name}", total=None)  # type: ignore[union-attr]
        n = mem.reindex(missing_only=missing, progress=lambda done, total: bar.update(task, completed=done,
                                                                                        total=total))
    emit(ctx, {"embedded": n, "embedder": mem.embedder.name},  # type: ignore[union-attr]
         lambda: out.print(f"embedded {n} nodes with {mem.embedder.name}"))  # type: ignore[union-attr]


@main.group()
def bench() -> None:
    """Benchmarks (figures, not tests)."""


@bench.command("locomo")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--embedder", envvar="TRULYMEM_EMBEDDER", default="auto", show_default=True,
              help="auto, hashing, use, openai:<model>, st:<path>, model2vec:<path>, or none.")
@click.option("--conversations", type=int, help="Only the first N conversations.")
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
def bench_locomo(path: str, embedder: str, conversations: int | None, answer: bool, answer_model: str | None,
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
            with Progress(console=err, transient=True) as bar:
                task = bar.add_task("LoCoMo", total=None)

                def step(label: str, done: int, total: int) -> None:
                    bar.update(task, description=label, completed=done, total=total)

                if answer:
                    report = run_locomo_answers(path, answerer=answerer, judge=judge, embedder=emb,
                                                conversations=conversations, questions=questions,
                                                adversarial=include_adversarial, memory_tokens=memory_tokens,
                                                progress=step)
                else:
                    report = run_locomo(path, embedder=emb, conversations=conversations, progress=step)
    except TrulyMemError as exc:
        err.print(f"Error: {exc}", markup=False)
        sys.exit(2 if isinstance(exc, InvalidInput) else 1)
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    if answer:
        _print_locomo_answers(report)
    else:
        _print_locomo(report)


def _print_locomo(report: dict[str, Any]) -> None:
    out = Console(highlight=False, markup=False, width=max(140, Console().width))  # tables need the room
    ing = report["ingest"]
    out.print(f"LoCoMo: {report['conversations']} conversations, {report['questions']} questions with evidence; "
              f"embedder {report['embedder']}; ingest {ing['messages']} messages at {ing['messages_per_s']}/s")
    table = Table("variant", "R@1", "R@5", "R@10", "R@25", "R@50", "≤500t", "≤1000t", "≤2000t", "sess@10",
                  "p50 ms", "p95 ms", "p99 ms")
    for name, v in report["variants"].items():
        r, b, lat = v["recall_at"], v["recall_within_tokens"], v["latency_ms"]
        table.add_row(name, *(str(r[k]) for k in (1, 5, 10, 25, 50)), *(str(b[k]) for k in (500, 1000, 2000)),
                      str(v["session_recall_at"][10]), str(lat["p50"]), str(lat["p95"]), str(lat["p99"]))
    out.print(table)
    cats = Table("variant", *next(iter(report["variants"].values()))["recall_at_10_by_category"])
    for name, v in report["variants"].items():
        cats.add_row(name, *(str(x) for x in v["recall_at_10_by_category"].values()))
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

@main.command()
@click.option("--format", "fmt", type=click.Choice(["openai", "anthropic"]), default="openai", show_default=True)
def tools(fmt: str) -> None:
    """Print the memory tools' JSON schemas for an LLM API."""
    click.echo(json.dumps(openai_tools() if fmt == "openai" else anthropic_tools(), ensure_ascii=False, indent=2))


@main.command()
@common
def demo(ctx: Ctx) -> None:
    """Replay the idiom-chain example (为所欲为 → 为虎作伥) through the real tools.

    Uses a fresh database file unless --db is given on the command line, which
    must not yet hold memories for the user (the demo never mixes into real ones)."""
    from trulymem.demo import run_demo

    db = ctx.settings.db if _explicit_db() else str(Path(tempfile.mkdtemp(prefix="trulymem-demo-")) / "demo.db")
    with TrulyMem(db, user_id=ctx.settings.user) as mem:
        if mem.user_exists():
            raise Conflict(f"{db} already holds memories for user {ctx.settings.user!r}; the demo needs an empty "
                           "one (leave out --db for a fresh file, or pass another --user)", field="db")
        turns = run_demo(mem, emit=(lambda _: None) if ctx.as_json else out.print)
        chain = mem.task_list()
    if ctx.as_json:
        click.echo(json.dumps({"db": db, "turns": [
            {"user": t.user, "reply": t.reply, "steps": [{"tool": s.tool, "args": s.args, "result": s.result}
                                                          for s in t.steps]} for t in turns],
            "chain": chain.model_dump(mode="json")}, ensure_ascii=False, indent=2))
        return
    out.print("")
    out.print(f"Task chain now: {' → '.join(t.task_id + ' [' + (t.state or '?') + ']' for t in reversed(chain.tasks))}")
    out.print(f"Database: {db}")
    user = "" if ctx.settings.user == DEFAULT_USER else f" --user {ctx.settings.user}"
    out.print(f"Look around:  trulymem recall idiom_chain_current --db {db}{user}")
    out.print(f"              trulymem history idiom_chain_current --db {db}{user}")


def _explicit_db() -> bool:
    ctx = click.get_current_context()
    src = ctx.get_parameter_source("db")
    return src is not None and src.name == "COMMANDLINE"


from trulymem.cli import chat, dream, serve  # noqa: E402,F401  (register their commands; they import this module)
