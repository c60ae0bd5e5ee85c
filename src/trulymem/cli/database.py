"""The database as a whole: ``stats``, ``export``, ``import`` and ``reindex``."""

from __future__ import annotations

import sys
from typing import Any

import click

from trulymem.cli.base import Ctx, common, emit, err, main, out, read_text
from trulymem.cli.progress import progress
from trulymem.errors import InvalidInput


@main.command()
@common
def stats(ctx: Ctx) -> None:
    """Counts by node type, fact kind and validity."""
    with ctx.mem(existing=True) as mem:
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
    with ctx.mem(register_default=not all_users, existing=True) as mem, progress("exporting") as step:
        n = mem.export_jsonl(file, all_users=all_users, progress=step)
    if file is not sys.stdout and getattr(file, "name", "-") != "<stdout>":
        emit(ctx, {"rows": n}, lambda: err.print(f"exported {n} rows"))


@main.command("import")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--all-users", is_flag=True, help="Allow rows of every user (a whole-database restore).")
@common
def import_cmd(ctx: Ctx, file: Any, all_users: bool) -> None:
    """Read JSON lines written by `export` (all or nothing; identical rows are skipped).

    The rows are written in one transaction; then the new nodes get vectors of the
    database's embedder in short transactions of their own (with --embedder none they
    get none: `trulymem reindex --missing` adds them later)."""
    with ctx.mem(register_default=False) as mem:
        with progress("importing") as step:
            counts = mem.import_jsonl(read_text(file).splitlines(), all_users=all_users, progress=step)
        model = mem.embedder.name if mem.embedder is not None else None
    left = counts["unembedded"]

    def human() -> None:
        out.print(", ".join(f"{k}: {v}" for k, v in counts.items() if k not in ("embedded", "unembedded")))
        if model is not None:
            out.print(f"embedded {counts['embedded']} nodes with {model}")
        if left:
            err.print(f"warning: {left} nodes have no vector{'' if model else ' (--embedder none)'}: recall finds "
                      "them by their words only until `trulymem reindex --missing` embeds them")
    emit(ctx, {**counts, "model": model}, human)


@main.command()
@click.option("--missing", is_flag=True, help="With the model already searched: only embed nodes without a vector "
                                              "(such as imported ones) instead of every node.")
@click.option("--batch", type=click.IntRange(1, 10_000), default=256, show_default=True,
              help="Nodes per transaction (other processes write between them).")
@common
def reindex(ctx: Ctx, missing: bool, batch: int) -> None:
    """Give every node a vector of --embedder's model and search those from then on.

    Switching model happens in place: the new vectors are written beside the old ones in
    short transactions while recall keeps using the old ones, then one transaction
    switches; the old vectors are dropped after. Interrupted, it continues where it
    stopped when run again with the same --embedder. Every user's nodes: a database
    searches one model."""
    from trulymem.embed import get_embedder
    from trulymem.embed.names import cli_name
    from trulymem.reindex import reindex as run
    from trulymem.store import open_store

    choice = ctx.settings.embedder
    if choice == "none":
        raise InvalidInput("reindex needs an embedder, not 'none'", field="embedder")
    with open_store(ctx.settings.db) as store:
        stored = store.embedding_model()
        if choice == "auto" and stored is not None:
            choice = cli_name(stored) or choice
        embedder = get_embedder(choice)
        with progress(f"embedding with {cli_name(embedder.name) or embedder.name}") as step:
            res = run(store, embedder, missing_only=missing, batch=batch, progress=step)
    name = cli_name(res.model) or res.model

    def human() -> None:
        how = "resumed, " if res.resumed else ""
        switched = f"switched from {cli_name(res.previous) or res.previous} to {name}" \
            if res.previous not in (None, res.model) else f"searching {name}"
        out.print(f"embedded {res.embedded} nodes ({how}{switched})"
                  + (f"; dropped {res.dropped} old vectors" if res.dropped else ""))
    emit(ctx, {"embedder": name, "model": res.model, "previous": res.previous, "embedded": res.embedded,
               "resumed": res.resumed, "dropped": res.dropped}, human)
