"""``trulymem dream`` and ``trulymem config retention``."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.progress import Progress

from trulymem.cli.base import Ctx, common, err, main, out
from trulymem.dream import load_retention, result_json, run_dream, undo_dream
from trulymem.errors import InvalidInput, TrulyMemError
from trulymem.llm import get_llm


@main.command()
@click.option("--auto", is_flag=True, help="Apply merges and prunes without asking; skip conflicts.")
@click.option("--dry-run", is_flag=True, help="Print the report only; change nothing.")
@click.option("--undo", "undo", is_flag=True, help="Undo the latest dream run of this scope (or --run-id).")
@click.option("--run-id", help="With --undo: the run to undo.")
@click.option("--runs", "list_runs", is_flag=True, help="List this scope's dream runs.")
@click.option("--project-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="Where mem0.md (retention policies) and the git branch are read.")
@click.option("--branch", help="Branch recorded on merged memories [default: the project's git branch].")
@click.option("--llm/--no-llm", "use_llm", default=True, show_default=True,
              help="Let the configured chat model write merged texts (when one is configured).")
@common
def dream(ctx: Ctx, auto: bool, dry_run: bool, undo: bool, run_id: str | None, list_runs: bool, project_dir: Path,
          branch: str | None, use_llm: bool) -> None:
    """Consolidate memories: merge near-duplicates, resolve contradictions, prune stale
    ones. Shows the report first and asks; every run can be undone with --undo."""
    if sum((auto, dry_run, undo, list_runs)) > 1:
        raise InvalidInput("choose one of --auto, --dry-run, --undo and --runs", field="mode")
    if run_id and not undo:
        raise InvalidInput("--run-id goes with --undo", field="run_id")
    with ctx.mem() as mem:
        if list_runs:
            runs = mem.store.runs(mem.scope.user_id or "", "dream", limit=100)
            rows = [{"id": r.id, "created_at": r.created_at.isoformat(), "undone_at": r.undone_at.isoformat()
                     if r.undone_at else None, "app_id": r.app_id, **r.summary} for r in runs]
            if ctx.as_json:
                click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
            for r in rows if not ctx.as_json else []:
                state = f"undone {r['undone_at']}" if r["undone_at"] else "applied"
                out.print(f"{r['id']}  {r['created_at']}  merged {r.get('merged', 0)}, pruned {r.get('pruned', 0)}, "
                          f"resolved {r.get('resolved', 0)}, skipped {r.get('skipped', 0)}  [{state}]")
            if not rows and not ctx.as_json:
                out.print("No dream runs in this scope.")
            return
        if undo:
            run = undo_dream(mem.context(), run_id)
            if ctx.as_json:
                click.echo(json.dumps({"undone": run.id, **run.summary}, ensure_ascii=False))
            else:
                out.print(f"Undid dream run {run.id}: {run.summary.get('merged', 0)} merges, "
                          f"{run.summary.get('pruned', 0)} prunes and {run.summary.get('resolved', 0)} resolved "
                          "conflicts put back.")
            return
        if ctx.as_json and not (auto or dry_run):
            raise InvalidInput("--json needs --dry-run or --auto (an interactive dream asks questions)", field="json")
        lines: list[str] = []
        emit = lines.append if ctx.as_json else out.print
        llm = get_llm(ctx.settings.llm) if use_llm and ctx.settings.llm.model else None
        # The bar lives on stderr and is gone before the report is printed and questions are asked.
        bar = Progress(console=err.rich, transient=True)
        task = bar.add_task("Fetching memories", total=None)

        def progress(what: str, done: int, total: int | None) -> None:
            if what == "Analysed":
                bar.stop()
            else:
                bar.update(task, description=what, completed=done, total=total)

        bar.start()
        try:
            result = run_dream(mem, project_dir=project_dir, auto=auto, dry_run=dry_run, emit=emit, branch=branch,
                               ask=_ask, llm=llm, progress=progress)
        finally:
            bar.stop()
        for w in result.warnings:
            err.print(f"warning: {w}", markup=False)
        if ctx.as_json:
            click.echo(json.dumps({**result_json(result), "output": lines}, ensure_ascii=False, indent=2, default=str))


def _ask(prompt: str) -> str:
    try:
        return str(click.prompt(prompt, default="", show_default=False, prompt_suffix=""))
    except click.Abort:  # end of input (or Ctrl-C): the rest is skipped and nothing is applied
        raise EOFError from None


@main.group()
def config() -> None:
    """Inspect trulymem's configuration."""


@config.command("retention")
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
def config_retention(directory: Path | None) -> None:
    """Print the retention policy for DIRECTORY (default: here) as JSON: type -> days
    (null = forever), from the defaults, the config file's [retention] and mem0.md."""
    try:
        r = load_retention(directory)
    except TrulyMemError as exc:
        err.print(f"Error: {exc}", markup=False)
        raise SystemExit(1) from None
    for w in r.warnings:
        err.print(f"warning: {w}", markup=False)
    click.echo(json.dumps(r.days, ensure_ascii=False, sort_keys=True))
