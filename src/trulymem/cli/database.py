"""The database as a whole: ``stats``, ``export``, ``import`` and ``reindex``."""

from __future__ import annotations

import sys
from typing import Any

import click

from trulymem.cli.base import Ctx, common, emit, err, main, out, read_text
from trulymem.errors import InvalidInput
from trulymem.graph import TrulyMem


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
        counts = mem.import_jsonl(read_text(file).splitlines(), all_users=all_users)
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
